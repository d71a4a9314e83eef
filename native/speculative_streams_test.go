package native

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// Speculative execution on three nodes, two of which answer 2 s late: every request is
// answered by the fast node; the attempts that lost are cancelled (their observer sees the
// cancellation), their goroutines end before Execute returns, and their stream ids, held
// until the slow nodes' late answers arrive, are all given back then.
func TestSpeculativeLosersGiveTheirStreamIDsBack(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	defer goleak.VerifyNone(t, append(cqltest.GoleakOptions(), goleak.IgnoreCurrent())...)
	var mu sync.Mutex
	var seen []Attempt
	s, err := Connect(context.Background(), Config{Hosts: cl.Addrs()[:1], Routing: RoundRobin, ConnsPerHost: 1,
		Observer: func(_ context.Context, a Attempt) { mu.Lock(); seen = append(seen, a); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const probe = "SELECT release_version FROM system.local"
	for _, a := range cl.Addrs() {
		deadline := time.Now().Add(10 * time.Second)
		for _, err := s.Execute(context.Background(), Query(probe).WithHost(a)); err != nil; _, err = s.Execute(context.Background(), Query(probe).WithHost(a)) {
			if time.Now().After(deadline) {
				t.Fatalf("node %s never served: %v", a, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for i := range 2 {
		if err := cl.SetNodeDelay(i, 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	seen = nil
	mu.Unlock()
	fast := cl.Addrs()[2]
	for i := range 3 { // round-robin: the plans start on each node in turn
		res, err := s.Execute(context.Background(), Query(probe).WithIdempotent(true).WithSpeculativeExecution(30*time.Millisecond, 2))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if res.Host() != fast {
			t.Errorf("request %d answered by %s, not the fast node %s", i, res.Host(), fast)
		}
	}
	mu.Lock()
	losers := 0
	for _, a := range seen {
		switch {
		case a.Host == fast:
			if a.Err != nil {
				t.Errorf("attempt %d on the fast node: %v", a.Number, a.Err)
			}
		case errors.Is(a.Err, context.Canceled):
			losers++
		default:
			t.Errorf("attempt %d on slow node %s: %v, want its cancellation", a.Number, a.Host, a.Err)
		}
	}
	mu.Unlock()
	if losers == 0 {
		t.Fatal("no attempt lost: no plan started on a slow node")
	}
	if n := s.ricInFlight(); n == 0 {
		t.Fatalf("no stream id in use after %d cancelled attempts whose answers are late", losers)
	}
	ricWaitIdle(t, s) // the late answers give the ids back
	s.Close()
}
