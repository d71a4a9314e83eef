package future_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// userSession starts a cqlsim node and connects a native session to it, both closed at cleanup.
func userSession(t *testing.T) *native.Session {
	t.Helper()
	c := cqlsim.StartT(t, cqlsim.Options{})
	s, err := native.Connect(context.Background(), native.Config{Hosts: c.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A traced request that fails still has a trace: the server sends its tracing session id with
// the error (Cassandra does, cqlsim too), and the Python driver's ResponseFuture records the
// trace id of every response, errors included, so get_query_trace_ids and get_query_trace
// after a failed traced execute_async return it. The future dropped it: TraceIDs was empty and
// QueryTrace returned nil, nil, as if nothing had been traced.
func TestFailedTracedPageKeepsTraceID(t *testing.T) {
	s := userSession(t)
	ctx := context.Background()
	f := future.ExecuteAsync(ctx, s, native.Query("SELECT nope FROM system.local").WithTracing(true), future.Options{})
	errc := make(chan error, 1)
	f.AddErrback(func(err error) { errc <- err })
	err := <-errc
	var re *native.RequestError
	if !errors.As(err, &re) || !re.Traced {
		t.Fatalf("errback got %v, want a server error with a tracing id", err)
	}
	ids := f.TraceIDs()
	if len(ids) != 1 || !bytes.Equal(ids[0], re.TraceID[:]) {
		t.Fatalf("TraceIDs() = %x, want [%x], the id the server sent with the error", ids, re.TraceID)
	}
	id, err := f.TraceID()
	if err != nil || !bytes.Equal(id, re.TraceID[:]) {
		t.Fatalf("TraceID() = %x, %v, want %x", id, err, re.TraceID)
	}
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tr, err := f.QueryTrace(tctx)
	if err != nil || tr == nil {
		t.Fatalf("QueryTrace() = %v, %v, want the failed request's trace", tr, err)
	}
	if tr.Request == "" || !bytes.Equal(tr.TraceID, re.TraceID[:]) {
		t.Fatalf("QueryTrace() = %+v, want the session of %x", tr, re.TraceID)
	}
}

// StartFetchingNextPage called right after ExecuteAsync, before the first page is known,
// fails with ErrQueryExhausted, as the Python driver's does; the message said "there are no
// more pages (page 1)", which reads as if the query had been exhausted, not as a call made
// too early. It now says that page 1 is in flight.
func TestStartFetchingNextPageBeforeFirstPageSaysSo(t *testing.T) {
	src := &fakeSource{pages: map[string]fakePage{"": {rows: []int{1}, next: "p2", manual: true}, "p2": {rows: []int{2}}}}
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{})
	err := f.StartFetchingNextPage()
	if !errors.Is(err, future.ErrQueryExhausted) {
		t.Fatalf("StartFetchingNextPage before the first page: %v, want ErrQueryExhausted", err)
	}
	if !strings.Contains(err.Error(), "in flight") {
		t.Errorf("StartFetchingNextPage before the first page: %q does not say that page 1 is in flight", err)
	}
	src.release()
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatalf("StartFetchingNextPage after the first page: %v", err)
	}
}

// With zero Options.Timeout, a statement's own timeout (WithTimeout) bounds each page of
// ExecuteAsync; a non-zero Options.Timeout replaces it. The default 10 s used to apply to a
// statement with a 50 ms timeout on a node 300 ms slow: it succeeded.
func TestStatementTimeoutUnlessOptionsTimeout(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	s, err := native.Connect(context.Background(), native.Config{Hosts: c.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := c.SetNodeDelay(0, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	plain := native.Query("SELECT release_version FROM system.local")
	if _, err := future.ExecuteAsync(context.Background(), s, plain, future.Options{}).Result(); err != nil {
		t.Fatalf("no timeout anywhere: %v, want the default 10 s timeout to apply", err)
	}
	stmt := plain.WithTimeout(50 * time.Millisecond)
	var te *future.TimeoutError
	if _, err := future.ExecuteAsync(context.Background(), s, stmt, future.Options{}).Result(); !errors.As(err, &te) {
		t.Fatalf("the statement's own 50 ms with zero Options: %v, want a *future.TimeoutError", err)
	}
	_, err = future.ExecuteAsync(context.Background(), s, plain, future.Options{Timeout: 50 * time.Millisecond}).Result()
	if !errors.As(err, &te) {
		t.Fatalf("with Options.Timeout 50 ms: %v, want a *future.TimeoutError", err)
	}
	if _, err := future.ExecuteAsync(context.Background(), s, stmt, future.Options{Timeout: 5 * time.Second}).Result(); err != nil {
		t.Fatalf("Options.Timeout 5 s over the statement's 50 ms: %v, want the row", err)
	}
	if _, err := future.ExecuteAsync(context.Background(), s, plain.WithTimeout(0), future.Options{}).Result(); err != nil {
		t.Fatalf("the statement's WithTimeout(0) (no timer): %v, want the row", err)
	}
}

// nilPendingRequester is a Requester with a bug: it returns a nil Pending.
type nilPendingRequester struct{}

func (nilPendingRequester) Request(context.Context, []byte, time.Duration) future.Pending {
	return nil
}

// A Requester that returns a nil Pending made AddErrback and Result panic with a nil pointer
// dereference inside the future (Start already turns a nil Requester into a failed page). The
// page now fails with an error that names the Requester.
func TestNilPendingFailsThePage(t *testing.T) {
	f := future.Start(context.Background(), nilPendingRequester{}, future.Options{})
	errc := make(chan error, 1)
	f.AddErrback(func(err error) { errc <- err })
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "nil Pending") || !strings.Contains(err.Error(), "nilPendingRequester") {
		t.Fatalf("errback got %v, want an error naming the Requester that returned a nil Pending", err)
	}
	if _, rerr := f.Result(); rerr != err {
		t.Fatalf("Result() = %v, want the errback's error %v", rerr, err)
	}
}
