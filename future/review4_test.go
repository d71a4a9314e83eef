package future_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// simPaged starts a cqlsim node holding n rows in partition 0 of rv.t (p, k, v) and returns a
// session on it with the statement that reads them pageSize rows at a time; all of it is
// closed at cleanup.
func simPaged(t *testing.T, n, pageSize int) (*cqlsim.Cluster, *native.Session, native.Statement) {
	t.Helper()
	c := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, cql := range []string{
		"CREATE KEYSPACE rv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE rv.t (p int, k int, v text, PRIMARY KEY (p, k))",
	} {
		if _, err := s.Execute(ctx, native.Query(cql)); err != nil {
			t.Fatal(err)
		}
	}
	for k := range n {
		if _, err := s.Execute(ctx, native.Query(fmt.Sprintf("INSERT INTO rv.t (p, k, v) VALUES (0, %d, 'v%d')", k, k))); err != nil {
			t.Fatal(err)
		}
	}
	return c, s, native.Query("SELECT k, v FROM rv.t WHERE p = 0").WithPageSize(pageSize)
}

// A callback added after page 1 completed runs at once, in the adder's goroutine (A7); when it
// starts page 2 there (the documented async-paging pattern, with the callback added after a
// fast first response), page 2 must wait for it to return, as every page waits for the
// previous page's callbacks: a callback sees the pages one at a time, in order. Page 2 was
// dispatched at once by its completing goroutine, so the callback ran for page 2 while it was
// still running for page 1 (out of order, and concurrently: a data race in callback code that
// relies on the documented one-page-at-a-time delivery).
func TestLateCallbackStartingNextPageSeesPagesInOrder(t *testing.T) {
	_, sess, stmt := simPaged(t, 4, 2)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	f := future.Start(context.Background(), g, future.Options{})
	g.release(0)
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	var l log
	started, proceed, added := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(added)
		f.AddCallback(func(p future.Page) {
			l.add("start p%d", p.Number())
			if p.Number() == 1 {
				if err := f.StartFetchingNextPage(); err != nil {
					l.add("start fetching: %v", err)
				}
				close(started)
				<-proceed // still busy with page 1 when page 2 arrives
			}
			l.add("end p%d", p.Number())
		})
	}()
	<-started
	g.release(1) // page 2 arrives, completed in this goroutine
	close(proceed)
	<-added
	waitFor(t, &l, 4)
	diff(t, []string{"start p1", "end p1", "start p2", "end p2"}, l.take())
}

// A callback added after page 1 completed, while page 1's callbacks still run in the goroutine
// that completed it, runs at once for page 1 in the adder's goroutine; page 2, started by an
// earlier callback and arriving meanwhile, must not be dispatched (with the new callback among
// its functions) until that call has returned. It was: the new callback ran for page 2 in
// page 2's completing goroutine while its call for page 1 was still running in the adder's.
func TestLateCallbackWhileDispatchingSeesPagesInOrder(t *testing.T) {
	_, sess, stmt := simPaged(t, 4, 2)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	f := future.Start(context.Background(), g, future.Options{})
	var l log
	cb1Busy, cb1Go := make(chan struct{}), make(chan struct{})
	f.AddCallback(func(p future.Page) {
		l.add("cb1 start p%d", p.Number())
		if p.Number() == 1 {
			close(cb1Busy)
			<-cb1Go
			if err := f.StartFetchingNextPage(); err != nil {
				l.add("start fetching: %v", err)
			}
		}
		l.add("cb1 end p%d", p.Number())
	})
	page1Done := make(chan struct{})
	go func() {
		defer close(page1Done)
		g.release(0) // page 1's callbacks run in this goroutine
	}()
	<-cb1Busy
	cb2Busy, cb2Go, added := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(added)
		f.AddCallback(func(p future.Page) { // page 1 has succeeded: runs now, here
			l.add("cb2 start p%d", p.Number())
			if p.Number() == 1 {
				close(cb2Busy)
				<-cb2Go
			}
			l.add("cb2 end p%d", p.Number())
		})
	}()
	<-cb2Busy
	close(cb1Go) // cb1 starts page 2 and returns
	<-page1Done  // the goroutine that ran page 1's callbacks is done with them
	g.release(1) // page 2 arrives, completed in this goroutine, while cb2 runs for page 1
	close(cb2Go)
	<-added
	waitFor(t, &l, 8)
	diff(t, []string{
		"cb1 start p1", "cb2 start p1", "cb1 end p1", "cb2 end p1",
		"cb1 start p2", "cb1 end p2", "cb2 start p2", "cb2 end p2",
	}, l.take())
}

// panickingRequester runs its requests through inner, but for the request number panicAt
// (1-based), which panics: a Requester with a bug.
type panickingRequester struct {
	inner   future.Requester
	panicAt int
	n       int
}

func (r *panickingRequester) Request(ctx context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	r.n++
	if r.n == r.panicAt {
		panic(errors.New("requester bug"))
	}
	return r.inner.Request(ctx, pagingState, timeout)
}

