package gocql

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// offlineSession is a Session that was never connected: enough to build queries and batches.
func offlineSession() *Session {
	cfg := NewCluster("127.0.0.1")
	cfg.Keyspace = "ks"
	cfg.DefaultIdempotence = true
	return &Session{cfg: *cfg, cons: cfg.Consistency, pageSize: cfg.PageSize, prefetch: 0.25}
}

func TestQueryBuildersMutateAndReturnReceiver(t *testing.T) {
	s := offlineSession()
	q := s.Query("SELECT * FROM t WHERE k = ?", 1)
	if q.GetConsistency() != Quorum || q.pageSize != 5000 || q.prefetch != 0.25 || q.rt != nil || !q.idempotent {
		t.Fatalf("defaults: cons %v pageSize %d prefetch %v rt %v idempotent %v", q.GetConsistency(), q.pageSize, q.prefetch, q.rt, q.idempotent)
	}
	if _, ok := q.spec.(*NonSpeculativeExecution); !ok {
		t.Fatalf("default speculative policy %T", q.spec)
	}
	obs := &countingObserver{}
	rt := &SimpleRetryPolicy{NumRetries: 2}
	sp := &SimpleSpeculativeExecution{NumAttempts: 1}
	chain := []*Query{
		q.Consistency(One), q.PageSize(10), q.Prefetch(0.5), q.Idempotent(false), q.PageState([]byte("x")),
		q.Bind(2), q.RetryPolicy(rt), q.Observer(obs), q.SerialConsistency(LocalSerial), q.WithTimestamp(42),
		q.DefaultTimestamp(true), q.RoutingKey([]byte{1}), q.Trace(nil), q.CustomPayload(map[string][]byte{"a": nil}),
		q.NoSkipMetadata(), q.SetSpeculativeExecutionPolicy(sp),
	}
	for i, c := range chain {
		if c != q {
			t.Fatalf("builder %d returned a different *Query", i)
		}
	}
	if q.cons != One || q.pageSize != 10 || q.prefetch != 0.5 || q.idempotent || q.serialCons != LocalSerial ||
		q.defaultTimestampValue != 42 || !q.disableSkipMetadata || q.spec != sp || q.rt != rt {
		t.Fatalf("builders did not all apply: %+v", q)
	}
	// PageState disabled auto-paging; Bind cleared the state but not the flag.
	if q.pageState != nil || !q.disableAutoPage {
		t.Fatalf("after PageState+Bind: pageState %q disableAutoPage %v", q.pageState, q.disableAutoPage)
	}
	if vs := q.Values(); len(vs) != 1 || vs[0] != 2 {
		t.Fatalf("Values = %v", vs)
	}
	if got := s.Query("x").PageState(nil); !got.disableAutoPage {
		t.Fatal("PageState(nil) did not disable auto-paging")
	}
}

