package native_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

func mustPrepare(t testing.TB, s *native.Session, cql string) *native.Prepared {
	t.Helper()
	p, err := s.Prepare(ctxT(t), cql)
	if err != nil {
		t.Fatalf("Prepare %q: %v", cql, err)
	}
	return p
}

func TestSimpleAndPreparedValues(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text, n bigint)")

	// Simple statement, positional values with inferred types.
	mustExec(t, s, "INSERT INTO kv (k, v, n) VALUES (?, ?, ?)", int32(1), "one", int64(100))
	// Simple statement, named values.
	mustExec(t, s, "INSERT INTO kv (k, v, n) VALUES (:k, :v, :n)", native.Named("k", int32(2)), native.Named("v", "two"), native.Named("n", int64(200)))
	// Prepared, positional.
	ins := mustPrepare(t, s, "INSERT INTO kv (k, v, n) VALUES (?, ?, ?)")
	if _, err := s.Execute(ctxT(t), ins.Bind(3, "three", 300)); err != nil {
		t.Fatal(err)
	}
	// Prepared, named in another order than the markers.
	insNamed := mustPrepare(t, s, "INSERT INTO kv (k, v, n) VALUES (:k, :v, :n)")
	if got := []string{insNamed.Params()[0].Name, insNamed.Params()[1].Name, insNamed.Params()[2].Name}; !slices.Equal(got, []string{"k", "v", "n"}) {
		t.Errorf("bind marker names = %v", got)
	}
	if _, err := s.Execute(ctxT(t), insNamed.Bind(native.Named("n", 400), native.Named("v", "four"), native.Named("k", 4))); err != nil {
		t.Fatal(err)
	}
	// Unset leaves a column alone; nil writes NULL.
	if _, err := s.Execute(ctxT(t), ins.Bind(3, native.Unset, nil)); err != nil {
		t.Fatal(err)
	}

	sel := mustPrepare(t, s, "SELECT v, n FROM kv WHERE k = ?")
	want := map[int]struct {
		v string
		n int64
	}{1: {"one", 100}, 2: {"two", 200}, 3: {"three", 0}, 4: {"four", 400}}
	for k, w := range want {
		res, err := s.Execute(ctxT(t), sel.Bind(k))
		if err != nil {
			t.Fatal(err)
		}
		row, ok := res.First()
		if !ok {
			t.Fatalf("row %d missing", k)
		}
		var v string
		var n *int64
		if err := row.Scan(&v, &n); err != nil {
			t.Fatal(err)
		}
		gotN := int64(0)
		if n != nil {
			gotN = *n
		}
		if v != w.v || gotN != w.n || (k == 3) != (n == nil) {
			t.Errorf("row %d = (%q, %v), want (%q, %d)", k, v, n, w.v, w.n)
		}
	}
	if p2 := mustPrepare(t, s, "SELECT v, n FROM kv WHERE k = ?"); p2 != sel {
		t.Error("preparing the same text twice should return the cached statement")
	}
}

