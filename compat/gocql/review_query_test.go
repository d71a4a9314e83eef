package gocql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// legacyNoHosts is a gocql v1.7.0 host selection policy whose plans are empty.
type legacyNoHosts struct{ gocqlv1.HostSelectionPolicy }

func (legacyNoHosts) Pick(gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	return func() gocqlv1.SelectedHost { return nil }
}

// compatNoHosts is legacyNoHosts for compat.
type compatNoHosts struct{ gocql.HostSelectionPolicy }

func (compatNoHosts) Pick(gocql.ExecutableQuery) gocql.NextHost {
	return func() gocql.SelectedHost { return nil }
}

func legacySentinels() map[string]error {
	return map[string]error{
		"ErrNotFound": gocqlv1.ErrNotFound, "ErrNoConnections": gocqlv1.ErrNoConnections,
		"ErrSessionClosed": gocqlv1.ErrSessionClosed, "ErrUseStmt": gocqlv1.ErrUseStmt,
		"ErrTooManyStmts": gocqlv1.ErrTooManyStmts, "ErrUnknownRetryType": gocqlv1.ErrUnknownRetryType,
		"Canceled": context.Canceled, "DeadlineExceeded": context.DeadlineExceeded,
	}
}

func compatSentinels() map[string]error {
	return map[string]error{
		"ErrNotFound": gocql.ErrNotFound, "ErrNoConnections": gocql.ErrNoConnections,
		"ErrSessionClosed": gocql.ErrSessionClosed, "ErrUseStmt": gocql.ErrUseStmt,
		"ErrTooManyStmts": gocql.ErrTooManyStmts, "ErrUnknownRetryType": gocql.ErrUnknownRetryType,
		"Canceled": context.Canceled, "DeadlineExceeded": context.DeadlineExceeded,
	}
}

