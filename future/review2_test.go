package future_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// With an Executor, a page's callbacks run on it even when the page is dispatched behind an
// earlier page that had nothing to run (here: page 1, with only an errback, settled by
// Result before its watcher ran). They ran in the completing goroutine, which must not block.
func TestExecutorRunsCallbacksQueuedBehindEmptyDispatch(t *testing.T) {
	sess, ks := realSession(t, 4)
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0").WithPageSize(2)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	var (
		mu    sync.Mutex
		tasks []func()
	)
	exec := callbacks.ExecutorFunc(func(fn func()) { mu.Lock(); tasks = append(tasks, fn); mu.Unlock() })
	f := future.Start(context.Background(), g, future.Options{Callbacks: callbacks.Options{Executor: exec}})
	var l log
	f.AddErrback(l.eb("eb")) // page 1 is watched
	first := g.get(0)
	first.closeDone()                     // page 1 is there; its completing goroutine has not run its hooks yet
	if _, err := f.Result(); err != nil { // settles page 1, leaving its (empty) dispatch to the watcher
		t.Fatal(err)
	}
	f.AddCallback(func(p future.Page) {
		if p.Number() > 1 {
			l.add("cb p%d", p.Number())
		}
	})
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	g.release(1) // page 2 completes in this goroutine, behind page 1's dispatch
	first.runHooks()
	if got := l.take(); len(got) != 0 {
		t.Errorf("callbacks ran outside the Executor, in the completing goroutine: %v", got)
	}
	mu.Lock()
	run := tasks
	tasks = nil
	mu.Unlock()
	if len(run) != 1 {
		t.Fatalf("the Executor got %d tasks for page 2, want 1", len(run))
	}
	run[0]()
	diff(t, []string{"cb p2"}, l.take())
}

// A page that failed by the future's timeout is a *TimeoutError however late it is looked at:
// also after the caller's context ended (a deferred cancel, say) before Result was called.
func TestTimeoutErrorAfterCallerContextEnded(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	s, err := native.Connect(context.Background(), native.Config{Hosts: c.Addrs(), DisablePeerDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := c.InjectFault(0, cqlsim.Fault{Match: "system.local", Delay: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req := &seenRequester{inner: future.NewRequester(s, native.Query("SELECT key FROM system.local"))}
	f := future.Start(ctx, req, future.Options{Timeout: 50 * time.Millisecond})
	<-req.last.Done() // timed out, nothing has looked at the future yet
	cancel()
	_, err = f.Result()
	var te *future.TimeoutError
	if !errors.As(err, &te) {
		t.Errorf("Result after the page timed out and the context ended: %v (%T); want a *future.TimeoutError", err, err)
	}
}

// TraceIDs sees a traced page that completed but that nothing has looked at yet, as TraceID
// does.
func TestTraceIDsSeesCompletedPage(t *testing.T) {
	src := &fakeSource{pages: map[string]fakePage{"": {rows: []int{1}, trace: []byte("t1")}}}
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{})
	if got := f.TraceIDs(); len(got) != 1 || string(got[0]) != "t1" {
		t.Errorf("TraceIDs on a completed traced page = %q, want [t1]", got)
	}
}

// seenRequester is a Requester that keeps the last Pending it made (set before Start returns).
type seenRequester struct {
	inner future.Requester
	last  future.Pending
}

func (r *seenRequester) Request(ctx context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	r.last = r.inner.Request(ctx, pagingState, timeout)
	return r.last
}

// A callback added after the page completed but before its watcher ran runs after the
// callbacks registered before it, with them, in the watcher's dispatch: it did not settle the
// page itself and run at once, ahead of them (the conformance scenario mixed_registration_order
// caught this once on a fast node).
func TestCallbackAddedBeforeWatcherRunsKeepsOrder(t *testing.T) {
	sess, ks := realSession(t, 4)
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0").WithPageSize(2)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	f := future.Start(context.Background(), g, future.Options{})
	var l log
	f.AddCallback(func(p future.Page) { l.add("cb1 p%d", p.Number()) }) // page 1 is watched
	first := g.get(0)
	first.closeDone() // page 1 is there; its completing goroutine has not run its hooks yet
	f.AddErrback(l.eb("eb1"))
	f.AddCallback(func(p future.Page) { l.add("cb2 p%d", p.Number()) })
	if got := l.take(); len(got) != 0 {
		t.Errorf("callbacks ran before the page's watcher: %v", got)
	}
	first.runHooks()
	diff(t, []string{"cb1 p1", "cb2 p1"}, l.take())
}