func TestBindErrorsFailBeforeSending(t *testing.T) {
	var attempts sync.Map
	s, _ := connect(t, func(c *native.Config) {
		c.Observer = func(_ context.Context, a native.Attempt) { attempts.Store(a.Statement, true) }
	})
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text, l list<int>)")
	ins := mustPrepare(t, s, "INSERT INTO kv (k, v, l) VALUES (?, ?, ?)")
	attempts.Clear()

	_, err := s.Execute(ctxT(t), ins.Bind(1, "x"))
	var be *native.BindError
	if !errors.As(err, &be) || !errors.Is(err, native.ErrArgCount) || be.Index != -1 {
		t.Fatalf("too few values: %v", err)
	}

	_, err = s.Execute(ctxT(t), ins.Bind(1, 2.5, nil))
	if !errors.As(err, &be) || be.Index != 1 || be.Name != "v" || be.Type.Kind != cqltype.KindVarchar {
		t.Fatalf("wrong type: %v", err)
	}
	var ve *cqltype.ValueError
	if !errors.As(err, &ve) || !errors.Is(err, cqltype.ErrUnsupportedGoType) {
		t.Errorf("wrong type should wrap the codec's error: %v", err)
	}
	if !strings.Contains(err.Error(), "INSERT INTO kv") {
		t.Errorf("the error should name the statement: %v", err)
	}

	_, err = s.Execute(ctxT(t), ins.Bind(1, "x", []any{1, "no"}))
	if !errors.As(err, &be) || be.Index != 2 || !errors.As(err, &ve) || ve.Path == "" {
		t.Errorf("bad list element should carry its path: %v", err)
	}

	_, err = s.Execute(ctxT(t), ins.Bind(native.Named("k", 1), "x", nil))
	if !errors.As(err, &be) {
		t.Errorf("mixing named and positional: %v", err)
	}
	_, err = s.Execute(ctxT(t), native.Query("INSERT INTO kv (k, v) VALUES (?, ?)", 1, struct{}{}))
	if !errors.As(err, &be) || be.Index != 1 {
		t.Errorf("uninferable simple value: %v", err)
	}
	// A batch's consistency levels are checked like a statement's.
	b := native.NewBatch(native.LoggedBatch, ins.Bind(1, "x", nil))
	if _, err := s.ExecuteBatch(ctxT(t), b.WithConsistency(native.Consistency(99))); err == nil || !strings.Contains(err.Error(), "not a consistency level") {
		t.Errorf("batch with consistency 99: %v", err)
	}
	if _, err := s.ExecuteBatch(ctxT(t), b.WithSerialConsistency(native.Quorum)); err == nil || !strings.Contains(err.Error(), "SERIAL or LOCAL_SERIAL") {
		t.Errorf("batch with serial consistency QUORUM: %v", err)
	}
	n := 0
	attempts.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d requests were sent despite binding errors", n)
	}
}

func TestScanErrorNamesColumn(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 'x')")
	res := mustExec(t, s, "SELECT k, v FROM kv WHERE k = 1")
	row, _ := res.First()
	var k int
	var v int
	err := row.Scan(&k, &v)
	var se *native.ScanError
	if !errors.As(err, &se) || se.Column != "v" || se.Index != 1 {
		t.Fatalf("Scan into a wrong type: %v", err)
	}
	if err := row.Scan(&k); !errors.As(err, &se) || se.Index != -1 {
		t.Errorf("Scan with too few destinations: %v", err)
	}
	if _, err := native.Get[int](row, 5); err == nil {
		t.Error("Get out of range succeeded")
	}
	if err := row.Scan(nil, new(string)); err != nil {
		t.Errorf("nil destination should skip a column: %v", err)
	}
}