// TestReviewQueryOptionsAndErrors compares the Query and Batch builders' effects and the
// errors (values and identities) returned in the usual failure cases.
func TestReviewQueryOptionsAndErrors(t *testing.T) {
	p := newDiffPair(t, reviewKV)
	fillKV(t, p, 3)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(1, 0))
	defer cancel2()

	var lt, ct trace
	{
		tr := &lt
		s := p.legacy
		row := 5
		sent := legacySentinels()
		errOf := func(label string, err error) { tr.add(label, err, isSentinel(err, sent)) }
		var c int
		errOf("not found", s.Query("SELECT c FROM review_kv WHERE p = 9").Scan(&c))
		errOf("use", s.Query("use system").Exec())
		errOf("USE iter", s.Query("USE review_compat").Iter().Close())
		errOf("too few values", s.Query("SELECT c FROM review_kv WHERE p = ?").Exec())
		errOf("too many values", s.Query("SELECT c FROM review_kv WHERE p = ?", 1, 2).Exec())
		errOf("unmarshal value", s.Query("SELECT c FROM review_kv WHERE p = ?", "x").Exec())
		errOf("cancelled", s.Query("SELECT c FROM review_kv WHERE p = 1").WithContext(cancelled).Exec())
		errOf("expired", s.Query("SELECT c FROM review_kv WHERE p = 1").WithContext(expired).Exec())
		errOf("unknown keyspace", s.Query("SELECT * FROM nope.nope").Exec())
		errOf("unprepared syntax", s.Query("CREATE TABLE (").Exec())
		errOf("already exists", s.Query("CREATE TABLE review_kv (p int PRIMARY KEY)").Exec())
		errOf("consistency any read", s.Query("SELECT c FROM review_kv WHERE p = 1").Consistency(gocqlv1.Any).Exec())
		errOf("unknown retry type", s.Query("SELECT nope FROM review_kv").RetryPolicy(legacyRecPolicy{&trace{}, 3, 9}).Exec())

		q := s.Query("SELECT c FROM review_kv WHERE p = ?", 1).PageSize(1)
		c2 := q.WithContext(context.Background())
		c2.Bind(2).PageSize(5)
		tr.add("withcontext copy", q.Values(), c2.Values(), q.Attempts(), c2.Attempts())
		tr.add("exec copy", c2.Exec(), q.Attempts(), c2.Attempts())
		q.Release()
		tr.add("released", q.Statement(), q.Values() == nil)

		q = s.Query("INSERT INTO review_kv (p, c, v) VALUES (?, 1, 'ts')").Bind(row).WithTimestamp(1234567)
		tr.add("with timestamp", q.Exec())
		var wt int64
		tr.add("writetime", s.Query("SELECT writetime(v) FROM review_kv WHERE p = ? AND c = 1", row).Scan(&wt), wt)
		q = s.Query("INSERT INTO review_kv (p, c, v) VALUES (?, 1, 'ts2')").Bind(row).WithTimestamp(1000).DefaultTimestamp(false)
		tr.add("timestamp disabled", q.Exec())
		tr.add("writetime", s.Query("SELECT writetime(v) FROM review_kv WHERE p = ? AND c = 1", row).Scan(&wt), wt > 1234567)

		// The binder is not traced on each call: gocql v1.7.0 calls it even when the
		// batch's context is already cancelled (see the review report).
		var binds []int
		b := s.NewBatch(gocqlv1.UnloggedBatch)
		b.Bind("INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)", func(qi *gocqlv1.QueryInfo) ([]interface{}, error) {
			binds = append(binds, len(qi.Args), len(qi.PKeyColumns))
			return []interface{}{6, 1, "b"}, nil
		})
		b.Query("INSERT INTO review_kv (p, c, v) VALUES (6, 2, 'b')")
		b.Entries = append(b.Entries, gocqlv1.BatchEntry{Stmt: "INSERT INTO review_kv (p, c, v) VALUES (?, 3, 'b')", Args: []interface{}{6}, Idempotent: true})
		tr.add("batch size", b.Size(), b.IsIdempotent(), b.GetConsistency())
		errOf("batch", s.ExecuteBatch(b))
		tr.add("binder calls", binds)
		errOf("batch cancelled", s.ExecuteBatch(b.WithContext(cancelled)))
		b.Entries[0] = gocqlv1.BatchEntry{Stmt: "INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)", Args: []interface{}{1}}
		errOf("batch bad count", s.ExecuteBatch(b))
		big := s.NewBatch(gocqlv1.UnloggedBatch)
		big.Entries = make([]gocqlv1.BatchEntry, gocqlv1.BatchSizeMaximum+1)
		errOf("too many", s.ExecuteBatch(big))

		cfg := gocqlv1.NewCluster(p.hosts...)
		cfg.Keyspace = reviewKeyspace
		cfg.PoolConfig.HostSelectionPolicy = legacyNoHosts{gocqlv1.RoundRobinHostPolicy()}
		ns, err := cfg.CreateSession()
		tr.add("no hosts session", err)
		if err == nil {
			it := ns.Query("SELECT c FROM review_kv WHERE p = 1").Iter()
			tr.add("no hosts iter", it.Host() == nil, it.NumRows())
			errOf("no hosts", it.Close())
			nb := ns.NewBatch(gocqlv1.LoggedBatch)
			nb.Query("INSERT INTO review_kv (p, c, v) VALUES (7, 1, 'x')")
			errOf("no hosts batch", ns.ExecuteBatch(nb))
			ns.Close()
			errOf("closed", ns.Query("SELECT c FROM review_kv WHERE p = 1").Exec())
			errOf("closed batch", ns.ExecuteBatch(nb))
			_, err = ns.Query("INSERT INTO review_kv (p, c, v) VALUES (7, 1, 'x') IF NOT EXISTS").ScanCAS()
			errOf("closed cas", err)
		}
	}
	{
		tr := &ct
		s := p.compat
		row := 15
		sent := compatSentinels()
		errOf := func(label string, err error) { tr.add(label, err, isSentinel(err, sent)) }
		var c int
		errOf("not found", s.Query("SELECT c FROM review_kv WHERE p = 9").Scan(&c))
		errOf("use", s.Query("use system").Exec())
		errOf("USE iter", s.Query("USE review_compat").Iter().Close())
		errOf("too few values", s.Query("SELECT c FROM review_kv WHERE p = ?").Exec())
		errOf("too many values", s.Query("SELECT c FROM review_kv WHERE p = ?", 1, 2).Exec())
		errOf("unmarshal value", s.Query("SELECT c FROM review_kv WHERE p = ?", "x").Exec())
		errOf("cancelled", s.Query("SELECT c FROM review_kv WHERE p = 1").WithContext(cancelled).Exec())
		errOf("expired", s.Query("SELECT c FROM review_kv WHERE p = 1").WithContext(expired).Exec())
		errOf("unknown keyspace", s.Query("SELECT * FROM nope.nope").Exec())
		errOf("unprepared syntax", s.Query("CREATE TABLE (").Exec())
		errOf("already exists", s.Query("CREATE TABLE review_kv (p int PRIMARY KEY)").Exec())
		errOf("consistency any read", s.Query("SELECT c FROM review_kv WHERE p = 1").Consistency(gocql.Any).Exec())
		errOf("unknown retry type", s.Query("SELECT nope FROM review_kv").RetryPolicy(compatRecPolicy{&trace{}, 3, 9}).Exec())

		q := s.Query("SELECT c FROM review_kv WHERE p = ?", 1).PageSize(1)
		c2 := q.WithContext(context.Background())
		c2.Bind(2).PageSize(5)
		tr.add("withcontext copy", q.Values(), c2.Values(), q.Attempts(), c2.Attempts())
		tr.add("exec copy", c2.Exec(), q.Attempts(), c2.Attempts())
		q.Release()
		tr.add("released", q.Statement(), q.Values() == nil)

		q = s.Query("INSERT INTO review_kv (p, c, v) VALUES (?, 1, 'ts')").Bind(row).WithTimestamp(1234567)
		tr.add("with timestamp", q.Exec())
		var wt int64
		tr.add("writetime", s.Query("SELECT writetime(v) FROM review_kv WHERE p = ? AND c = 1", row).Scan(&wt), wt)
		q = s.Query("INSERT INTO review_kv (p, c, v) VALUES (?, 1, 'ts2')").Bind(row).WithTimestamp(1000).DefaultTimestamp(false)
		tr.add("timestamp disabled", q.Exec())
		tr.add("writetime", s.Query("SELECT writetime(v) FROM review_kv WHERE p = ? AND c = 1", row).Scan(&wt), wt > 1234567)

		// The binder is not traced on each call: gocql v1.7.0 calls it even when the
		// batch's context is already cancelled (see the review report).
		var binds []int
		b := s.NewBatch(gocql.UnloggedBatch)
		b.Bind("INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)", func(qi *gocql.QueryInfo) ([]interface{}, error) {
			binds = append(binds, len(qi.Args), len(qi.PKeyColumns))
			return []interface{}{6, 1, "b"}, nil
		})
		b.Query("INSERT INTO review_kv (p, c, v) VALUES (6, 2, 'b')")
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: "INSERT INTO review_kv (p, c, v) VALUES (?, 3, 'b')", Args: []interface{}{6}, Idempotent: true})
		tr.add("batch size", b.Size(), b.IsIdempotent(), b.GetConsistency())
		errOf("batch", s.ExecuteBatch(b))
		tr.add("binder calls", binds)
		errOf("batch cancelled", s.ExecuteBatch(b.WithContext(cancelled)))
		b.Entries[0] = gocql.BatchEntry{Stmt: "INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)", Args: []interface{}{1}}
		errOf("batch bad count", s.ExecuteBatch(b))
		big := s.NewBatch(gocql.UnloggedBatch)
		big.Entries = make([]gocql.BatchEntry, gocql.BatchSizeMaximum+1)
		errOf("too many", s.ExecuteBatch(big))

		cfg := gocql.NewCluster(p.hosts...)
		cfg.Keyspace = reviewKeyspace
		cfg.PoolConfig.HostSelectionPolicy = compatNoHosts{gocql.RoundRobinHostPolicy()}
		ns, err := cfg.CreateSession()
		tr.add("no hosts session", err)
		if err == nil {
			it := ns.Query("SELECT c FROM review_kv WHERE p = 1").Iter()
			tr.add("no hosts iter", it.Host() == nil, it.NumRows())
			errOf("no hosts", it.Close())
			nb := ns.NewBatch(gocql.LoggedBatch)
			nb.Query("INSERT INTO review_kv (p, c, v) VALUES (7, 1, 'x')")
			errOf("no hosts batch", ns.ExecuteBatch(nb))
			ns.Close()
			errOf("closed", ns.Query("SELECT c FROM review_kv WHERE p = 1").Exec())
			errOf("closed batch", ns.ExecuteBatch(nb))
			_, err = ns.Query("INSERT INTO review_kv (p, c, v) VALUES (7, 1, 'x') IF NOT EXISTS").ScanCAS()
			errOf("closed cas", err)
		}
	}
	sameTrace(t, &lt, &ct)
}

