package gocql

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestScanCASAndMapScanCAS(t *testing.T) {
	s, _ := newTestSession(t, "CREATE TABLE KS.users (id int PRIMARY KEY, name text, age int)")
	ins := "INSERT INTO users (id, name, age) VALUES (?, ?, ?) IF NOT EXISTS"
	var name string
	var age, id int
	applied, err := s.Query(ins, 1, "ann", 30).ScanCAS(&id, &age, &name)
	if err != nil || !applied {
		t.Fatalf("first insert: applied %v, %v", applied, err)
	}
	applied, err = s.Query(ins, 1, "bob", 40).ScanCAS(&id, &age, &name)
	if err != nil || applied || name != "ann" || age != 30 || id != 1 {
		t.Fatalf("second insert: applied %v name %q age %d err %v; want false with the current row", applied, name, age, err)
	}
	if _, err := s.Query(ins, 1, "bob", 40).ScanCAS(&name); err == nil || err.Error() != "gocql: not enough columns to scan into: have 2 want 4" {
		t.Fatalf("wrong destination count: %v", err)
	}
	m := map[string]interface{}{}
	applied, err = s.Query("UPDATE users SET age = ? WHERE id = ? IF name = ?", 31, 1, "zed").MapScanCAS(m)
	if err != nil || applied || m["name"] != "ann" {
		t.Fatalf("MapScanCAS: applied %v map %v err %v", applied, m, err)
	}
	if _, ok := m["[applied]"]; ok {
		t.Fatal("MapScanCAS left [applied] in the map")
	}
	// gocql panics here; the shim reports an error.
	_, err = s.Query("SELECT name FROM users WHERE id = 1").MapScanCAS(map[string]interface{}{})
	if err == nil {
		t.Fatal("MapScanCAS on a non-conditional statement returned no error")
	}
}

func TestBatches(t *testing.T) {
	s, _ := newTestSession(t, "CREATE TABLE KS.b (p int, c int, v text, PRIMARY KEY (p, c))")
	obs := &batchObserver{}
	b := s.NewBatch(LoggedBatch).Observer(obs)
	b.Query("INSERT INTO b (p, c, v) VALUES (?, ?, ?)", 1, 1, "a")
	b.Query("INSERT INTO b (p, c, v) VALUES (1, 2, 'b')")
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatalf("ExecuteBatch: %v", err)
	}
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatalf("ExecuteBatch again: %v", err)
	}
	if got := obs.all(); len(got) != 2 || got[0].Attempt != 0 || got[1].Attempt != 1 || len(got[0].Statements) != 2 || got[0].Err != nil {
		t.Fatalf("batch observations: %+v", got)
	}
	rows, err := s.Query("SELECT c, v FROM b WHERE p = 1").Iter().SliceMap()
	if err != nil || len(rows) != 2 || rows[1]["v"] != "b" {
		t.Fatalf("rows after batch: %v, %v", rows, err)
	}

	cas := s.NewBatch(LoggedBatch)
	cas.Query("INSERT INTO b (p, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 1, 1, "z")
	var p, c int
	var v string
	applied, iter, err := s.ExecuteBatchCAS(cas, &p, &c, &v)
	if err != nil || applied || v != "a" || iter == nil {
		t.Fatalf("ExecuteBatchCAS: applied %v v %q iter %v err %v", applied, v, iter, err)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	cas2 := s.NewBatch(LoggedBatch)
	cas2.Query("INSERT INTO b (p, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 1, 3, "c")
	m := map[string]interface{}{}
	applied, iter, err = s.MapExecuteBatchCAS(cas2, m)
	if err != nil || !applied {
		t.Fatalf("MapExecuteBatchCAS: applied %v err %v", applied, err)
	}
	iter.Close()

	bad := s.NewBatch(LoggedBatch)
	bad.Query("INSERT INTO b (p, c, v) VALUES (?, ?, ?)", 1)
	if err := s.ExecuteBatch(bad); err == nil {
		t.Fatal("batch entry with too few values succeeded")
	}
}

type batchObserver struct {
	mu  sync.Mutex
	got []ObservedBatch
}

func (o *batchObserver) ObserveBatch(_ context.Context, b ObservedBatch) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, b)
}

