package gocql

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/future"
)

func TestIterAsyncCallbacksPerPage(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 5)
	obs := &countingObserver{}
	f := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).Observer(obs).IterAsync()

	var mu sync.Mutex
	var pages [][]int
	done := make(chan error, 1)
	f.AddCallbacks(func(p future.Page) {
		rows, err := p.Rows()
		if err != nil {
			done <- err
			return
		}
		var cs []int
		for _, r := range rows {
			v, _ := r.Index(0)
			c, ok := v.(int32) // the future decodes with the native core's Go types
			if !ok {
				done <- errors.New("unexpected value type")
				return
			}
			cs = append(cs, int(c))
		}
		mu.Lock()
		pages = append(pages, cs)
		mu.Unlock()
		if f.HasMorePages() {
			if err := f.StartFetchingNextPage(); err != nil {
				done <- err
			}
			return
		}
		done <- nil
	}, func(err error) { done <- err })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pages) != 3 || len(pages[0]) != 2 || pages[2][0] != 5 {
		t.Fatalf("pages = %v, want [[1 2] [3 4] [5]]", pages)
	}
	if n := len(obs.all()); n != 3 {
		t.Fatalf("observer saw %d attempts, want one per page", n)
	}
}

func TestAsyncErrorsAndBatches(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	_, err := s.Query("SELEKT 1").ExecAsync().Result()
	var re RequestError
	if !errors.As(err, &re) || re.Code() != ErrCodeSyntax {
		t.Fatalf("async syntax error: %T %v", err, err)
	}
	b := s.NewBatch(UnloggedBatch)
	b.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 7, 1, "x")
	b.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 7, 2, "y")
	if _, err := s.ExecuteBatchAsync(b).Result(); err != nil {
		t.Fatalf("ExecuteBatchAsync: %v", err)
	}
	rs, err := s.Query("SELECT c FROM kv WHERE p = 7").IterAsync().Result()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rs.All()
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows after async batch: %v, %v", rows, err)
	}
	var nilQuery *Query
	if _, err := nilQuery.ExecAsync().Result(); err == nil {
		t.Fatal("ExecAsync on a nil query returned no error")
	}
}

// A USE statement run asynchronously fails with ErrUseStmt, as Query.Iter and Query.Exec do,
// and is not sent: the session keeps its keyspace.
func TestAsyncUseStatement(t *testing.T) {
	s, ks := newTestSession(t, kvTable)
	insertRows(t, s, 1)
	for name, run := range map[string]func(*Query) (*future.ResultSet, error){
		"IterAsync": func(q *Query) (*future.ResultSet, error) { return q.IterAsync().Result() },
		"ExecAsync": func(q *Query) (*future.ResultSet, error) { return q.ExecAsync().Result() },
	} {
		obs := &countingObserver{}
		if _, err := run(s.Query("USE system").Observer(obs)); !errors.Is(err, ErrUseStmt) {
			t.Errorf("%s of USE: %v, want ErrUseStmt", name, err)
		}
		if n := len(obs.all()); n != 0 {
			t.Errorf("%s of USE ran %d attempts, want none", name, n)
		}
		if got := s.native.Keyspace(); got != ks {
			t.Fatalf("after %s of USE the session keyspace is %q, want %q", name, got, ks)
		}
		var c int
		if err := s.Query("SELECT c FROM kv WHERE p = 1").Scan(&c); err != nil || c != 1 {
			t.Fatalf("after %s of USE: %d %v", name, c, err)
		}
	}
}

// The future works on a snapshot of the query taken by IterAsync, as Iter does for its later
// pages: releasing or changing the query afterwards does not affect the pages still to come.
func TestIterAsyncSnapshotsTheQuery(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 6)
	for _, p := range []int{2, 3} {
		if err := s.Query("INSERT INTO kv (p, c, v) VALUES (?, 1, 'other')", p).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	count := func(rs *future.ResultSet) (int, error) {
		rows, err := rs.All()
		return len(rows), err
	}

	q := s.Query("SELECT c, v FROM kv WHERE p = 1").PageSize(4)
	rs, err := q.IterAsync().Result()
	if err != nil {
		t.Fatal(err)
	}
	q.Release()
	if n, err := count(rs); n != 6 || err != nil {
		t.Errorf("rows after Release = %d, %v; want 6, nil", n, err)
	}

	q = s.Query("SELECT c, v FROM kv WHERE p = ?", 1).PageSize(4)
	rs, err = q.IterAsync().Result()
	if err != nil {
		t.Fatal(err)
	}
	q.Bind(2).PageSize(1)
	if n, err := count(rs); n != 6 || err != nil {
		t.Errorf("rows after Bind = %d, %v; want 6, nil", n, err)
	}

	q = s.Query("SELECT c, v FROM kv WHERE p = ?", 3)
	f := q.IterAsync()
	q.Release()
	rs, err = f.Result()
	if err != nil {
		t.Fatalf("query released before its first page: %v", err)
	}
	if n, err := count(rs); n != 1 || err != nil {
		t.Errorf("rows of a query released before its first page = %d, %v; want 1, nil", n, err)
	}

	q = s.Query("SELECT c, v FROM kv WHERE p = 1")
	q.Release()
	if _, err := q.IterAsync().Result(); err == nil || err.Error() != "gocql: query used after Release" {
		t.Errorf("IterAsync after Release: %v", err)
	}
}

// Asynchronous executions run on kept goroutines: executions one at a time leave a worker or two
// idle, not one per execution, and Close ends the idle ones. After Close an execution still
// completes, with ErrSessionClosed.
func TestAsyncExecutionsReuseGoroutines(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 1)
	for i := range 200 {
		if _, err := s.Query("SELECT c FROM kv WHERE p = 1").IterAsync().Result(); err != nil {
			t.Fatalf("execution %d: %v", i, err)
		}
	}
	// The last worker parks right after completing its execution: give it a moment.
	for deadline := time.Now().Add(5 * time.Second); s.async.Idle() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := s.async.Idle(); n < 1 || n > 4 {
		t.Errorf("%d idle goroutines after 200 executions one at a time, want 1 to 4", n)
	}
	s.Close()
	if n := s.async.Idle(); n != 0 {
		t.Errorf("%d idle goroutines after Close", n)
	}
	if _, err := s.Query("SELECT c FROM kv WHERE p = 1").IterAsync().Result(); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("IterAsync after Close: %v, want ErrSessionClosed", err)
	}
}