// GetRoutingKey finds the partition key of a DML statement that starts with comments, as gocql
// does (it prepares any statement there, even one it runs unprepared), on a query and on a
// batch's first entry.
func TestReviewRoutingKeyOfCommentedStatement(t *testing.T) {
	p := newDiffPair(t, reviewKV)
	for _, stmt := range []string{
		"SELECT c, v FROM review_kv WHERE p = ?",
		"/* app=x */ SELECT c, v FROM review_kv WHERE p = ?",
		"/* a */ /* b */\n\tSELECT c, v FROM review_kv WHERE p = ?",
		"-- app=x\nSELECT c, v FROM review_kv WHERE p = ?",
		"// app=x\nINSERT INTO review_kv (p, c, v) VALUES (?, 1, 'x')",
		"SELECT c, v FROM review_kv WHERE p=?;",
	} {
		var lt, ct trace
		lq := p.legacy.Query(stmt, 7)
		lk, lerr := lq.GetRoutingKey()
		lt.add("query", lk, lerr, lq.Keyspace(), lq.Table())
		lb := p.legacy.NewBatch(gocqlv1.UnloggedBatch)
		lb.Query(stmt, 7)
		lk, lerr = lb.GetRoutingKey()
		lt.add("batch", lk, lerr)
		cq := p.compat.Query(stmt, 7)
		ck, cerr := cq.GetRoutingKey()
		ct.add("query", ck, cerr, cq.Keyspace(), cq.Table())
		cb := p.compat.NewBatch(gocql.UnloggedBatch)
		cb.Query(stmt, 7)
		ck, cerr = cb.GetRoutingKey()
		ct.add("batch", ck, cerr)
		if d := cmp.Diff(lt.steps, ct.steps); d != "" {
			t.Errorf("%q: (-gocql +compat)\n%s", stmt, d)
		}
		if len(ct.steps) == 0 || !strings.Contains(ct.steps[0], "00000007") {
			t.Errorf("%q: no routing key: %v", stmt, ct.steps)
		}
	}
}

