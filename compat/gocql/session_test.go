package gocql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"go.uber.org/goleak"
)

// newTestSession connects to the test server in a fresh keyspace (created and dropped through
// the session under test, not cqltest's raw client, which is not race-free) and creates the
// tables given (KS. is replaced by the keyspace name).
func newTestSession(t *testing.T, ddl ...string) (*Session, string) {
	t.Helper()
	return newTestSessionTB(t, ddl...)
}

// newTestSessionTB is newTestSession for tests and benchmarks.
func newTestSessionTB(t testing.TB, ddl ...string) (*Session, string) {
	t.Helper()
	hosts := cqltest.Hosts(t)
	ks := cqltest.KeyspaceName(t)
	cluster := NewCluster(hosts...)
	cluster.Timeout = 30 * time.Second
	admin, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	defer admin.Close()
	if err := admin.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatalf("creating keyspace %s: %v", ks, err)
	}
	t.Cleanup(func() {
		s, err := cluster.CreateSession()
		if err != nil {
			t.Logf("dropping keyspace %s: %v", ks, err)
			return
		}
		defer s.Close()
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("dropping keyspace %s: %v", ks, err)
		}
	})
	for _, stmt := range ddl {
		if err := admin.Query(strings.ReplaceAll(stmt, "KS.", ks+".")).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	cluster.Keyspace = ks
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	t.Cleanup(s.Close)
	return s, ks
}

// kvTable is a table with one partition of ordered rows, for paging tests.
const kvTable = "CREATE TABLE KS.kv (p int, c int, v text, PRIMARY KEY (p, c))"

func insertRows(t *testing.T, s *Session, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if err := s.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 1, i, "v"+string(rune('0'+i))).Exec(); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
}

func TestSessionLifecycle(t *testing.T) {
	s, ks := newTestSession(t)
	if s.Closed() {
		t.Fatal("new session reports Closed")
	}
	if err := s.Query("CREATE TABLE t (id int PRIMARY KEY, v text)").Exec(); err != nil {
		t.Fatalf("DDL through the session: %v", err)
	}
	if err := s.Query("INSERT INTO t (id, v) VALUES (?, ?)", 1, "one").Exec(); err != nil {
		t.Fatalf("prepared insert: %v", err)
	}
	var v string
	if err := s.Query("SELECT v FROM " + ks + ".t WHERE id = 1").Scan(&v); err != nil || v != "one" {
		t.Fatalf("Scan = %q, %v; want one, nil", v, err)
	}
	s.Close()
	s.Close() // idempotent
	if !s.Closed() {
		t.Fatal("Closed() = false after Close")
	}
	if err := s.Query("SELECT v FROM t WHERE id = 1").Exec(); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("query after Close: %v, want ErrSessionClosed", err)
	}
	if err := s.ExecuteBatch(s.NewBatch(LoggedBatch)); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("batch after Close: %v, want ErrSessionClosed", err)
	}
}

func TestCreateSessionErrors(t *testing.T) {
	if _, err := NewCluster().CreateSession(); !errors.Is(err, ErrNoHosts) {
		t.Fatalf("no hosts: %v, want ErrNoHosts", err)
	}
	both := NewCluster("127.0.0.1")
	both.Authenticator = PasswordAuthenticator{Username: "u", Password: "p"}
	both.AuthProvider = func(*HostInfo) (Authenticator, error) { return both.Authenticator, nil }
	if _, err := both.CreateSession(); err == nil || err.Error() != "Can't use both Authenticator and AuthProvider in cluster config." {
		t.Fatalf("Authenticator and AuthProvider both set: %v, want gocql's error", err)
	}
	v2 := NewCluster(cqltest.Hosts(t)...)
	v2.ProtoVersion = 2
	if s, err := v2.CreateSession(); err == nil || !strings.Contains(err.Error(), "only versions 3, 4 and 5 are supported") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("ProtoVersion 2: %v, want the clear refusal (docs/deviations.md G25)", err)
	}
	hosts := cqltest.Hosts(t)
	cluster := NewCluster(hosts...)
	cluster.Keyspace = "no_such_keyspace_cqlbridge"
	cluster.ReconnectionPolicy = &ConstantReconnectionPolicy{}
	if s, err := cluster.CreateSession(); err != ErrNoConnectionsStarted {
		if s != nil {
			s.Close()
		}
		t.Fatalf("CreateSession with a missing keyspace: %v, want ErrNoConnectionsStarted itself (as gocql)", err)
	}
}

