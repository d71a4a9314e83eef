package future_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// realSession connects to CQL_HOSTS (skipping without it) and creates a keyspace with a table of
// n rows in partition 0; both are dropped and closed at cleanup.
func realSession(tb testing.TB, n int) (*native.Session, string) {
	tb.Helper()
	hosts := cqltest.Hosts(tb)
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: hosts})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sess.Close() })
	ks := cqltest.KeyspaceName(tb)
	exec := func(cql string) {
		tb.Helper()
		if _, err := sess.Execute(ctx, native.Query(cql).WithTimeout(time.Minute)); err != nil {
			tb.Fatalf("%s: %v", cql, err)
		}
	}
	exec("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	tb.Cleanup(func() {
		_, _ = sess.Execute(context.Background(), native.Query("DROP KEYSPACE IF EXISTS "+ks).WithTimeout(time.Minute))
	})
	exec("CREATE TABLE " + ks + ".t (p int, k int, v text, PRIMARY KEY (p, k))")
	for k := range n {
		exec(fmt.Sprintf("INSERT INTO %s.t (p, k, v) VALUES (0, %d, 'v%d')", ks, k, k))
	}
	return sess, ks
}

func TestRealPagingWithCallbacks(t *testing.T) {
	sess, ks := realSession(t, 10)
	ctx := context.Background()
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0").WithPageSize(3)
	f := future.ExecuteAsync(ctx, sess, stmt, future.Options{})
	var (
		mu    sync.Mutex
		got   []int32
		pages []int
		done  = make(chan error, 1)
	)
	f.AddCallbacks(func(p future.Page) {
		rows, err := p.Rows()
		if err != nil {
			done <- err
			return
		}
		mu.Lock()
		pages = append(pages, p.Number())
		for _, r := range rows {
			v, _ := r.Get("k")
			got = append(got, v.(int32))
		}
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
	if fmt.Sprint(got) != "[0 1 2 3 4 5 6 7 8 9]" || fmt.Sprint(pages) != "[1 2 3 4]" {
		t.Fatalf("rows %v on pages %v; want 0..9 on pages 1..4", got, pages)
	}
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if names := rs.ColumnNames(); fmt.Sprint(names) != "[k v]" || rs.ColumnTypes()[1].String() != "text" {
		t.Fatalf("columns %v %v", names, rs.ColumnTypes())
	}
}

func TestRealErrorsAndTimeout(t *testing.T) {
	sess, ks := realSession(t, 1)
	ctx := context.Background()
	_, err := future.ExecuteAsync(ctx, sess, native.Query("SELEC nothing"), future.Options{}).Result()
	var syn *native.SyntaxError
	if !errors.As(err, &syn) {
		t.Fatalf("syntax error: got %v (%T)", err, err)
	}
	_, err = future.ExecuteAsync(ctx, sess, native.Query("SELECT * FROM "+ks+".missing"), future.Options{}).Result()
	var inv *native.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("invalid request: got %v (%T)", err, err)
	}
	var te *future.TimeoutError
	if len(cqltest.HostsFromEnv()) > 0 { // the embedded cqlsim can answer within a nanosecond's timer
		_, err = future.ExecuteAsync(ctx, sess, native.Query("SELECT * FROM "+ks+".t"), future.Options{Timeout: time.Nanosecond}).Result()
		if !errors.As(err, &te) || te.Page != 1 {
			t.Fatalf("1ns timeout: got %v (%T), want *future.TimeoutError", err, err)
		}
	}
	// A cancelled context is the caller's error, not a client timeout.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = future.ExecuteAsync(cctx, sess, native.Query("SELECT * FROM "+ks+".t"), future.Options{}).Result()
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Fatalf("cancelled context: got %v", err)
	}
}