// NamedValue (docs/deviations.md G50): gocql v1.7.0 refuses named values in a batch, and
// marshals a query's named values by position, so given out of order they fail to marshal;
// the shim binds them by name in both, and the rows say so.
func TestReviewNamedValuesBoundByName(t *testing.T) {
	p := newDiffPair(t, reviewKV)
	const ins = "INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)"
	lb := p.legacy.NewBatch(gocqlv1.LoggedBatch)
	lb.Query(ins, gocqlv1.NamedValue("p", 5), gocqlv1.NamedValue("c", 1), gocqlv1.NamedValue("v", "x"))
	if err := p.legacy.ExecuteBatch(lb); err == nil || !strings.Contains(err.Error(), "named query values are not supported in batches") {
		t.Errorf("gocql ExecuteBatch with named values: %v", err)
	}
	cb := p.compat.NewBatch(gocql.LoggedBatch)
	cb.Query(ins, gocql.NamedValue("p", 5), gocql.NamedValue("c", 1), gocql.NamedValue("v", "x"))
	if err := p.compat.ExecuteBatch(cb); err != nil {
		t.Errorf("compat ExecuteBatch with named values: %v", err)
	}
	const named = "INSERT INTO review_kv (p, c, v) VALUES (:p, :c, :v)"
	if err := p.legacy.Query(named, gocqlv1.NamedValue("v", "y"), gocqlv1.NamedValue("p", 6), gocqlv1.NamedValue("c", 1)).Exec(); err == nil {
		t.Error("gocql: named values out of order were marshalled")
	}
	if err := p.compat.Query(named, gocql.NamedValue("v", "y"), gocql.NamedValue("p", 6), gocql.NamedValue("c", 1)).Exec(); err != nil {
		t.Errorf("compat: named values out of order: %v", err)
	}
	for _, want := range []struct {
		p int
		v string
	}{{5, "x"}, {6, "y"}} {
		var v string
		if err := p.compat.Query("SELECT v FROM review_kv WHERE p = ? AND c = 1", want.p).Scan(&v); err != nil || v != want.v {
			t.Errorf("row p=%d: %q, %v; want %q", want.p, v, err, want.v)
		}
	}
}