// Like gocql v1.7.0, CreateSession makes one attempt: an unreachable cluster fails at once,
// whatever the ReconnectionPolicy (which spaced gocql's pool reconnections only).
func TestCreateSessionDoesNotRetry(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close() // no handshake: every connection attempt fails
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	cluster := NewCluster(host)
	cluster.Port, _ = strconv.Atoi(port)
	cluster.ReconnectionPolicy = &ConstantReconnectionPolicy{MaxRetries: 3, Interval: 10 * time.Millisecond}
	if s, err := cluster.CreateSession(); err == nil {
		s.Close()
		t.Fatal("CreateSession on a server that closes every connection succeeded")
	}
	if n := accepted.Load(); n != 1 {
		t.Fatalf("CreateSession connected %d times, want 1 (no retries)", n)
	}
}

// The driver's own queries (KeyspaceMetadata, the replication lookup of token-aware routing,
// the trace writer's reads) are not shown to the session's QueryObserver or Tracer, as in gocql.
func TestSchemaQueriesAreNotObservedOrTraced(t *testing.T) {
	_, ks := newTestSession(t, kvTable)
	obs := &countingObserver{}
	cluster := NewCluster(cqltest.Hosts(t)...)
	cluster.Keyspace = ks
	cluster.QueryObserver = obs
	cluster.PoolConfig.HostSelectionPolicy = TokenAwareHostPolicy(RoundRobinHostPolicy())
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var traced bytes.Buffer
	s.SetTrace(NewTraceWriter(s, &traced))
	if _, err := s.KeyspaceMetadata(ks); err != nil {
		t.Fatal(err)
	}
	if n := len(obs.all()); n != 0 {
		t.Errorf("KeyspaceMetadata was seen by the QueryObserver %d times, want 0", n)
	}
	if traced.Len() != 0 {
		t.Errorf("KeyspaceMetadata was traced: %q", traced.String())
	}
	// A query of the application is seen, once (the token-aware policy's replication lookup
	// for its keyspace is not).
	if err := s.Query("SELECT v FROM kv WHERE p = 1 AND c = 1").Exec(); err != nil {
		t.Fatal(err)
	}
	if n := len(obs.all()); n != 1 {
		t.Errorf("one application query was seen by the QueryObserver %d times, want 1", n)
	}
	// It is traced once: the trace writer's own reads of system_traces are neither traced (a
	// session Tracer used to trace them, recursing until the stack overflowed) nor observed.
	if n := strings.Count(traced.String(), "Tracing session"); n != 1 {
		t.Errorf("the trace writer wrote %d trace sessions, want 1:\n%s", n, traced.String())
	}
}

func TestPagingStateNumRowsWillSwitchPage(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 5)

	q := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2)
	iter := q.Iter()
	self := iter
	type step struct {
		numRows    int
		lastPage   bool
		willSwitch bool
	}
	var got []step
	var rows []int
	record := func() {
		got = append(got, step{iter.NumRows(), len(iter.PageState()) == 0, iter.WillSwitchPage()})
	}
	record()
	var c int
	for iter.Scan(&c) {
		rows = append(rows, c)
		record()
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if iter != self {
		t.Fatal("the iterator pointer changed")
	}
	want := []step{
		{2, false, false}, {2, false, false}, {2, false, true},
		{2, false, false}, {2, false, true}, {1, true, false},
	}
	if len(got) != len(want) {
		t.Fatalf("steps = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after scan %d: %+v, want %+v (all: %+v)", i, got[i], want[i], got)
		}
	}
	if len(rows) != 5 || rows[0] != 1 || rows[4] != 5 {
		t.Fatalf("rows = %v, want 1..5", rows)
	}
	if q.pageState != nil {
		t.Fatal("iteration wrote a page state back into the Query")
	}
}

func TestPageStateDisablesAutoPaging(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 5)

	first := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).Iter()
	var c int
	first.Scan(&c)
	first.Scan(&c)
	state := first.PageState()
	if len(state) == 0 {
		t.Fatal("first page has no paging state")
	}
	first.Close()

	q := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).PageState(state)
	iter := q.Iter()
	var rows []int
	for iter.Scan(&c) {
		rows = append(rows, c)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0] != 3 || rows[1] != 4 {
		t.Fatalf("resumed rows = %v, want [3 4] and no auto-paging", rows)
	}
	if iter.WillSwitchPage() {
		t.Fatal("WillSwitchPage with auto-paging disabled")
	}

	// Bind clears the page state but keeps auto-paging disabled (C4).
	iter = q.Bind().Iter()
	rows = rows[:0]
	for iter.Scan(&c) {
		rows = append(rows, c)
	}
	iter.Close()
	if len(rows) != 2 || rows[0] != 1 {
		t.Fatalf("after Bind() rows = %v, want the first page only ([1 2])", rows)
	}
}