func TestWithContextIsAShallowCopy(t *testing.T) {
	s := offlineSession()
	q := s.Query("SELECT * FROM t WHERE k = ?", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := q.WithContext(ctx)
	if c == q {
		t.Fatal("WithContext returned the receiver")
	}
	if c.Context() != ctx || q.Context() != context.Background() {
		t.Fatal("contexts not set as expected")
	}
	c.Consistency(All)
	if q.GetConsistency() == All {
		t.Fatal("changing the copy changed the original")
	}
	c.AddAttempts(3, nil)
	if q.Attempts() != 3 {
		t.Fatalf("metrics are not shared: original Attempts = %d", q.Attempts())
	}
	b := s.NewBatch(LoggedBatch)
	if b2 := b.WithContext(ctx); b2 == b || b2.Context() != ctx || b.Context() != context.Background() {
		t.Fatal("Batch.WithContext is not a copy with the new context")
	}
}

func TestSessionDefaultsApplyToLaterQueries(t *testing.T) {
	s := offlineSession()
	before := s.Query("x")
	s.SetConsistency(LocalOne)
	s.SetPageSize(7)
	s.SetPrefetch(0.9)
	after := s.Query("x")
	if before.cons != Quorum || before.pageSize != 5000 {
		t.Fatal("session setters changed an existing query")
	}
	if after.cons != LocalOne || after.pageSize != 7 || after.prefetch != 0.9 {
		t.Fatalf("new query did not take the new defaults: %+v", after)
	}
	if b := s.NewBatch(UnloggedBatch); b.Cons != LocalOne || b.Keyspace() != "ks" {
		t.Fatalf("NewBatch defaults: cons %v keyspace %q", b.Cons, b.Keyspace())
	}
	if b := NewBatch(LoggedBatch); b.Cons != Any || b.rt != nil {
		t.Fatal("package-level NewBatch has session defaults")
	}
}

func TestQueryUseStatementAndRelease(t *testing.T) {
	s := offlineSession()
	if err := s.Query("USE other").Exec(); !errors.Is(err, ErrUseStmt) {
		t.Fatalf("USE: %v, want ErrUseStmt", err)
	}
	q := s.Query("SELECT 1")
	q.Release()
	if q.Statement() != "" {
		t.Fatalf("Statement after Release = %q", q.Statement())
	}
}

func TestBatchBuilding(t *testing.T) {
	s := offlineSession()
	b := s.NewBatch(LoggedBatch)
	if !b.IsIdempotent() {
		t.Fatal("an empty batch is idempotent in gocql")
	}
	b.Query("INSERT INTO t (k) VALUES (?)", 1)
	b.Entries = append(b.Entries, BatchEntry{Stmt: "INSERT INTO t (k) VALUES (2)", Idempotent: true})
	if b.Size() != 2 || b.IsIdempotent() {
		t.Fatalf("Size %d IsIdempotent %v", b.Size(), b.IsIdempotent())
	}
	big := s.NewBatch(UnloggedBatch)
	big.Entries = make([]BatchEntry, BatchSizeMaximum+1)
	s.closed.Store(false)
	if it := s.executeBatch(big); !errors.Is(it.err, ErrTooManyStmts) {
		t.Fatalf("oversized batch: %v, want ErrTooManyStmts", it.err)
	}
}

func TestShouldPrepare(t *testing.T) {
	for stmt, want := range map[string]bool{
		"SELECT * FROM t":                           true,
		"  insert into t (a) values (1);":           true,
		"UPDATE t SET a = 1 WHERE k = 1":            true,
		"DELETE FROM t WHERE k = 1":                 true,
		"BEGIN BATCH INSERT INTO t ... APPLY BATCH": true,
		"CREATE TABLE t (k int PRIMARY KEY)":        false,
		"TRUNCATE t":                                false,
	} {
		if got := shouldPrepare(stmt); got != want {
			t.Errorf("shouldPrepare(%q) = %v, want %v", stmt, got, want)
		}
	}
}

// TestLowerIsMatchesToLower checks the allocation-free comparison shouldPrepare uses against
// the strings.ToLower comparison it replaces, including non-ASCII letters that lower-case to
// ASCII ones (KELVIN SIGN, LATIN CAPITAL LETTER I WITH DOT ABOVE) or fold without lowering.
func TestLowerIsMatchesToLower(t *testing.T) {
	words := []string{"select", "insert", "update", "delete", "batch", "begin"}
	inputs := []string{"", "SELECT", "select", "SeLeCt", "selects", "selec", "INSERT", "\u0130NSERT",
		"\u212AEY", "BATCH", "BEGIN", "begin\u00e9", "\u017FELECT", "DELETE", "UPDATE", "Update", "upd@te", "[elect"}
	for _, in := range inputs {
		for _, w := range words {
			if got, want := lowerIs(in, w), strings.ToLower(in) == w; got != want {
				t.Errorf("lowerIs(%q, %q) = %v, strings.ToLower says %v", in, w, got, want)
			}
		}
	}
}
