package gocql_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// reviewRF is a keyspace (dropped after the test) with more replicas than any test cluster has
// nodes, so that writes at QUORUM or ALL fail with Unavailable (Alive > 0) and writes at ONE
// succeed.
const reviewRF = "review_compat_rf"

func createRFKeyspace(t *testing.T, p *diffPair) {
	t.Helper()
	t.Cleanup(func() {
		if err := p.legacy.Query("DROP KEYSPACE IF EXISTS " + reviewRF).Exec(); err != nil {
			t.Logf("dropping %s: %v", reviewRF, err)
		}
	})
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + reviewRF + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 7}",
		"CREATE TABLE IF NOT EXISTS " + reviewRF + ".t (id int PRIMARY KEY, v int)",
	} {
		if err := p.legacy.Query(stmt).Exec(); err != nil {
			t.Fatal(err)
		}
	}
}

// legacyRecPolicy is a gocql v1.7.0 RetryPolicy that records its calls.
type legacyRecPolicy struct {
	tr  *trace
	max int
	typ gocqlv1.RetryType
}

func (p legacyRecPolicy) Attempt(q gocqlv1.RetryableQuery) bool {
	p.tr.add("Attempt", fmt.Sprintf("%T", q), q.Attempts(), q.GetConsistency(), q.Context() != nil)
	return q.Attempts() <= p.max
}

func (p legacyRecPolicy) GetRetryType(err error) gocqlv1.RetryType {
	p.tr.add("GetRetryType", err)
	return p.typ
}

// compatRecPolicy is legacyRecPolicy for compat.
type compatRecPolicy struct {
	tr  *trace
	max int
	typ gocql.RetryType
}

func (p compatRecPolicy) Attempt(q gocql.RetryableQuery) bool {
	p.tr.add("Attempt", fmt.Sprintf("%T", q), q.Attempts(), q.GetConsistency(), q.Context() != nil)
	return q.Attempts() <= p.max
}

func (p compatRecPolicy) GetRetryType(err error) gocql.RetryType {
	p.tr.add("GetRetryType", err)
	return p.typ
}

type legacyRecObserver struct{ tr *trace }

func (o legacyRecObserver) ObserveQuery(_ context.Context, q gocqlv1.ObservedQuery) {
	o.tr.add("observe", q.Statement, q.Rows, q.Err, q.Attempt, q.Host == nil, q.Metrics != nil && q.Metrics.Attempts > 0)
}

func (o legacyRecObserver) ObserveBatch(_ context.Context, b gocqlv1.ObservedBatch) {
	o.tr.add("observe batch", len(b.Statements), b.Err, b.Attempt, b.Host == nil)
}

type compatRecObserver struct{ tr *trace }

func (o compatRecObserver) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	o.tr.add("observe", q.Statement, q.Rows, q.Err, q.Attempt, q.Host == nil, q.Metrics != nil && q.Metrics.Attempts > 0)
}

func (o compatRecObserver) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	o.tr.add("observe batch", len(b.Statements), b.Err, b.Attempt, b.Host == nil)
}