func (o *batchObserver) all() []ObservedBatch {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]ObservedBatch(nil), o.got...)
}

func TestServerErrorsCarryTheirFields(t *testing.T) {
	s, ks := newTestSession(t, "CREATE TABLE KS.t (id int PRIMARY KEY)")
	err := s.Query("SELEKT * FROM t").Exec()
	var re RequestError
	if !errors.As(err, &re) || re.Code() != ErrCodeSyntax || re.Message() == "" {
		t.Fatalf("syntax error: %T %v", err, err)
	}
	err = s.Query("CREATE TABLE t (id int PRIMARY KEY)").Exec()
	var ae *RequestErrAlreadyExists
	if !errors.As(err, &ae) || ae.Keyspace != ks || ae.Table != "t" || ae.Code() != ErrCodeAlreadyExists {
		t.Fatalf("already exists: %T %v", err, err)
	}
	err = s.Query("SELECT * FROM nope").Exec()
	if !errors.As(err, &re) || re.Code() != ErrCodeInvalid {
		t.Fatalf("invalid: %T %v", err, err)
	}
	if err := s.Query("INSERT INTO t (id) VALUES (?)").Exec(); err == nil || err.Error() != "gocql: expected 1 values send got 0" {
		t.Fatalf("bind count: %v", err)
	}

	// Unavailable: a keyspace asking for more replicas than the cluster has nodes.
	rks, nodes := unavailableKeyspace(t, s, ks)
	err = s.Query("INSERT INTO "+rks+".t (id) VALUES (?)", 1).Consistency(Quorum).Exec()
	var ue *RequestErrUnavailable
	if !errors.As(err, &ue) || ue.Consistency != Quorum || ue.Required != nodes+1 || ue.Alive != nodes {
		t.Fatalf("unavailable on %d nodes: %T %v", nodes, err, err)
	}
}

// countingRetry retries on the same host while Attempts() <= max.
type countingRetry struct{ max int }

func (r countingRetry) Attempt(q RetryableQuery) bool { return q.Attempts() <= r.max }
func (r countingRetry) GetRetryType(error) RetryType  { return Retry }

func TestRetriesAccumulateOnTheQuery(t *testing.T) {
	s, ks := newTestSession(t)
	rks, nodes := unavailableKeyspace(t, s, ks)
	obs := &countingObserver{}
	q := s.Query("INSERT INTO "+rks+".t (id) VALUES (?)", 1).Consistency(Quorum).
		RetryPolicy(countingRetry{max: 2}).Observer(obs)
	var ue *RequestErrUnavailable
	if err := q.Exec(); !errors.As(err, &ue) {
		t.Fatalf("Exec: %v", err)
	}
	if n := len(obs.all()); n != 3 || q.Attempts() != 3 {
		t.Fatalf("first Exec: %d attempts observed, Attempts() = %d; want 3 (non-idempotent queries are retried)", n, q.Attempts())
	}
	if err := q.Exec(); !errors.As(err, &ue) {
		t.Fatalf("second Exec: %v", err)
	}
	got := obs.all()
	if len(got) != 4 || got[3].Attempt != 3 {
		t.Fatalf("second Exec: %d observations, last Attempt %d; want one more attempt numbered 3", len(got), got[len(got)-1].Attempt)
	}
	// SimpleRetryPolicy always moves to the next host: each node is tried once, so with one
	// node nothing is retried.
	q2 := s.Query("INSERT INTO "+rks+".t (id) VALUES (?)", 1).Consistency(Quorum).RetryPolicy(&SimpleRetryPolicy{NumRetries: 3})
	q2.Exec()
	if want := min(nodes, 4); q2.Attempts() != want {
		t.Fatalf("SimpleRetryPolicy{NumRetries: 3} on %d nodes: %d attempts, want %d", nodes, q2.Attempts(), want)
	}
}

