package gocql

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNextPageFailure(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 4)
	iter := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).Prefetch(0).Iter()
	var c int
	for i := 0; i < 2; i++ {
		if !iter.Scan(&c) {
			t.Fatal(iter.Close())
		}
	}
	if !iter.WillSwitchPage() {
		t.Fatal("WillSwitchPage = false at the end of the first page")
	}
	// The table disappears between the pages: the next-page fetch fails.
	if err := s.Query("DROP TABLE kv").Exec(); err != nil {
		t.Fatal(err)
	}
	if iter.Scan(&c) {
		t.Fatal("Scan succeeded after the next page failed")
	}
	var re RequestError
	// The server forgets the statements prepared on a dropped table: the error is the
	// UNPREPARED or INVALID request error, typed either way.
	if err := iter.Close(); !errors.As(err, &re) || (re.Code() != ErrCodeInvalid && re.Code() != ErrCodeUnprepared) {
		t.Fatalf("Close = %T %v, want the server's error", err, err)
	}
	if len(iter.Columns()) != 0 || iter.NumRows() != 0 || len(iter.PageState()) != 0 || iter.WillSwitchPage() {
		t.Fatalf("after a failed page: columns %v rows %d state %q willSwitch %v", iter.Columns(), iter.NumRows(), iter.PageState(), iter.WillSwitchPage())
	}
	if iter.Host() == nil {
		t.Fatal("Host() is nil: it should be the host that failed")
	}
}

func TestWarningsColumnsAndTracing(t *testing.T) {
	s, ks := newTestSession(t, kvTable)
	insertRows(t, s, 2)
	iter := s.Query("SELECT count(*) FROM kv").Iter()
	var n int64
	if !iter.Scan(&n) || n != 2 {
		t.Fatalf("count = %d, %v", n, iter.Close())
	}
	if w := iter.Warnings(); len(w) == 0 || !strings.Contains(strings.Join(w, " "), "Aggregation query used without partition key") {
		t.Fatalf("Warnings = %q", w)
	}
	iter.Close()

	iter = s.Query("SELECT c, v FROM kv WHERE p = 1").Iter()
	cols := iter.Columns()
	if len(cols) != 2 || cols[0].Name != "c" || cols[0].Keyspace != ks || cols[0].Table != "kv" ||
		cols[0].TypeInfo.Type() != TypeInt || cols[1].TypeInfo.Type() != TypeVarchar {
		t.Fatalf("Columns = %v", cols)
	}
	iter.Close()

	var ids [][]byte
	tracer := tracerFunc(func(id []byte) { ids = append(ids, id) })
	if err := s.Query("SELECT c FROM kv WHERE p = 1").Trace(tracer).Exec(); err != nil {
		t.Fatal(err)
	}
	// Two ids: the statement is prepared first, and the PREPARE is traced too (gocql v1.7.0).
	if len(ids) != 2 || len(ids[0]) != 16 || len(ids[1]) != 16 {
		t.Fatalf("tracer got %d ids (%x), want 2 (PREPARE, EXECUTE)", len(ids), ids)
	}
	var buf bytes.Buffer
	NewTraceWriter(s, &buf).Trace(ids[0])
	if !strings.HasPrefix(buf.String(), "Tracing session ") {
		t.Fatalf("trace writer wrote %q", buf.String())
	}
}

type tracerFunc func([]byte)

func (f tracerFunc) Trace(id []byte) { f(id) }

func TestDowngradingConsistencyRetry(t *testing.T) {
	s, ks := newTestSession(t)
	rks, _ := unavailableKeyspace(t, s, ks)
	obs := &countingObserver{}
	q := s.Query("INSERT INTO "+rks+".t (id) VALUES (?)", 1).Consistency(All).Observer(obs).
		RetryPolicy(&DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []Consistency{Quorum, One}})
	if err := q.Exec(); err != nil {
		t.Fatalf("Exec with downgrading: %v", err)
	}
	got := obs.all()
	if len(got) != 3 || q.GetConsistency() != One {
		t.Fatalf("%d attempts, final consistency %v; want 3 attempts (ALL, QUORUM, ONE) and the query left at ONE", len(got), q.GetConsistency())
	}
	var ue *RequestErrUnavailable
	if !errors.As(got[0].Err, &ue) || ue.Consistency != All || got[2].Err != nil {
		t.Fatalf("attempt errors: %v, %v, %v", got[0].Err, got[1].Err, got[2].Err)
	}
}

func TestSpeculativeExecutionOnOneHost(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 3)
	sp := &SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: time.Nanosecond}
	zero := &SimpleSpeculativeExecution{NumAttempts: 1} // a zero delay panics in gocql
	if err := s.Query("SELECT c FROM kv WHERE p = 1").Idempotent(true).SetSpeculativeExecutionPolicy(zero).Exec(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		var c int
		err := s.Query("SELECT c FROM kv WHERE p = 1 AND c = 2").Idempotent(true).SetSpeculativeExecutionPolicy(sp).Scan(&c)
		if err != nil || c != 2 {
			t.Fatalf("run %d: %d, %v (a speculative execution with no host left must not win)", i, c, err)
		}
	}
}

func TestExponentialBackoffStopsWithTheContext(t *testing.T) {
	s := offlineSession()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := s.Query("SELECT 1").WithContext(ctx)
	p := &ExponentialBackoffRetryPolicy{NumRetries: 3, Min: time.Hour, Max: time.Hour}
	if p.Attempt(q) {
		t.Fatal("Attempt returned true with a cancelled context")
	}
}

// TestIterScanDoesNotAllocateItsArguments checks that Iter.Scan and Scanner.Scan keep the
// caller's variadic destination slice off the heap (Query.Scan and ScanCAS scan through
// Iter.Scan): scanning int columns then allocates nothing, and a text column only its string
// (an allocation per row would be 1,000 per 1,000-row read, half of a paged read's).
func TestIterScanDoesNotAllocateItsArguments(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	const rows = 300
	for i := range rows {
		if err := s.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 1, i, "a text value").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var c, p int
	var v string
	// One page holds every row, so no scan fetches or prefetches a page.
	iter := s.Query("SELECT c, p, v FROM kv WHERE p = 1").PageSize(2 * rows).Iter()
	if allocs := testing.AllocsPerRun(100, func() {
		if !iter.Scan(&c, &p, nil) {
			t.Fatal(iter.Close())
		}
	}); allocs != 0 {
		t.Errorf("Iter.Scan of two int columns: %v allocations per row, want 0", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		if !iter.Scan(&c, &p, &v) {
			t.Fatal(iter.Close())
		}
	}); allocs != 1 {
		t.Errorf("Iter.Scan of two int columns and a text: %v allocations per row, want 1 (the string)", allocs)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	sc := s.Query("SELECT c, p FROM kv WHERE p = 1").PageSize(2 * rows).Iter().Scanner()
	if allocs := testing.AllocsPerRun(100, func() {
		if !sc.Next() {
			t.Fatal(sc.Err())
		}
		if err := sc.Scan(&c, &p); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("Scanner.Scan of two int columns: %v allocations per row, want 0", allocs)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
