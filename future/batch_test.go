package future_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// ExecuteBatchAsync is the Python driver's execute_async(BatchStatement): the callbacks get
// the batch's one page, WasApplied reads a conditional batch's outcome, a traced batch's
// trace can be read, a binding error reaches the errbacks, and Options.RetryPolicy (or the
// batch's own) decides its retries.
func TestExecuteBatchAsync(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: sim.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		"CREATE KEYSPACE fb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE fb.t (k int, c int, v text, PRIMARY KEY (k, c))",
	} {
		if _, err := s.Execute(ctx, native.Query(q)); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := s.Prepare(ctx, "INSERT INTO fb.t (k, c, v) VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	b := native.NewBatch(native.LoggedBatch, ins.Bind(1, 1, "a"), ins.Bind(1, 2, "b")).WithTracing(true)
	f := future.ExecuteBatchAsync(ctx, s, b, future.Options{})
	pages := make(chan future.Page, 1)
	f.AddCallbacks(func(p future.Page) { pages <- p }, func(err error) { t.Errorf("errback: %v", err) })
	if p := <-pages; p.HasRows() {
		t.Errorf("a batch's page has rows: %+v", p)
	}
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if applied, err := rs.WasApplied(); err == nil {
		t.Errorf("WasApplied of a batch without conditions: %v, nil; want an error as for any void result", applied)
	}
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if tr, err := f.QueryTrace(tctx); err != nil || tr == nil || tr.Request == "" {
		t.Errorf("QueryTrace of a traced batch: %+v, %v", tr, err)
	}
	if res, err := s.Execute(ctx, native.Query("SELECT c FROM fb.t WHERE k = 1")); err != nil || res.Len() != 2 {
		t.Fatalf("after the batch: %v rows, %v; want 2", res, err)
	}

	upd, err := s.Prepare(ctx, "UPDATE fb.t SET v = ? WHERE k = ? AND c = ? IF v = ?")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cond string
		want bool
	}{{"a", true}, {"nope", false}} {
		cb := native.NewBatch(native.LoggedBatch, upd.Bind("z", 1, 1, c.cond))
		rs, err := future.ExecuteBatchAsync(ctx, s, cb, future.Options{}).Result()
		if err != nil {
			t.Fatal(err)
		}
		if applied, err := rs.WasApplied(); err != nil || applied != c.want {
			t.Errorf("conditional batch IF v = %q: WasApplied %v, %v; want %v", c.cond, applied, err, c.want)
		}
	}

	bad := native.NewBatch(native.LoggedBatch, ins.Bind(1))
	var be *native.BindError
	if _, err := future.ExecuteBatchAsync(ctx, s, bad, future.Options{}).Result(); !errors.As(err, &be) {
		t.Errorf("a batch binding 1 value to 3 markers: %v, want a *native.BindError", err)
	}

	// An overloaded node: Options.RetryPolicy decides (PythonRetryPolicy by default, which
	// sends OVERLOADED to the next node: there is none), unless the batch has its own policy.
	overloaded := func(b native.Batch, opts future.Options) error {
		t.Helper()
		if err := sim.InjectFault(0, cqlsim.Fault{Match: "INSERT INTO fb.t", Times: 1, Error: &message.Overloaded{ErrorMessage: "overloaded"}}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = sim.ClearFaults(0) }()
		_, err := future.ExecuteBatchAsync(ctx, s, b, opts).Result()
		return err
	}
	one := native.NewBatch(native.UnloggedBatch, ins.Bind(2, 1, "x"))
	var nh *native.NoHostAvailableError
	var ov *native.OverloadedError
	if err := overloaded(one, future.Options{}); !errors.As(err, &nh) {
		t.Errorf("default options: %v (%T), want NoHostAvailable (PythonRetryPolicy)", err, err)
	}
	if err := overloaded(one, future.Options{RetryPolicy: future.FallthroughRetryPolicy{}}); !errors.As(err, &ov) || errors.As(err, &nh) {
		t.Errorf("FallthroughRetryPolicy: %v (%T), want the overloaded error", err, err)
	}
	if err := overloaded(one.WithRetryPolicy(future.FallthroughRetryPolicy{}), future.Options{}); !errors.As(err, &ov) || errors.As(err, &nh) {
		t.Errorf("the batch's own policy: %v (%T), want the overloaded error", err, err)
	}
}

// NativeResult gives a page's rows typed access through the native result it adapts; a
// Response of another Requester has none.
func TestNativeResultOfAPage(t *testing.T) {
	s := userSession(t)
	f := future.ExecuteAsync(context.Background(), s, native.Query("SELECT key, release_version FROM system.local"), future.Options{})
	pages := make(chan future.Page, 1)
	f.AddCallback(func(p future.Page) { pages <- p })
	res := future.NativeResult((<-pages).Response())
	if res == nil || res.Len() != 1 {
		t.Fatalf("NativeResult of an ExecuteAsync page: %v", res)
	}
	type local struct {
		Key     string
		Version string `cql:"release_version"`
	}
	row, _ := res.First()
	got, err := native.RowToStruct[local](row)
	if err != nil || got.Key != "local" || got.Version == "" {
		t.Errorf("RowToStruct of the page's row: %+v, %v", got, err)
	}
	if r := future.NativeResult(nil); r != nil {
		t.Errorf("NativeResult(nil) = %v, want nil", r)
	}
}

// QueryTraces reads the tracing session of every traced page (Python's get_all_query_traces),
// and ReadTrace any tracing session by its id.
func TestQueryTracesOfEveryPage(t *testing.T) {
	s := userSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ft WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ft.t (k int, c int, PRIMARY KEY (k, c))",
		"INSERT INTO ft.t (k, c) VALUES (1, 1)",
		"INSERT INTO ft.t (k, c) VALUES (1, 2)",
	} {
		if _, err := s.Execute(ctx, native.Query(q)); err != nil {
			t.Fatal(err)
		}
	}
	f := future.ExecuteAsync(ctx, s, native.Query("SELECT c FROM ft.t WHERE k = 1").WithPageSize(1).WithTracing(true), future.Options{})
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := rs.All(); err != nil || len(rows) != 2 {
		t.Fatalf("All: %d rows, %v", len(rows), err)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	traces, err := f.QueryTraces(tctx)
	ids := f.TraceIDs()
	if err != nil || len(ids) < 2 || len(traces) != len(ids) {
		t.Fatalf("QueryTraces: %d traces, %v; %d trace ids, want one trace per id, at least 2", len(traces), err, len(ids))
	}
	for i, tr := range traces {
		if !bytes.Equal(tr.TraceID, ids[i]) || tr.Request == "" {
			t.Errorf("trace %d: %+v, want the session of %x", i, tr, ids[i])
		}
	}
	one, err := future.ReadTrace(tctx, s, ids[0])
	if err != nil || one.Request != traces[0].Request {
		t.Errorf("ReadTrace of the first id: %+v, %v", one, err)
	}
	if _, err := future.ReadTrace(tctx, s, []byte{1, 2}); !errors.Is(err, future.ErrTraceUnavailable) {
		t.Errorf("ReadTrace of a 2-byte id: %v, want ErrTraceUnavailable", err)
	}
	if _, err := future.ReadTrace(tctx, nil, ids[0]); !errors.Is(err, future.ErrTraceUnavailable) {
		t.Errorf("ReadTrace without a session: %v, want ErrTraceUnavailable", err)
	}
}