// countingObserver records the observed attempts.
type countingObserver struct {
	mu  sync.Mutex
	got []ObservedQuery
}

func (o *countingObserver) ObserveQuery(_ context.Context, q ObservedQuery) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, q)
}

func (o *countingObserver) all() []ObservedQuery {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]ObservedQuery(nil), o.got...)
}

func TestObserverPerPageAndPrefetch(t *testing.T) {
	s, ks := newTestSession(t, kvTable)
	insertRows(t, s, 5)

	obs := &countingObserver{}
	iter := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).Prefetch(0).Observer(obs).Iter()
	var c, n int
	for iter.Scan(&c) {
		n++
	}
	if err := iter.Close(); err != nil || n != 5 {
		t.Fatalf("scanned %d rows, err %v", n, err)
	}
	got := obs.all()
	if len(got) != 3 {
		t.Fatalf("observer called %d times, want 3 (one per page)", len(got))
	}
	for i, o := range got {
		if o.Attempt != 0 {
			t.Errorf("page %d: Attempt = %d, want 0 (fresh metrics per page)", i, o.Attempt)
		}
		if o.Keyspace != ks || o.Err != nil || o.Host == nil || o.Statement != "SELECT c FROM kv WHERE p = 1" {
			t.Errorf("page %d: observed %+v", i, o)
		}
		if o.Metrics == nil || o.Metrics.Attempts != 1 {
			t.Errorf("page %d: metrics %+v", i, o.Metrics)
		}
	}
	if got[0].Rows != 2 || got[2].Rows != 1 {
		t.Errorf("rows per page = %d, %d, %d; want 2, 2, 1", got[0].Rows, got[1].Rows, got[2].Rows)
	}
}

func TestQueryScanAndNotFound(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 3)
	var c int
	var v string
	if err := s.Query("SELECT c, v FROM kv WHERE p = 1").Scan(&c, &v); err != nil || c != 1 || v != "v1" {
		t.Fatalf("Scan = %d, %q, %v; want the first row", c, v, err)
	}
	if err := s.Query("SELECT c FROM kv WHERE p = 99").Scan(&c); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Scan of no rows: %v, want ErrNotFound", err)
	}
	m := map[string]interface{}{}
	if err := s.Query("SELECT c, v FROM kv WHERE p = 1 AND c = 2").MapScan(m); err != nil || m["c"] != 2 || m["v"] != "v2" {
		t.Fatalf("MapScan = %v, %v", m, err)
	}
	iter := s.Query("SELECT c FROM kv WHERE p = 99").Iter()
	if iter.Scan(&c) {
		t.Fatal("Iter.Scan returned a row from an empty result")
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("Iter.Close on an empty result: %v, want nil (only Query.Scan reports ErrNotFound)", err)
	}
}

func TestScanArityAndScanAfterClose(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 3)
	iter := s.Query("SELECT c, v FROM kv WHERE p = 1").Iter()
	var c int
	if iter.Scan(&c) {
		t.Fatal("Scan with too few destinations succeeded")
	}
	want := "gocql: not enough columns to scan into: have 1 want 2"
	var v string
	if iter.Scan(&c, &v) {
		t.Fatal("Scan succeeded after an arity error")
	}
	if err := iter.Close(); err == nil || err.Error() != want {
		t.Fatalf("Close = %v, want %q", err, want)
	}

	iter = s.Query("SELECT c, v FROM kv WHERE p = 1").Iter()
	if !iter.Scan(&c, &v) {
		t.Fatal(iter.Close())
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if iter.Scan(&c, &v) {
		t.Fatal("Scan after Close returned a row")
	}
	if iter.Warnings() != nil {
		t.Fatal("Warnings after Close are not nil")
	}
	// A nil destination skips its column.
	iter = s.Query("SELECT c, v FROM kv WHERE p = 1").Iter()
	v = ""
	if !iter.Scan(nil, &v) || v != "v1" {
		t.Fatalf("Scan(nil, &v) = %q, %v", v, iter.Close())
	}
	iter.Close()
}