func TestPaging(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE p (pk int, ck int, PRIMARY KEY (pk, ck))")
	ins := mustPrepare(t, s, "INSERT INTO p (pk, ck) VALUES (0, ?)")
	for i := range 25 {
		if _, err := s.Execute(ctxT(t), ins.Bind(i)); err != nil {
			t.Fatal(err)
		}
	}
	sel := mustPrepare(t, s, "SELECT ck FROM p WHERE pk = ?")
	for _, stmt := range []native.Statement{sel.Bind(0).WithPageSize(10), native.Query("SELECT ck FROM p WHERE pk = 0").WithPageSize(10)} {
		first, err := s.Execute(ctxT(t), stmt)
		if err != nil {
			t.Fatal(err)
		}
		if first.Len() != 10 || !first.HasMorePages() {
			t.Fatalf("first page: %d rows, more %t", first.Len(), first.HasMorePages())
		}
		second, err := first.NextPage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		// The first page is unchanged by fetching the second.
		if first.Len() != 10 || !first.HasMorePages() {
			t.Fatal("NextPage changed the first page")
		}
		ck0, _ := native.Get[int](mustRow(t, first, 0), 0)
		ck1, _ := native.Get[int](mustRow(t, second, 0), 0)
		if ck0 != 0 || ck1 != 10 {
			t.Errorf("first rows of pages: %d, %d", ck0, ck1)
		}
		// Fetching the same next page twice gives the same rows.
		again, err := first.NextPage(ctxT(t))
		if err != nil || again.Len() != second.Len() {
			t.Fatalf("second NextPage: %v", err)
		}
		// Resuming from a paging state in a new statement.
		resumed, err := s.Execute(ctxT(t), stmt.WithPagingState(first.PagingState()))
		if err != nil {
			t.Fatal(err)
		}
		if ck, _ := native.Get[int](mustRow(t, resumed, 0), 0); ck != 10 {
			t.Errorf("resumed page starts at %d", ck)
		}

		var all []int
		for row, err := range first.All(ctxT(t)) {
			if err != nil {
				t.Fatal(err)
			}
			ck, _ := native.Get[int](row, 0)
			all = append(all, ck)
		}
		if len(all) != 25 || all[24] != 24 {
			t.Errorf("All gave %v", all)
		}
		third, _ := second.NextPage(ctxT(t))
		if third.HasMorePages() {
			if last, err := third.NextPage(ctxT(t)); err == nil && last.Len() != 0 {
				t.Errorf("a fourth page with %d rows", last.Len())
			}
		} else if _, err := third.NextPage(ctxT(t)); !errors.Is(err, native.ErrNoMorePages) {
			t.Errorf("NextPage after the last page: %v", err)
		}
	}
	cks, err := native.Collect(s.Iter(ctxT(t), sel.Bind(0).WithPageSize(7)), native.RowTo[int])
	if err != nil || len(cks) != 25 {
		t.Fatalf("Collect over Iter: %d rows, %v", len(cks), err)
	}
	// Stopping early does not fetch more pages.
	n := 0
	for range s.Iter(ctxT(t), sel.Bind(0).WithPageSize(5)) {
		n++
		if n == 3 {
			break
		}
	}
	one, err := native.CollectOne(s.Iter(ctxT(t), sel.Bind(0)), native.RowTo[int])
	if err != nil || one != 0 {
		t.Errorf("CollectOne = %d, %v", one, err)
	}
	_, err = native.CollectOne(s.Iter(ctxT(t), sel.Bind(99)), native.RowTo[int])
	if !errors.Is(err, native.ErrNotFound) {
		t.Errorf("CollectOne on no rows: %v", err)
	}
	// Paging disabled returns everything at once.
	res, err := s.Execute(ctxT(t), sel.Bind(0).WithPageSize(0))
	if err != nil || res.Len() != 25 || res.HasMorePages() {
		t.Errorf("unpaged: %d rows, %v", res.Len(), err)
	}
}

func mustRow(t testing.TB, r *native.Result, i int) native.Row {
	t.Helper()
	row, ok := r.Row(i)
	if !ok {
		t.Fatalf("row %d of %d missing", i, r.Len())
	}
	return row
}

