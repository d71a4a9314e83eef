package future_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// gatedRequester runs its requests on a real session but lets the test decide when, and in
// which goroutine, each one completes: release(i) waits for the i-th request's real response,
// then completes it (and runs its OnDone functions) in the calling goroutine.
type gatedRequester struct {
	inner future.Requester

	mu      sync.Mutex
	pending []*gatedPending
	added   chan struct{} // receives once per request
}

func newGatedRequester(inner future.Requester) *gatedRequester {
	return &gatedRequester{inner: inner, added: make(chan struct{}, 100)}
}

func (g *gatedRequester) Request(ctx context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	p := &gatedPending{inner: g.inner.Request(ctx, pagingState, timeout), done: make(chan struct{})}
	g.mu.Lock()
	g.pending = append(g.pending, p)
	g.mu.Unlock()
	g.added <- struct{}{}
	return p
}

// release completes the i-th request (0-based), waiting for it to have been sent.
func (g *gatedRequester) release(i int) { g.get(i).release() }

// get returns the i-th request, waiting for it to have been sent.
func (g *gatedRequester) get(i int) *gatedPending {
	for {
		g.mu.Lock()
		if i < len(g.pending) {
			p := g.pending[i]
			g.mu.Unlock()
			return p
		}
		g.mu.Unlock()
		<-g.added
	}
}

type gatedPending struct {
	inner future.Pending
	done  chan struct{}

	mu    sync.Mutex
	hooks []func()
	fired bool
	// gate, when set, holds the next OnDone call until it is closed; entered is closed when
	// that call starts waiting.
	gate, entered chan struct{}
}

// release completes the request: closeDone, then runHooks.
func (p *gatedPending) release() {
	p.closeDone()
	p.runHooks()
}

// closeDone waits for the real response and closes Done, without running the OnDone functions
// yet (the moment between the two steps of a completion).
func (p *gatedPending) closeDone() {
	<-p.inner.Done()
	close(p.done)
}

// runHooks runs the OnDone functions in this goroutine, as the completing goroutine does.
func (p *gatedPending) runHooks() {
	p.mu.Lock()
	p.fired = true
	hooks := p.hooks
	p.hooks = nil
	p.mu.Unlock()
	for _, h := range hooks {
		h()
	}
}

func (p *gatedPending) Done() <-chan struct{}              { return p.done }
func (p *gatedPending) Response() (future.Response, error) { return p.inner.Response() }

func (p *gatedPending) OnDone(fn func()) {
	p.mu.Lock()
	if gate := p.gate; gate != nil {
		p.gate = nil
		p.mu.Unlock()
		close(p.entered)
		<-gate
		p.mu.Lock()
	}
	if p.fired {
		p.mu.Unlock()
		fn()
		return
	}
	p.hooks = append(p.hooks, fn)
	p.mu.Unlock()
}

// TestPagesDispatchInOrderWithoutOverlap: the documented async-paging pattern (a callback
// starts the next page) must not run a page's callbacks while the previous page's callbacks are
// still running. In the Python driver every callback runs on the one event-loop thread, so a
// callback sees the pages one after the other, in order. Before the fix, page 2's response
// dispatched its callbacks at once in the goroutine that completed it, so callback b saw page 2
// before it had finished with page 1 (out of order, and concurrently: a data race in code that,
// like Python code, assumes one page at a time).
func TestPagesDispatchInOrderWithoutOverlap(t *testing.T) {
	sess, ks := realSession(t, 6)
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0").WithPageSize(2)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	f := future.Start(context.Background(), g, future.Options{})
	var l log
	proceed := make(chan struct{})
	f.AddCallback(func(p future.Page) {
		if p.Number() == 1 {
			if err := f.StartFetchingNextPage(); err != nil {
				l.add("start: %v", err)
			}
		}
	})
	f.AddCallback(func(p future.Page) {
		l.add("b start p%d", p.Number())
		if p.Number() == 1 {
			<-proceed // still busy with page 1 when page 2 arrives
		}
		l.add("b end p%d", p.Number())
	})
	page1 := make(chan struct{})
	go func() {
		defer close(page1)
		g.release(0) // page 1's callbacks run in this goroutine
	}()
	waitFor(t, &l, 1)
	g.release(1) // page 2 arrives while b is still busy with page 1
	close(proceed)
	<-page1
	waitFor(t, &l, 4)
	diff(t, []string{"b start p1", "b end p1", "b start p2", "b end p2"}, l.take())
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rowKeys(rs.CurrentRows()), " "); got != "2 3" {
		t.Fatalf("Result after page 2 = %s", got)
	}
}

func rowKeys(rows []future.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		v, _ := r.Get("k")
		out[i] = fmt.Sprint(v)
	}
	return out
}