func TestContextCancellation(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	obs := &countingObserver{}
	err := s.Query("SELECT c FROM kv WHERE p = 1").WithContext(ctx).Observer(obs).Exec()
	if err != context.Canceled {
		t.Fatalf("cancelled context: %v, want context.Canceled", err)
	}
	if got := obs.all(); len(got) != 1 || got[0].Err != context.Canceled {
		t.Fatalf("observer: %+v, want one call with context.Canceled", got)
	}
	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	if err := s.Query("SELECT c FROM kv WHERE p = 1").WithContext(dctx).Exec(); err != context.DeadlineExceeded {
		t.Fatalf("expired deadline: %v, want context.DeadlineExceeded", err)
	}
}

func TestIterTwiceRunsTwice(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	q := s.Query("SELECT c FROM kv WHERE p = 1")
	a, b := q.Iter(), q.Iter()
	if a == b || a.Close() != nil || b.Close() != nil || q.Attempts() != 2 {
		t.Fatalf("two Iter calls: same %v, Attempts %d", a == b, q.Attempts())
	}
}

func TestKeyspaceMetadataAndNative(t *testing.T) {
	s, ks := newTestSession(t, kvTable, "CREATE TYPE KS.addr (street text, nums list<int>)",
		"CREATE TABLE KS.people (id uuid, grp int, name text, a frozen<addr>, PRIMARY KEY ((id, grp), name)) WITH CLUSTERING ORDER BY (name DESC)")
	md, err := s.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatal(err)
	}
	if md.StrategyClass == "" || md.StrategyOptions["replication_factor"] != "1" {
		t.Fatalf("replication: %q %v", md.StrategyClass, md.StrategyOptions)
	}
	people := md.Tables["people"]
	if people == nil || len(people.PartitionKey) != 2 || people.PartitionKey[1].Name != "grp" ||
		len(people.ClusteringColumns) != 1 || people.ClusteringColumns[0].Order != DESC {
		t.Fatalf("people metadata: %+v", people)
	}
	// As in gocql v1.7.0, a UDT column's schema type is TypeCustom, not a UDTTypeInfo.
	if typ := people.Columns["a"].Type; typ.Type() != TypeCustom || people.Columns["a"].Validator != "frozen<addr>" {
		t.Fatalf("UDT column type: %#v (validator %q)", typ, people.Columns["a"].Validator)
	}
	if got := strings.Join(people.OrderedColumns, ","); got != "a,grp,id,name" {
		t.Fatalf("OrderedColumns = %s, want the server's (alphabetical) order", got)
	}
	if md.UserTypes["addr"] == nil {
		t.Fatal("user type addr missing")
	}
	if _, err := s.KeyspaceMetadata("no_such_ks_cqlbridge"); !errors.Is(err, ErrKeyspaceDoesNotExist) {
		t.Fatalf("missing keyspace: %v", err)
	}

	// The native session shares the connections of the gocql session.
	if err := s.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 9, 1, "nine").Exec(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Native().Execute(context.Background(), nativeQuery("SELECT v FROM "+ks+".kv WHERE p = 9"))
	if err != nil || res.Len() != 1 {
		t.Fatalf("native query on the shared session: %v", err)
	}
}

// An empty batch is sent as it is, as gocql v1.7.0 does: Cassandra 5 runs it, so
// ExecuteBatch succeeds for every batch type, and ExecuteBatchCAS gets no rows: not applied,
// no iterator, ErrNotFound.
func TestEmptyBatch(t *testing.T) {
	s, _ := newTestSession(t)
	for _, typ := range []BatchType{LoggedBatch, UnloggedBatch, CounterBatch} {
		if err := s.ExecuteBatch(s.NewBatch(typ)); err != nil {
			t.Errorf("ExecuteBatch of an empty batch of type %d: %v", typ, err)
		}
	}
	applied, iter, err := s.ExecuteBatchCAS(s.NewBatch(LoggedBatch))
	if applied || iter != nil || !errors.Is(err, ErrNotFound) {
		t.Errorf("ExecuteBatchCAS of an empty batch = %v, %v, %v; want false, nil, ErrNotFound", applied, iter, err)
	}
}