func TestBatches(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "CREATE TABLE c (k int PRIMARY KEY, n counter)")
	ins := mustPrepare(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)")
	for _, typ := range []native.BatchType{native.LoggedBatch, native.UnloggedBatch} {
		b := native.NewBatch(typ, ins.Bind(1, "a"), native.Query("INSERT INTO kv (k, v) VALUES (?, ?)", int32(2), "b"))
		b = b.Add(ins.Bind(native.Named("v", "c"), native.Named("k", 3)))
		if _, err := s.ExecuteBatch(ctxT(t), b.WithConsistency(native.One)); err != nil {
			t.Fatalf("%s batch: %v", typ, err)
		}
		if len(b.Statements()) != 3 {
			t.Fatal("Add changed the count")
		}
	}
	res := mustExec(t, s, "SELECT count(*) FROM kv")
	if n, _ := native.ScanOne[int64](res); n != 3 {
		t.Errorf("count = %d", n)
	}
	upd := mustPrepare(t, s, "UPDATE c SET n = n + ? WHERE k = ?")
	cb := native.NewBatch(native.CounterBatch, upd.Bind(int64(5), 1), upd.Bind(int64(-2), 1))
	if _, err := s.ExecuteBatch(ctxT(t), cb); err != nil {
		t.Fatal(err)
	}
	if n, _ := native.ScanOne[int64](mustExec(t, s, "SELECT n FROM c WHERE k = 1")); n != 3 {
		t.Errorf("counter = %d", n)
	}
	// A conditional batch reports whether it applied.
	cas := native.NewBatch(native.LoggedBatch, native.Query("INSERT INTO kv (k, v) VALUES (9, 'x') IF NOT EXISTS"))
	r1, err := s.ExecuteBatch(ctxT(t), cas)
	if err != nil || !r1.Applied() {
		t.Fatalf("first CAS batch: %v", err)
	}
	r2, err := s.ExecuteBatch(ctxT(t), cas)
	if err != nil || r2.Applied() {
		t.Fatalf("second CAS batch applied again: %v", err)
	}
	// An empty batch is sent as it is; the server accepts it and does nothing.
	if r, err := s.ExecuteBatch(ctxT(t), native.NewBatch(native.LoggedBatch)); err != nil || !r.Applied() {
		t.Errorf("empty batch: %v", err)
	}
	_, err = s.ExecuteBatch(ctxT(t), native.NewBatch(native.LoggedBatch, ins.Bind(1)))
	var be *native.BindError
	if !errors.As(err, &be) {
		t.Errorf("bad batch values: %v", err)
	}
}

func TestLWTAndSerialConsistency(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	ins := mustPrepare(t, s, "INSERT INTO kv (k, v) VALUES (?, ?) IF NOT EXISTS")
	r, err := s.Execute(ctxT(t), ins.Bind(1, "a").WithSerialConsistency(native.LocalSerial))
	if err != nil || !r.Applied() {
		t.Fatalf("first insert: applied %v, %v", r != nil && r.Applied(), err)
	}
	r, err = s.Execute(ctxT(t), ins.Bind(1, "b").WithSerialConsistency(native.Serial))
	if err != nil || r.Applied() {
		t.Fatalf("second insert applied: %v", err)
	}
	m, err := mustRow(t, r, 0).Map()
	if err != nil || m["v"] != "a" {
		t.Errorf("the failed CAS should return the current row: %v %v", m, err)
	}
	_, err = s.Execute(ctxT(t), ins.Bind(2, "a").WithSerialConsistency(native.Quorum))
	if err == nil {
		t.Error("QUORUM accepted as a serial consistency")
	}
}

func TestTimestampConsistencyAndTracing(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	ins := mustPrepare(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)")
	if _, err := s.Execute(ctxT(t), ins.Bind(1, "a").WithTimestamp(1234567).WithConsistency(native.All).WithIdempotent(true)); err != nil {
		t.Fatal(err)
	}
	wt, err := native.ScanOne[int64](mustExec(t, s, "SELECT writetime(v) FROM kv WHERE k = 1"))
	if err != nil || wt != 1234567 {
		t.Errorf("writetime = %d, %v", wt, err)
	}
	// An older timestamp loses.
	if _, err := s.Execute(ctxT(t), ins.Bind(1, "old").WithTimestamp(1000)); err != nil {
		t.Fatal(err)
	}
	if v, _ := native.ScanOne[string](mustExec(t, s, "SELECT v FROM kv WHERE k = 1")); v != "a" {
		t.Errorf("older write won: %q", v)
	}
	// A custom payload is sent (Cassandra without a custom query handler ignores it).
	if _, err := s.Execute(ctxT(t), native.Query("SELECT v FROM kv").WithCustomPayload(map[string][]byte{"k": []byte("v")})); err != nil {
		t.Errorf("custom payload: %v", err)
	}
	// Per-statement keyspace needs protocol v5.
	if _, err := s.Execute(ctxT(t), native.Query("SELECT v FROM kv").WithKeyspace("system")); !errors.Is(err, native.ErrUnsupported) {
		t.Errorf("WithKeyspace on v4: %v", err)
	}
	if _, err := s.Execute(ctxT(t), native.Query("SELECT v FROM kv").WithConsistency(native.Consistency(99))); err == nil {
		t.Error("invalid consistency accepted")
	}
}