// TestPythonReroutePanicAfterStartingNextPage: with callbacks.PythonReroute, a callback that
// starts the next page and then panics re-routes its panic to the errbacks (A12), but the next
// page is a new completion: when it arrives its callbacks run and Result returns it, as in the
// Python driver (whose _set_final_result for the next page fires the callbacks again). Before
// the fix the panic was recorded as the outcome of the page in flight, so that page's
// callbacks never ran and Result kept returning the panic although the page had arrived.
func TestPythonReroutePanicAfterStartingNextPage(t *testing.T) {
	sess, ks := realSession(t, 4)
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0").WithPageSize(2)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	f := future.Start(context.Background(), g, future.Options{Callbacks: callbacks.Options{Panics: callbacks.PythonReroute}})
	var l log
	f.AddCallback(func(p future.Page) {
		rows, _ := p.Rows()
		l.add("cb p%d %v", p.Number(), rowKeys(rows))
		if p.Number() == 1 {
			if err := f.StartFetchingNextPage(); err != nil {
				l.add("start: %v", err)
			}
			panic("after starting page 2")
		}
	})
	f.AddErrback(l.eb("eb"))
	g.release(0) // page 1's callbacks run here, in this goroutine
	// Until page 2 arrives, Result reports the panic, as Python's result() raises it.
	var pe *callbacks.PanicError
	if _, err := f.Result(); !errors.As(err, &pe) || pe.Value != "after starting page 2" {
		t.Fatalf("Result while page 2 is in flight = %v; want the re-routed panic", err)
	}
	g.release(1)
	rs, err := f.Result()
	if err != nil {
		t.Fatalf("Result after page 2 arrived: %v; want page 2", err)
	}
	if got := strings.Join(rowKeys(rs.CurrentRows()), " "); got != "2 3" {
		t.Fatalf("Result rows = %s; want page 2", got)
	}
	diff(t, []string{"cb p1 [0 1]", "eb: callbacks: callback #0 panicked: after starting page 2", "cb p2 [2 3]"}, l.take())
}

// TestAccessorsDoNotRunCallbacks: Result, HasMorePages and the other accessors never run the
// callbacks of a page, even when they are the first to see that its request has completed: in
// the Python driver, result() only waits for the event and the callbacks run on the event-loop
// thread. A caller commonly holds a lock that its callbacks take (a callback appending rows, the
// caller reading them after Result); before the fix, whenever the caller noticed the
// completion before the completing goroutine (a few percent of requests against Cassandra),
// Result ran the callbacks in the caller's goroutine, under the caller's lock: with sync.Mutex,
// a deadlock.
func TestAccessorsDoNotRunCallbacks(t *testing.T) {
	sess, ks := realSession(t, 2)
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0").WithPageSize(1)
	for _, tc := range []struct {
		name string
		call func(f *future.ResponseFuture) error
	}{
		{"Result", func(f *future.ResponseFuture) error { _, err := f.Result(); return err }},
		{"HasMorePages", func(f *future.ResponseFuture) error { f.HasMorePages(); return nil }},
		{"PagingState", func(f *future.ResponseFuture) error { f.PagingState(); return nil }},
		{"Warnings", func(f *future.ResponseFuture) error { _, err := f.Warnings(); return err }},
		{"CustomPayload", func(f *future.ResponseFuture) error { _, err := f.CustomPayload(); return err }},
		{"TraceID", func(f *future.ResponseFuture) error { _, err := f.TraceID(); return err }},
		{"IsSchemaAgreed", func(f *future.ResponseFuture) error { f.IsSchemaAgreed(); return nil }},
		{"StartFetchingNextPage", func(f *future.ResponseFuture) error { return f.StartFetchingNextPage() }},
		{"AddErrback", func(f *future.ResponseFuture) error { f.AddErrback(func(error) {}); return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedRequester(future.NewRequester(sess, stmt))
			f := future.Start(context.Background(), g, future.Options{})
			var (
				mu sync.Mutex // the application's lock, held around the call
				l  log
			)
			f.AddCallback(func(p future.Page) {
				if !mu.TryLock() {
					l.add("p%d: callback ran under the caller's lock", p.Number())
					return
				}
				mu.Unlock()
				l.add("p%d: callback", p.Number())
			})
			first := g.get(0)
			first.closeDone() // the response is there; the completing goroutine has not run yet
			mu.Lock()
			err := tc.call(f)
			mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			first.runHooks() // the completing goroutine delivers the callbacks
			waitFor(t, &l, 1)
			diff(t, []string{"p1: callback"}, l.take())
			if tc.name == "StartFetchingNextPage" {
				g.release(1)
				waitFor(t, &l, 1)
				diff(t, []string{"p2: callback"}, l.take())
			}
		})
	}
}

// TestAddCallbackConcurrentWithStartFetchingNextPage: a callback added while another goroutine
// starts the next page is delivered by that page's completing goroutine. AddCallback used to
// look for a watcher only before adding the callback: when the next page was started in
// between (and so saw no callback to watch for), nobody watched it, its callbacks never ran
// unless Result ran them in the caller's goroutine.
func TestAddCallbackConcurrentWithStartFetchingNextPage(t *testing.T) {
	sess, ks := realSession(t, 2)
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0").WithPageSize(1)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	f := future.Start(context.Background(), g, future.Options{})
	first := g.get(0)
	gate := make(chan struct{})
	first.mu.Lock()
	first.gate, first.entered = gate, make(chan struct{})
	first.mu.Unlock()
	var (
		mu sync.Mutex // the application's lock, held around Result
		l  log
	)
	added := make(chan struct{})
	go func() {
		defer close(added)
		// Watches page 1 (held in OnDone by the gate), then adds the callback.
		f.AddCallback(func(p future.Page) {
			if !mu.TryLock() {
				l.add("p%d: callback ran under the caller's lock", p.Number())
				return
			}
			mu.Unlock()
			l.add("p%d: callback", p.Number())
		})
	}()
	<-first.entered
	first.release() // page 1 is there
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err) // no callback registered yet: page 2 is started without a watcher
	}
	close(gate)
	<-added
	g.release(1) // page 2's completing goroutine delivers the callback
	mu.Lock()
	_, err := f.Result()
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	diff(t, []string{"p2: callback"}, l.take())
}
