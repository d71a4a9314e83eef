package future_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// recordingRequester answers every page at once (a page with a paging state, then the last
// page) and records the timeout each page's request was given.
type recordingRequester struct {
	timeouts []time.Duration
}

func (r *recordingRequester) Request(_ context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	r.timeouts = append(r.timeouts, timeout)
	p := &fakePending{done: make(chan struct{})}
	if pagingState == nil {
		p.finish(fakePage{rows: []int{1}, next: "p2"}, nil)
	} else {
		p.finish(fakePage{rows: []int{2}}, nil)
	}
	return p
}

// Legacy semantics A1: execute_async sends the request in the caller's thread before it
// returns; nothing else (a callback, result()) has to happen for it to go out. The future
// sends the first page's request inside Start / ExecuteAsync: a write whose future nobody
// looks at again is still made.
func TestFirstRequestSentBeforeReturn(t *testing.T) {
	var r recordingRequester
	f := future.Start(context.Background(), &r, future.Options{})
	if len(r.timeouts) != 1 { // unsynchronised: a request made from another goroutine is a data race
		t.Fatalf("%d requests made when Start returned, want the first page's", len(r.timeouts))
	}
	if _, err := f.Result(); err != nil || len(r.timeouts) != 1 {
		t.Fatalf("Result: %v, %d requests; want the first page's only", err, len(r.timeouts))
	}

	c := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		"CREATE KEYSPACE fs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE fs.t (k int PRIMARY KEY, v int)",
	} {
		if _, err := s.Execute(ctx, native.Query(q)); err != nil {
			t.Fatal(err)
		}
	}
	_ = future.ExecuteAsync(ctx, s, native.Query("INSERT INTO fs.t (k, v) VALUES (1, 10)"), future.Options{})
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := s.Execute(ctx, native.Query("SELECT v FROM fs.t WHERE k = 1"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Len() == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the INSERT of a future nobody looked at was never made")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Legacy semantics A3: the default client timeout is 10 s (the Python driver's
// request_timeout), and timeout=None (NoTimeout) means no timer at all; both replace the
// session's own native.Config.Timeout, and apply to every page (deviation F6: Python arms a
// timer for the first page only).
func TestDefaultTimeoutAndNoTimeout(t *testing.T) {
	for _, tc := range []struct {
		opts  time.Duration
		check func(time.Duration) bool
		want  string
	}{
		{0, func(d time.Duration) bool { return d == 10*time.Second }, "10s"},
		{future.NoTimeout, func(d time.Duration) bool { return d <= 0 }, "no timer (<= 0)"},
	} {
		var r recordingRequester
		f := future.Start(context.Background(), &r, future.Options{Timeout: tc.opts})
		if err := f.StartFetchingNextPage(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Result(); err != nil {
			t.Fatal(err)
		}
		if len(r.timeouts) != 2 || !tc.check(r.timeouts[0]) || !tc.check(r.timeouts[1]) {
			t.Errorf("Options.Timeout %v: the pages' requests got timeouts %v; want %s for both", tc.opts, r.timeouts, tc.want)
		}
	}

	// Through ExecuteAsync: a node 300 ms slow, a session whose own timeout is 50 ms.
	c := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs(), Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := c.SetNodeDelay(0, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	q := native.Query("SELECT release_version FROM system.local")
	if _, err := future.ExecuteAsync(ctx, s, q, future.Options{}).Result(); err != nil {
		t.Errorf("default Options: %v; want the row (the 10 s default, not the session's 50 ms)", err)
	}
	if _, err := future.ExecuteAsync(ctx, s, q, future.Options{Timeout: future.NoTimeout}).Result(); err != nil {
		t.Errorf("NoTimeout: %v; want the row (no timer, not the session's 50 ms)", err)
	}
	var te *future.TimeoutError
	if _, err := future.ExecuteAsync(ctx, s, q, future.Options{Timeout: 100 * time.Millisecond}).Result(); !errors.As(err, &te) {
		t.Errorf("Options.Timeout 100 ms on a node 300 ms slow: %v; want a *future.TimeoutError", err)
	}
}
