package native

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// A node's pool whose reconnection Close cuts short does not keep the cancelled dial's error
// as the node's: a request that finds the node without a connection while Close runs (between
// the end of the session's context and the retirement of its pools) got "connection closed:
// ... context canceled", which matched context.Canceled though its caller's context had not
// ended (and compat/gocql turned it into context.Canceled, not ErrSessionClosed).
func TestPoolDialCancelledByCloseIsNoContextError(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	d := cqltest.NewDialGate(cl.Addrs()[1])
	s, err := Connect(context.Background(), Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second,
		ConnectTimeout: time.Minute, Dialer: d})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.poolFor(d.Addr)
	for len(*p.conns.Load()) == 0 {
		time.Sleep(time.Millisecond) // the pool's first connections
	}
	d.Armed.Store(true)
	if err := cl.StopNode(1); err != nil {
		t.Fatal(err)
	}
	<-d.Entered // the pool dials the node again, and waits
	s.cancel()  // Close's first step: the session's context ends
	for {
		p.mu.Lock()
		refilling := p.refilling
		p.mu.Unlock()
		if !refilling {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_, err = p.pick()
	if err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("pick after the session's context ended: err = %v, want no context error", err)
	}
}