// TestReviewRetryPolicies compares what retry policies are called with, how many attempts
// are made, and the error and iterator that come back, for Unavailable errors.
func TestReviewRetryPolicies(t *testing.T) {
	p := newDiffPair(t)
	createRFKeyspace(t, p)
	const ins = "INSERT INTO " + reviewRF + ".t (id, v) VALUES (?, ?)"
	const insLit = "INSERT INTO " + reviewRF + ".t (id, v) VALUES (1, 1)"
	bo := func(n int) (*gocqlv1.ExponentialBackoffRetryPolicy, *gocql.ExponentialBackoffRetryPolicy) {
		return &gocqlv1.ExponentialBackoffRetryPolicy{NumRetries: n, Min: time.Millisecond, Max: 2 * time.Millisecond},
			&gocql.ExponentialBackoffRetryPolicy{NumRetries: n, Min: time.Millisecond, Max: 2 * time.Millisecond}
	}

	var lt, ct trace
	{
		tr := &lt
		s := p.legacy
		for _, typ := range []gocqlv1.RetryType{gocqlv1.Retry, gocqlv1.RetryNextHost, gocqlv1.Ignore, gocqlv1.Rethrow, 7} {
			for _, stmt := range []string{ins, insLit} {
				tr.add("policy type", typ, stmt)
				q := s.Query(stmt, 1, 1).Consistency(gocqlv1.Quorum).RetryPolicy(legacyRecPolicy{tr, 2, typ}).Observer(legacyRecObserver{tr})
				if stmt == insLit {
					q.Bind()
				}
				it := q.Iter()
				tr.add("iter", it.Host() == nil, it.NumRows())
				err := it.Close()
				tr.add("result", err, q.Attempts(), q.GetConsistency())
				tr.add("again", q.Exec(), q.Attempts())
			}
		}
		q := s.Query(ins, 1, 1).Consistency(gocqlv1.All).RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 3}).Observer(legacyRecObserver{tr})
		tr.add("simple", q.Exec(), q.Attempts())
		q = s.Query(ins, 1, 1).Consistency(gocqlv1.All).Observer(legacyRecObserver{tr}).
			RetryPolicy(&gocqlv1.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocqlv1.Consistency{gocqlv1.Quorum, gocqlv1.One}})
		tr.add("downgrading", q.Exec(), q.Attempts(), q.GetConsistency())
		q = s.Query(ins, 1, 1).Consistency(gocqlv1.All).Observer(legacyRecObserver{tr}).
			RetryPolicy(&gocqlv1.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocqlv1.Consistency{gocqlv1.Quorum}})
		tr.add("downgrading short", q.Exec(), q.Attempts(), q.GetConsistency())
		lb, _ := bo(2)
		q = s.Query(ins, 1, 1).Consistency(gocqlv1.All).Observer(legacyRecObserver{tr}).RetryPolicy(lb)
		tr.add("backoff", q.Exec(), q.Attempts())

		b := s.NewBatch(gocqlv1.LoggedBatch).Observer(legacyRecObserver{tr})
		b.Query(ins, 2, 2)
		b.Query(insLit)
		b.Cons = gocqlv1.All
		b.RetryPolicy(legacyRecPolicy{tr, 1, gocqlv1.Retry})
		tr.add("batch", s.ExecuteBatch(b), b.Attempts(), b.GetConsistency())
		b.RetryPolicy(&gocqlv1.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocqlv1.Consistency{gocqlv1.Quorum, gocqlv1.One}})
		tr.add("batch downgrading", s.ExecuteBatch(b), b.Attempts(), b.GetConsistency())
		b2 := s.NewBatch(gocqlv1.UnloggedBatch).Observer(legacyRecObserver{tr})
		b2.Query(ins, 3, 3)
		b2.Cons = gocqlv1.Quorum
		b2.RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 2})
		applied, it, err := s.ExecuteBatchCAS(b2)
		tr.add("batch cas error", applied, it == nil, err, b2.Attempts())
	}
	{
		tr := &ct
		s := p.compat
		for _, typ := range []gocql.RetryType{gocql.Retry, gocql.RetryNextHost, gocql.Ignore, gocql.Rethrow, 7} {
			for _, stmt := range []string{ins, insLit} {
				tr.add("policy type", typ, stmt)
				q := s.Query(stmt, 1, 1).Consistency(gocql.Quorum).RetryPolicy(compatRecPolicy{tr, 2, typ}).Observer(compatRecObserver{tr})
				if stmt == insLit {
					q.Bind()
				}
				it := q.Iter()
				tr.add("iter", it.Host() == nil, it.NumRows())
				err := it.Close()
				tr.add("result", err, q.Attempts(), q.GetConsistency())
				tr.add("again", q.Exec(), q.Attempts())
			}
		}
		q := s.Query(ins, 1, 1).Consistency(gocql.All).RetryPolicy(&gocql.SimpleRetryPolicy{NumRetries: 3}).Observer(compatRecObserver{tr})
		tr.add("simple", q.Exec(), q.Attempts())
		q = s.Query(ins, 1, 1).Consistency(gocql.All).Observer(compatRecObserver{tr}).
			RetryPolicy(&gocql.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocql.Consistency{gocql.Quorum, gocql.One}})
		tr.add("downgrading", q.Exec(), q.Attempts(), q.GetConsistency())
		q = s.Query(ins, 1, 1).Consistency(gocql.All).Observer(compatRecObserver{tr}).
			RetryPolicy(&gocql.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocql.Consistency{gocql.Quorum}})
		tr.add("downgrading short", q.Exec(), q.Attempts(), q.GetConsistency())
		_, cb := bo(2)
		q = s.Query(ins, 1, 1).Consistency(gocql.All).Observer(compatRecObserver{tr}).RetryPolicy(cb)
		tr.add("backoff", q.Exec(), q.Attempts())

		b := s.NewBatch(gocql.LoggedBatch).Observer(compatRecObserver{tr})
		b.Query(ins, 2, 2)
		b.Query(insLit)
		b.Cons = gocql.All
		b.RetryPolicy(compatRecPolicy{tr, 1, gocql.Retry})
		tr.add("batch", s.ExecuteBatch(b), b.Attempts(), b.GetConsistency())
		b.RetryPolicy(&gocql.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocql.Consistency{gocql.Quorum, gocql.One}})
		tr.add("batch downgrading", s.ExecuteBatch(b), b.Attempts(), b.GetConsistency())
		b2 := s.NewBatch(gocql.UnloggedBatch).Observer(compatRecObserver{tr})
		b2.Query(ins, 3, 3)
		b2.Cons = gocql.Quorum
		b2.RetryPolicy(&gocql.SimpleRetryPolicy{NumRetries: 2})
		applied, it, err := s.ExecuteBatchCAS(b2)
		tr.add("batch cas error", applied, it == nil, err, b2.Attempts())
	}
	sameTrace(t, &lt, &ct)
}
