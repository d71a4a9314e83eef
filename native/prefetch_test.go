package native_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// With WithPrefetch, Session.Iter (Result.All) requests each next page as soon as the page
// before it has arrived: by the first row of a page, the next page's request has been made.
// Without it, nothing is requested before the page's rows are used up. Both read every row,
// in order; a loop stopped early with a page requested ahead ends cleanly.
func TestPrefetchRequestsTheNextPageAhead(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE pf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE pf.t (k int, c int, PRIMARY KEY (k, c))")
	for c := range 10 {
		mustExec(t, s, "INSERT INTO pf.t (k, c) VALUES (1, ?)", int32(c))
	}
	var want []int32
	for c := range 10 {
		want = append(want, int32(c))
	}
	run := func(prefetch bool) (rows []int32, requestsAtFirstRow []int32) {
		var requests atomic.Int32
		seen := make(chan struct{}, 16)
		st := native.Query("SELECT c FROM pf.t WHERE k = 1").WithPageSize(3).WithPrefetch(prefetch).
			WithObserver(func(context.Context, native.Attempt) {
				requests.Add(1)
				seen <- struct{}{}
			})
		for row, err := range s.Iter(ctxT(t), st) {
			if err != nil {
				t.Fatal(err)
			}
			var c int32
			if err := row.Scan(&c); err != nil {
				t.Fatal(err)
			}
			if len(rows)%3 == 0 { // the first row of a page
				for prefetch && len(rows) < 9 && requests.Load() < int32(len(rows)/3+2) {
					// Wait for the next page's attempt: it was requested ahead.
					select {
					case <-seen:
					case <-time.After(10 * time.Second):
						t.Fatalf("at row %d: the next page was not requested ahead", len(rows))
					}
				}
				requestsAtFirstRow = append(requestsAtFirstRow, requests.Load())
			}
			rows = append(rows, c)
		}
		return rows, requestsAtFirstRow
	}
	rows, at := run(false)
	if !slices.Equal(rows, want) || !slices.Equal(at, []int32{1, 2, 3, 4}) {
		t.Errorf("without prefetch: rows %v, requests made by each page's first row %v; want %v and [1 2 3 4]", rows, at, want)
	}
	rows, at = run(true)
	if !slices.Equal(rows, want) || !slices.Equal(at[:3], []int32{2, 3, 4}) {
		t.Errorf("with prefetch: rows %v, requests made by each page's first row %v; want %v and [2 3 4 ...]", rows, at, want)
	}

	// Stopping early with a page requested ahead: nothing hangs, the session goes on.
	n := 0
	for _, err := range s.Iter(ctxT(t), native.Query("SELECT c FROM pf.t WHERE k = 1").WithPageSize(3).WithPrefetch(true)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	mustExec(t, s, "SELECT c FROM pf.t WHERE k = 1")
}