// A Requester that panics in StartFetchingNextPage left the future's mutex locked: the panic
// went up through StartFetchingNextPage (often recovered by the callback dispatch, which
// reports it and goes on), and every later call on the future (Result, HasMorePages, the
// dispatch of any page) blocked for ever. The page now fails with an error that names the
// Requester and wraps the panic, as a nil Pending does, and the future goes on working.
func TestRequesterPanicFailsThePage(t *testing.T) {
	_, sess, stmt := simPaged(t, 4, 2)
	f := future.Start(context.Background(), &panickingRequester{inner: future.NewRequester(sess, stmt), panicAt: 2}, future.Options{})
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	f.AddErrback(func(err error) { errc <- err })
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("StartFetchingNextPage panicked (%v): the future is left locked", r)
			}
		}()
		if err := f.StartFetchingNextPage(); err != nil {
			t.Fatal(err)
		}
	}()
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "panickingRequester") || err.Error() == "requester bug" || !strings.Contains(err.Error(), "requester bug") {
		t.Fatalf("errback got %v, want an error naming the Requester and its panic", err)
	}
	if _, rerr := f.Result(); rerr != err {
		t.Fatalf("Result() = %v, want the errback's error %v", rerr, err)
	}
	// The failed page can be requested again, and this time the Requester answers.
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rowKeys(rs.CurrentRows()), " "); got != "2 3" {
		t.Fatalf("page 2 after the retry = %s, want 2 3", got)
	}
}

// panickingResponsePending is a Pending whose Response panics: a Requester with a bug.
type panickingResponsePending struct{ future.Pending }

func (panickingResponsePending) Response() (future.Response, error) { panic("pending bug") }

// panickingResponses runs its requests through inner; the Pending of request number panicAt
// (1-based) panics in Response.
type panickingResponses struct {
	inner   future.Requester
	panicAt int
	n       int
}

func (r *panickingResponses) Request(ctx context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	r.n++
	p := r.inner.Request(ctx, pagingState, timeout)
	if r.n == r.panicAt {
		return panickingResponsePending{p}
	}
	return p
}

// A Pending whose Response panics went up through whoever settled the page (Result here; the
// watcher, a goroutine of the session, when callbacks are registered: the program ended) with
// the future's mutex locked, so every later call on the future blocked for ever. The page now
// fails with an error saying so, as for a Requester that panics.
func TestPendingPanicFailsThePage(t *testing.T) {
	_, sess, stmt := simPaged(t, 4, 2)
	f := future.Start(context.Background(), &panickingResponses{inner: future.NewRequester(sess, stmt), panicAt: 2}, future.Options{})
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Result panicked (%v): the future is left locked", r)
			}
		}()
		_, err = f.Result()
	}()
	if err == nil || !strings.Contains(err.Error(), "panickingResponsePending") || !strings.Contains(err.Error(), "pending bug") {
		t.Fatalf("Result() = %v, want an error naming the Pending and its panic", err)
	}
	var got error
	f.AddErrback(func(e error) { got = e })
	if got != err {
		t.Fatalf("errback added after the failure got %v, want %v", got, err)
	}
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rowKeys(rs.CurrentRows()), " "); got != "2 3" {
		t.Fatalf("page 2 after the retry = %s, want 2 3", got)
	}
}

// The tracing session ids a future hands out are the caller's, as its paging states are:
// TraceID and TraceIDs returned the future's own slices, so a caller that changed the id it
// was given (reusing the buffer, say) changed the future's record, and TraceID, TraceIDs and
// QueryTrace went on with the caller's bytes.
func TestTraceIDIsACopy(t *testing.T) {
	s := userSession(t)
	ctx := context.Background()
	f := future.ExecuteAsync(ctx, s, native.Query("SELECT key FROM system.local").WithTracing(true), future.Options{})
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	id, err := f.TraceID()
	if err != nil || len(id) != 16 {
		t.Fatalf("TraceID() = %x, %v, want a 16-byte id", id, err)
	}
	want := string(id)
	id[0] ^= 0xff
	f.TraceIDs()[0][1] ^= 0xff
	if got, _ := f.TraceID(); string(got) != want {
		t.Errorf("TraceID() after changing the ids handed out = %x, want %x", got, want)
	}
	if got := f.TraceIDs(); len(got) != 1 || string(got[0]) != want {
		t.Errorf("TraceIDs() after changing the ids handed out = %x, want [%x]", got, want)
	}
}

// A page settled by Result before its watcher ran is still dispatched by that watcher while a
// callback added late runs at once for the same page: only the pages after it wait for that
// call. A late callback that waits for an earlier callback's work on the same page (which the
// Python driver runs on its event-loop thread meanwhile) waited for ever: the late call held
// back the page's own dispatch.
func TestLateCallbackDoesNotHoldBackItsOwnPage(t *testing.T) {
	_, sess, stmt := simPaged(t, 4, 2)
	g := newGatedRequester(future.NewRequester(sess, stmt))
	f := future.Start(context.Background(), g, future.Options{})
	var l log
	cb1Ran := make(chan struct{})
	f.AddCallback(func(p future.Page) {
		l.add("cb1 p%d", p.Number())
		close(cb1Ran)
	}) // page 1 is watched
	first := g.get(0)
	first.closeDone()                     // page 1 is there; its watcher has not run yet
	if _, err := f.Result(); err != nil { // settles page 1, leaving its dispatch to the watcher
		t.Fatal(err)
	}
	added, cb2Started := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(added)
		f.AddCallback(func(p future.Page) { // page 1 has succeeded: runs now, here
			close(cb2Started)
			<-cb1Ran // waits for cb1's work on page 1
			l.add("cb2 p%d", p.Number())
		})
	}()
	<-cb2Started
	first.runHooks() // the watcher dispatches page 1 (cb1)
	waitFor(t, &l, 2)
	<-added
	diff(t, []string{"cb1 p1", "cb2 p1"}, l.take())
}