func TestTracing(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	res, err := s.Execute(ctxT(t), native.Query("SELECT v FROM kv WHERE k = 1").WithTracing(true))
	if err != nil {
		t.Fatal(err)
	}
	id, ok := res.TraceID()
	if !ok || id == ([16]byte{}) {
		t.Fatal("no trace id on a traced request")
	}
	// The trace session appears in system_traces (written asynchronously by the server).
	found := false
	for range 50 {
		r, err := s.Execute(ctxT(t), native.Query("SELECT session_id FROM system_traces.sessions WHERE session_id = ?", cqltype.UUID(id)).WithConsistency(native.One))
		if err == nil && r.Len() == 1 {
			found = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !found {
		t.Errorf("trace %x not found in system_traces.sessions", id)
	}
	if _, ok := mustExec(t, s, "SELECT v FROM kv WHERE k = 1").TraceID(); ok {
		t.Error("untraced request has a trace id")
	}
}

func TestUseChangesKeyspaceOnAllConnections(t *testing.T) {
	s, ks := connect(t, func(c *native.Config) { c.ConnsPerHost = 3 })
	other, hosts := testKeyspace(t, 1)
	adminExec(t, hosts, "CREATE TABLE "+other+".only_here (k int PRIMARY KEY)")
	res := mustExec(t, s, "USE "+other)
	if res.Kind() != native.ResultSetKeyspace || res.Keyspace() != other || s.Keyspace() != other {
		t.Fatalf("USE: kind %s, keyspace %q, session keyspace %q", res.Kind(), res.Keyspace(), s.Keyspace())
	}
	// Every connection must now resolve the unqualified table.
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Execute(ctxT(t), native.Query("SELECT k FROM only_here"))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("after USE: %v", err)
		}
	}
	mustExec(t, s, `USE "`+ks+`"`)
	if s.Keyspace() != ks {
		t.Errorf("keyspace after second USE: %q", s.Keyspace())
	}
}