func TestScanner(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 5)
	var nilIter *Iter
	if nilIter.Scanner() != nil {
		t.Fatal("Scanner of a nil *Iter is not nil")
	}
	sc := s.Query("SELECT c, v FROM kv WHERE p = 1").PageSize(2).Iter().Scanner()
	var c int
	var v string
	if err := sc.Scan(&c, &v); err == nil || err.Error() != "gocql: Scan called without calling Next" {
		t.Fatalf("Scan without Next: %v", err)
	}
	var rows []int
	for sc.Next() {
		if err := sc.Scan(&c); err == nil {
			t.Fatal("Scanner.Scan with one destination succeeded")
		}
		// The arity error does not poison the iterator, but the row is consumed by the
		// failed Scan; the next Next moves on.
		if !sc.Next() {
			break
		}
		if err := sc.Scan(&c, &v); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("Err = %v", err)
	}
	if len(rows) != 2 || rows[0] != 2 || rows[1] != 4 {
		t.Fatalf("rows = %v, want [2 4]", rows)
	}
}

func TestSliceMapAndRowData(t *testing.T) {
	s, _ := newTestSession(t, kvTable, "CREATE TABLE KS.tup (id int PRIMARY KEY, t tuple<int, text>)")
	insertRows(t, s, 3)
	rows, err := s.Query("SELECT c, v FROM kv WHERE p = 1").PageSize(2).Iter().SliceMap()
	if err != nil || len(rows) != 3 || rows[2]["c"] != 3 || rows[2]["v"] != "v3" {
		t.Fatalf("SliceMap = %v, %v", rows, err)
	}
	empty, err := s.Query("SELECT c, v FROM kv WHERE p = 42").Iter().SliceMap()
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("SliceMap of no rows = %#v, %v; want an empty non-nil slice", empty, err)
	}
	if _, err := s.Query("SELECT nope FROM kv").Iter().SliceMap(); err == nil {
		t.Fatal("SliceMap of a failed query returned no error")
	}
	if err := s.Query("INSERT INTO tup (id, t) VALUES (1, (7, 'seven'))").Exec(); err != nil {
		t.Fatal(err)
	}
	iter := s.Query("SELECT id, t FROM tup").Iter()
	rd, err := iter.RowData()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rd.Columns, ",") != "id,t[0],t[1]" || len(rd.Values) != 3 {
		t.Fatalf("RowData columns %v", rd.Columns)
	}
	if !iter.Scan(rd.Values...) {
		t.Fatal(iter.Close())
	}
	if *(rd.Values[1].(*int)) != 7 || *(rd.Values[2].(*string)) != "seven" {
		t.Fatalf("tuple scanned as %v %v", rd.Values[1], rd.Values[2])
	}
	iter.Close()
	m := map[string]interface{}{}
	if err := s.Query("SELECT id, t FROM tup").MapScan(m); err != nil || m[TupleColumnName("t", 1)] != "seven" {
		t.Fatalf("MapScan of a tuple = %v, %v", m, err)
	}
}

func TestGoroutinesEndAfterClose(t *testing.T) {
	before := goleak.IgnoreCurrent()
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 5)
	iter := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).Prefetch(1).Iter()
	var c int
	iter.Scan(&c) // starts the background fetch of page 2
	iter.Close()
	if _, err := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).IterAsync().Result(); err != nil {
		t.Fatal(err)
	}
	spec := &SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: time.Nanosecond}
	if err := s.Query("SELECT c FROM kv WHERE p = 1").Idempotent(true).SetSpeculativeExecutionPolicy(spec).Exec(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	opts := append(cqltest.GoleakOptions(), before)
	goleak.VerifyNone(t, opts...)
}

// unavailableKeyspace creates the keyspace KS_rf with more replicas than twice the cluster's
// nodes, and a table t in it, so that QUORUM and ALL writes fail with Unavailable whatever the
// number of nodes. It returns the keyspace name and the number of nodes (every replica that
// can be alive).
func unavailableKeyspace(t *testing.T, s *Session, ks string) (string, int) {
	t.Helper()
	var peers int
	if err := s.Query("SELECT count(*) FROM system.peers").Scan(&peers); err != nil {
		t.Fatalf("counting peers: %v", err)
	}
	nodes := peers + 1
	rks := ks + "_rf"
	rf := 2*nodes + 1
	if err := s.Query(fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}", rks, rf)).Exec(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Query("DROP KEYSPACE " + rks).Exec() })
	if err := s.Query("CREATE TABLE " + rks + ".t (id int PRIMARY KEY)").Exec(); err != nil {
		t.Fatal(err)
	}
	return rks, nodes
}