func TestRealTraceAndWarnings(t *testing.T) {
	sess, ks := realSession(t, 3)
	ctx := context.Background()
	f := future.ExecuteAsync(ctx, sess, native.Query("SELECT count(*) FROM "+ks+".t").WithTracing(true), future.Options{})
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	id, err := f.TraceID()
	if err != nil || len(id) != 16 {
		t.Fatalf("TraceID = %x, %v; want 16 bytes", id, err)
	}
	w, err := f.Warnings()
	if err != nil || len(w) == 0 {
		t.Fatalf("Warnings of an aggregate without partition key = %v, %v; want one", w, err)
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tr, err := f.QueryTrace(tctx)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Request == "" || !tr.Coordinator.IsValid() || tr.Duration <= 0 || len(tr.Events) == 0 || tr.Parameters["query"] == "" {
		t.Fatalf("QueryTrace = %+v; want a request, coordinator, duration, parameters and events", tr)
	}
	// An untraced request has no trace (nil, nil), like Python's get_query_trace.
	f2 := future.ExecuteAsync(ctx, sess, native.Query("SELECT k FROM "+ks+".t WHERE p = 0 AND k = 0"), future.Options{})
	if _, err := f2.Result(); err != nil {
		t.Fatal(err)
	}
	if tr, err := f2.QueryTrace(tctx); tr != nil || err != nil {
		t.Fatalf("QueryTrace of an untraced request = %v, %v", tr, err)
	}
}

// Many goroutines add callbacks while real responses arrive: each runs exactly once per page.
func TestRealConcurrentAddWhileResponseArrives(t *testing.T) {
	sess, ks := realSession(t, 4)
	ctx := context.Background()
	stmt := native.Query("SELECT k FROM " + ks + ".t WHERE p = 0").WithPageSize(2)
	for round := range 30 {
		f := future.ExecuteAsync(ctx, sess, stmt, future.Options{})
		const adders, each = 8, 10
		var counts [adders * each]atomic.Int32
		var wg sync.WaitGroup
		for g := range adders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					n := g*each + i
					f.AddCallback(func(future.Page) { counts[n].Add(1) })
				}
			}()
		}
		wg.Wait()
		if _, err := f.Result(); err != nil {
			t.Fatal(err)
		}
		waitCounts := func(want int32) {
			deadline := time.Now().Add(10 * time.Second)
			for n := range counts {
				for counts[n].Load() < want && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if c := counts[n].Load(); c != want {
					t.Fatalf("round %d: callback %d ran %d times, want %d", round, n, c, want)
				}
			}
		}
		waitCounts(1)
		// The second page re-fires every callback exactly once more.
		if err := f.StartFetchingNextPage(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Result(); err != nil {
			t.Fatal(err)
		}
		waitCounts(2)
	}
}

// The cost of a future with one callback over a plain native asynchronous request.
func BenchmarkNativeAsync(b *testing.B) {
	sess, ks := realSession(b, 1)
	ctx := context.Background()
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0 AND k = 0").WithTimeout(future.DefaultTimeout)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p := sess.ExecuteAsync(ctx, stmt)
		<-p.Done()
		if _, err := p.Result(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFutureOneCallback(b *testing.B) {
	sess, ks := realSession(b, 1)
	ctx := context.Background()
	stmt := native.Query("SELECT k, v FROM " + ks + ".t WHERE p = 0 AND k = 0")
	got := make(chan struct{}, 1)
	cb := func(future.Page) { got <- struct{}{} }
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f := future.ExecuteAsync(ctx, sess, stmt, future.Options{})
		f.AddCallback(cb)
		<-got
	}
}

// IsSchemaAgreed reports the native core's wait for schema agreement after DDL (legacy
// semantics A26): true after a DDL the nodes agreed on and for other results, false when the
// wait is disabled.
func TestIsSchemaAgreed(t *testing.T) {
	hosts := cqltest.Hosts(t)
	ctx := context.Background()
	for _, tc := range []struct {
		timeout time.Duration
		want    bool
	}{{0, true}, {-1, false}} {
		sess, err := native.Connect(ctx, native.Config{Hosts: hosts, SchemaAgreementTimeout: tc.timeout})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
		ks := cqltest.KeyspaceName(t)
		f := future.ExecuteAsync(ctx, sess, native.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"), future.Options{})
		if _, err := f.Result(); err != nil {
			t.Fatal(err)
		}
		if got := f.IsSchemaAgreed(); got != tc.want {
			t.Errorf("SchemaAgreementTimeout %v: IsSchemaAgreed after CREATE KEYSPACE = %v, want %v", tc.timeout, got, tc.want)
		}
		cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks)
		f = future.ExecuteAsync(ctx, sess, native.Query("SELECT release_version FROM system.local"), future.Options{})
		if _, err := f.Result(); err != nil {
			t.Fatal(err)
		}
		if !f.IsSchemaAgreed() {
			t.Errorf("SchemaAgreementTimeout %v: IsSchemaAgreed after a SELECT = false", tc.timeout)
		}
	}
}