func TestTransparentReprepare(t *testing.T) {
	var reprepares sync.Map
	s, ks := connect(t, func(c *native.Config) {
		// Prepared on one node only: a background PREPARE to another node arriving after the
		// table is recreated would teach that node the statement again.
		c.PrepareOnOneNode = true
		c.Observer = func(_ context.Context, a native.Attempt) {
			if a.Reprepare {
				reprepares.Store(a.Statement, a.Err)
			}
		}
	})
	hosts := cqltest.Hosts(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	sel := mustPrepare(t, s, "SELECT v FROM kv WHERE k = ?")
	oldID := string(sel.ID())
	// Dropping the table makes the server forget the statements prepared on it.
	adminExec(t, hosts, "DROP TABLE "+ks+".kv")
	adminExec(t, hosts, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	adminExec(t, hosts, "INSERT INTO "+ks+".kv (k, v) VALUES (1, 'back')")
	res, err := s.Execute(ctxT(t), sel.Bind(1))
	if err != nil {
		t.Fatalf("execute after the table was recreated: %v", err)
	}
	v, _ := native.Get[string](mustRow(t, res, 0), 0)
	if v != "back" {
		t.Errorf("v = %q", v)
	}
	if perr, ok := reprepares.Load("SELECT v FROM kv WHERE k = ?"); !ok || perr != nil {
		t.Errorf("no successful re-prepare was observed (%v)", perr)
	}
	if string(sel.ID()) != oldID {
		t.Logf("the server gave a new id on re-prepare")
	}
}

// Preparing a statement again inside a request (after UNPREPARED) is bounded by the request's
// own timeout, not by Config.Timeout, and its expiry is reported as ErrTimeout; a speculative
// request's attempts are bounded the same way, and a request without a timeout only by its
// context. The node is slow to prepare (Fault.Prepare).
func TestReprepareBoundedByRequestTimeout(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	addr := cl.Addrs()[0]
	cqltest.Exec(t, addr, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for _, tc := range []struct {
		name       string
		cfg        native.Config // Hosts filled in
		stmt       func(native.Statement) native.Statement
		prepDelay  time.Duration
		wantErr    bool // ErrTimeout, in well under prepDelay
		wantSlower bool // success, after at least prepDelay
	}{
		{"request timeout under the session's", native.Config{Timeout: 30 * time.Second},
			func(st native.Statement) native.Statement { return st.WithTimeout(300 * time.Millisecond) }, 20 * time.Second, true, false},
		{"speculative, request timeout over the session's", native.Config{Timeout: 500 * time.Millisecond, SpeculativeAttempts: 1, SpeculativeDelay: 10 * time.Second},
			func(st native.Statement) native.Statement {
				return st.WithIdempotent(true).WithTimeout(10 * time.Second)
			}, 1500 * time.Millisecond, false, true},
		{"no request timeout", native.Config{Timeout: 500 * time.Millisecond},
			func(st native.Statement) native.Statement { return st.WithTimeout(-1) }, 1500 * time.Millisecond, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = cl.ClearFaults(0)
			cqltest.Exec(t, addr, "DROP TABLE IF EXISTS ks.t")
			cqltest.Exec(t, addr, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
			cfg := tc.cfg
			cfg.Hosts = cl.Addrs()
			s, err := native.Connect(ctxT(t), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sel := mustPrepare(t, s, "SELECT v FROM ks.t WHERE k = ?")
			// Dropping the table makes the node forget the statement: the next EXECUTE is
			// UNPREPARED.
			cqltest.Exec(t, addr, "DROP TABLE ks.t")
			cqltest.Exec(t, addr, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
			if err := cl.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t WHERE k", Delay: tc.prepDelay, Prepare: true}); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cl.ClearFaults(0) }()
			start := time.Now()
			_, err = s.Execute(context.Background(), tc.stmt(sel.Bind(1)))
			took := time.Since(start)
			if tc.wantErr && (!errors.Is(err, native.ErrTimeout) || took >= tc.prepDelay/2) {
				t.Errorf("%v after %v, want ErrTimeout well before the %v the node takes to prepare", err, took, tc.prepDelay)
			}
			if tc.wantSlower && (err != nil || took < tc.prepDelay) {
				t.Errorf("%v after %v, want success after the %v the node takes to prepare", err, took, tc.prepDelay)
			}
		})
	}
}

// A node that knows none of a batch's prepared statements answers UNPREPARED for one id at a
// time: each is prepared again and the batch resent until it runs. (A three-node cluster does
// this whenever a batch goes to a node its statements were not prepared on.)
func TestTransparentReprepareInBatch(t *testing.T) {
	var mu sync.Mutex
	var reprepared []string
	s, ks := connect(t, func(c *native.Config) {
		c.PrepareOnOneNode = true // as in TestTransparentReprepare
		c.Observer = func(_ context.Context, a native.Attempt) {
			if a.Reprepare && a.Err == nil {
				mu.Lock()
				reprepared = append(reprepared, a.Statement)
				mu.Unlock()
			}
		}
	})
	hosts := cqltest.Hosts(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	ins := mustPrepare(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)")
	upd := mustPrepare(t, s, "UPDATE kv SET v = ? WHERE k = ?")
	del := mustPrepare(t, s, "DELETE FROM kv WHERE k = ?")
	// Dropping the table makes the server forget the statements prepared on it.
	adminExec(t, hosts, "DROP TABLE "+ks+".kv")
	adminExec(t, hosts, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	adminExec(t, hosts, "INSERT INTO "+ks+".kv (k, v) VALUES (2, 'gone')")
	b := native.NewBatch(native.LoggedBatch, ins.Bind(1, "first"), upd.Bind("second", 1), del.Bind(2))
	if _, err := s.ExecuteBatch(ctxT(t), b); err != nil {
		t.Fatalf("batch of three forgotten statements: %v", err)
	}
	res := mustExec(t, s, "SELECT k, v FROM kv")
	if res.Len() != 1 {
		t.Fatalf("%d rows after the batch, want 1", res.Len())
	}
	row := mustRow(t, res, 0)
	k, _ := native.Get[int](row, 0)
	v, _ := native.Get[string](row, 1)
	if k != 1 || v != "second" {
		t.Errorf("row (%d, %q), want (1, \"second\")", k, v)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reprepared) != 3 {
		t.Errorf("re-prepared %q, want each of the three statements once", reprepared)
	}
}

func TestRowToStructAndSchemaAgreement(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE u (id int PRIMARY KEY, user_name text, age int)")
	if err := s.AwaitSchemaAgreement(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "INSERT INTO u (id, user_name, age) VALUES (1, 'ann', 30)")
	type user struct {
		ID   int
		Name string `cql:"user_name"`
		Age  *int
		//lint:ignore U1000 an unexported field is the case: RowToStruct must leave it alone
		skip int
	}
	got, err := native.CollectOne(s.Iter(ctxT(t), native.Query("SELECT id, user_name, age FROM u")), native.RowToStruct[user])
	if err != nil || got.ID != 1 || got.Name != "ann" || got.Age == nil || *got.Age != 30 {
		t.Fatalf("RowToStruct = %+v, %v", got, err)
	}
	type partial struct{ ID int }
	_, err = native.CollectOne(s.Iter(ctxT(t), native.Query("SELECT id, age FROM u")), native.RowToStruct[partial])
	var se *native.ScanError
	if !errors.As(err, &se) || se.Column != "age" {
		t.Errorf("column without a field: %v", err)
	}
}

func TestSkipMetadataAndClientTimestamps(t *testing.T) {
	s, _ := connect(t, func(c *native.Config) { c.ClientTimestamps = true })
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	before := time.Now().UnixMicro()
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 'x')")
	wt, err := native.ScanOne[int64](mustExec(t, s, "SELECT writetime(v) FROM kv WHERE k = 1"))
	if err != nil || wt < before || wt > time.Now().UnixMicro() {
		t.Errorf("client timestamp %d not within the call (from %d): %v", wt, before, err)
	}
	sel := mustPrepare(t, s, "SELECT k, v FROM kv WHERE k = ?")
	if cols := sel.Columns(); len(cols) != 2 || cols[1].Name != "v" {
		t.Fatalf("prepared result columns = %v", cols)
	}
	for _, skip := range []bool{true, false} {
		res, err := s.Execute(ctxT(t), sel.Bind(1).WithSkipMetadata(skip))
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := native.Get[string](mustRow(t, res, 0), 1); v != "x" || res.Columns()[1].Name != "v" {
			t.Errorf("skip metadata %t: v = %q, columns %v", skip, v, res.Columns())
		}
	}
}

func TestSchemaChangeAndWarnings(t *testing.T) {
	s, ks := connect(t)
	res := mustExec(t, s, "CREATE TABLE w (pk int, ck int, v int, PRIMARY KEY (pk, ck))")
	sc := res.SchemaChange()
	if res.Kind() != native.ResultSchemaChange || sc == nil || sc.Change != "CREATED" || sc.Target != "TABLE" || sc.Keyspace != ks || sc.Name != "w" {
		t.Fatalf("schema change: kind %s, %+v", res.Kind(), sc)
	}
	mustExec(t, s, "INSERT INTO w (pk, ck, v) VALUES (1, 1, 1)")
	// An aggregate without a partition key restriction makes Cassandra warn.
	res = mustExec(t, s, "SELECT count(*) FROM w")
	if len(res.Warnings()) == 0 {
		t.Errorf("no warning for an aggregation without partition key")
	} else if !strings.Contains(strings.ToLower(strings.Join(res.Warnings(), " ")), "aggregation") {
		t.Errorf("unexpected warnings %q", res.Warnings())
	}
	if res := mustExec(t, s, "INSERT INTO w (pk, ck, v) VALUES (2, 2, 2)"); res.Kind() != native.ResultVoid || res.Len() != 0 || res.Warnings() != nil {
		t.Errorf("plain write: kind %s", res.Kind())
	}
}

func TestHostFilter(t *testing.T) {
	hosts := cqltest.Hosts(t)
	_, err := native.Connect(ctxT(t), native.Config{Hosts: hosts, HostFilter: func(native.Host) bool { return false }})
	if err == nil || !strings.Contains(err.Error(), "HostFilter") {
		t.Errorf("a filter rejecting every node: %v", err)
	}
	var dcs []string
	s, err := native.Connect(ctxT(t), native.Config{Hosts: hosts, HostFilter: func(h native.Host) bool {
		dcs = append(dcs, h.DataCenter)
		return true
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(dcs) == 0 || dcs[0] == "" {
		t.Errorf("the filter saw no host details: %v", dcs)
	}
}

// A named value binds every marker of its name: ":x" used twice takes one value, and so do
// two "?" markers that compare the same column (both named after it), so two values of
// that name are refused rather than one of them silently dropped; a value no marker is
// named after is refused too. Positional values bind such markers apart.
func TestNamedValuesBindEveryMarkerOfTheirName(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE rng (k int, c int, PRIMARY KEY (k, c))")
	for c := range 5 {
		mustExec(t, s, "INSERT INTO rng (k, c) VALUES (1, ?)", int32(c))
	}
	count := func(st native.Statement) (int, error) {
		res, err := s.Execute(ctxT(t), st)
		if err != nil {
			return 0, err
		}
		return res.Len(), nil
	}
	between := mustPrepare(t, s, "SELECT c FROM rng WHERE k = ? AND c > ? AND c < ?")
	if n, err := count(between.Bind(1, 0, 4)); err != nil || n != 3 {
		t.Errorf("positional: %d rows, %v; want 3", n, err)
	}
	_, err := count(between.Bind(native.Named("k", 1), native.Named("c", 0), native.Named("c", 4)))
	var be *native.BindError
	if !errors.As(err, &be) || !errors.Is(err, native.ErrArgCount) || !strings.Contains(err.Error(), `two values named "c"`) {
		t.Errorf("two values named c: %v, want a BindError about the duplicate name", err)
	}
	if n, err := count(between.Bind(native.Named("k", 1), native.Named("c", 2))); err != nil || n != 0 {
		t.Errorf("one value for both c markers (c > 2 AND c < 2): %d rows, %v; want 0", n, err)
	}
	same := mustPrepare(t, s, "SELECT c FROM rng WHERE k = :k AND c >= :x AND c <= :x")
	if n, err := count(same.Bind(native.Named("x", 2), native.Named("k", 1))); err != nil || n != 1 {
		t.Errorf(":x twice, one value: %d rows, %v; want 1", n, err)
	}
	_, err = count(same.Bind(native.Named("k", 1), native.Named("x", 2), native.Named("y", 3)))
	if !errors.As(err, &be) || !errors.Is(err, native.ErrArgCount) || !strings.Contains(err.Error(), `no bind marker takes the value named "y"`) {
		t.Errorf("a value named y: %v, want a BindError naming it", err)
	}
	_, err = count(same.Bind(native.Named("k", 1), native.Named("x", 2), native.Named("X", 3)))
	if !errors.As(err, &be) || !strings.Contains(err.Error(), `"X"`) {
		t.Errorf("values named x and X for a marker x: %v, want a BindError naming X (one would be dropped)", err)
	}
	_, err = count(same.Bind(native.Named("k", 1)))
	if !errors.As(err, &be) || be.Name != "x" {
		t.Errorf("no value for x: %v, want a BindError naming x", err)
	}
	// A misspelt name: the marker without a value is reported, with the value no marker takes.
	_, err = count(same.Bind(native.Named("k", 1), native.Named("xx", 2)))
	if !errors.As(err, &be) || be.Name != "x" || !strings.Contains(err.Error(), `no bind marker takes the value named "xx"`) {
		t.Errorf("a value named xx and none named x: %v, want a BindError naming x and xx", err)
	}
}
