package native_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// runAsync runs n asynchronous reads of sel, at most window at a time, and fails t on any error.
func runAsync(t *testing.T, s *native.Session, sel *native.Prepared, n, window int) {
	t.Helper()
	ctx := ctxT(t)
	inFlight := make([]*native.Pending, 0, window)
	wait := func(p *native.Pending) {
		res, err := p.Result()
		if err != nil {
			t.Fatal(err)
		}
		if res.Len() != 1 {
			t.Fatalf("%d rows, want 1", res.Len())
		}
	}
	for i := range n {
		if len(inFlight) == window {
			wait(inFlight[0])
			inFlight = inFlight[1:]
		}
		inFlight = append(inFlight, s.ExecuteAsync(ctx, sel.Bind(i%10)))
	}
	for _, p := range inFlight {
		wait(p)
	}
}

// awaitIdle waits until some worker of s is idle: the last one parks right after completing its
// Pending, which may wake the test first.
func awaitIdle(t *testing.T, s *native.Session) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for native.AsyncIdleWorkers(s) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no idle worker 10s after the last asynchronous request")
		}
		time.Sleep(time.Millisecond)
	}
}

// onWorkers keeps a session's asynchronous requests on workers: a request with an observer
// does not take the goroutine-free path (see startDetached).
func onWorkers(c *native.Config) { c.Observer = func(context.Context, native.Attempt) {} }

func asyncFixture(t *testing.T) (*native.Session, *native.Prepared) {
	t.Helper()
	s, _ := connect(t, func(c *native.Config) { c.ConnsPerHost = 1; onWorkers(c) })
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	for i := range 10 {
		mustExec(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)", int32(i), int32(i))
	}
	return s, mustPrepare(t, s, "SELECT v FROM kv WHERE k = ?")
}

// The goroutines that run asynchronous requests are kept for the next ones: requests one at a
// time leave a worker or two idle, not one per request, and a window of 16 a few dozen at most.
func TestAsyncWorkersAreReused(t *testing.T) {
	s, sel := asyncFixture(t)
	runAsync(t, s, sel, 300, 1)
	// A worker parks after completing its Pending, so the next request may come first and
	// start a second one; never many.
	awaitIdle(t, s)
	if n := native.AsyncIdleWorkers(s); n < 1 || n > 4 {
		t.Errorf("%d idle workers after 300 requests one at a time, want 1 to 4", n)
	}
	runAsync(t, s, sel, 3000, 16)
	awaitIdle(t, s)
	// A worker completes its Pending before it parks: while it is between the two, the next
	// request starts another. So up to about twice the window, never one per request.
	if n := native.AsyncIdleWorkers(s); n < 1 || n > 2*16+4 {
		t.Errorf("%d idle workers after 3000 requests 16 at a time, want 1 to 36", n)
	}
}

// Idle workers end after a few trimming periods, and requests after that start new ones.
func TestAsyncWorkersEndWhenIdle(t *testing.T) {
	s, sel := asyncFixture(t)
	native.SetAsyncTrimTick(s, 5*time.Millisecond)
	awaitNoIdle := func(round int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for native.AsyncIdleWorkers(s) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d workers still idle after 20s", round, native.AsyncIdleWorkers(s))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for round := range 2 {
		// Requests started from many goroutines at once need many workers.
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runAsync(t, s, sel, 20, 2)
			}()
		}
		wg.Wait()
		awaitNoIdle(round)
	}
	runAsync(t, s, sel, 10, 1)
	awaitIdle(t, s)
	awaitNoIdle(2)
}

// Close ends the idle workers at once (they would otherwise wait several seconds).
func TestCloseEndsIdleAsyncWorkers(t *testing.T) {
	defer goleak.VerifyNone(t, append(cqltest.GoleakOptions(), goleak.IgnoreCurrent())...)
	ks, hosts := testKeyspace(t, 1)
	cfg := native.Config{Hosts: hosts, Keyspace: ks, ConnsPerHost: 1}
	onWorkers(&cfg)
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	defer s.Close()
	for i := range 10 {
		mustExec(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)", int32(i), int32(i))
	}
	sel := mustPrepare(t, s, "SELECT v FROM kv WHERE k = ?")
	runAsync(t, s, sel, 200, 8)
	awaitIdle(t, s)
	s.Close()
	if n := native.AsyncIdleWorkers(s); n != 0 {
		t.Errorf("%d idle workers after Close", n)
	}
}

// A worker whose request's policy panicked serves the next request; one whose policy called
// runtime.Goexit ends, and the next request gets another.
func TestAsyncWorkerAfterPolicyPanicOrGoexit(t *testing.T) {
	s := twoNodeSession(t, nil)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 1)")
	sel := mustPrepare(t, s, "SELECT v FROM kv WHERE k = ?")
	for name, policy := range map[string]funcRetry{
		"panic": func(context.Context, *native.Attempt) native.RetryDecision { panic("policy bug") },
		"goexit": func(context.Context, *native.Attempt) native.RetryDecision {
			runtime.Goexit()
			return native.RetryDecision{}
		},
	} {
		for range 3 {
			_, err := s.ExecuteAsync(ctxT(t), native.Query("SELECT * FROM no_such_table_here").WithRetryPolicy(policy)).Result()
			if err == nil || !strings.Contains(err.Error(), "asynchronous request") {
				t.Fatalf("%s: Result error %v, want the asynchronous request's failure", name, err)
			}
			res, err := s.ExecuteAsync(ctxT(t), sel.Bind(1)).Result()
			if err != nil || res.Len() != 1 {
				t.Fatalf("%s: the next request: %v", name, err)
			}
		}
	}
}
