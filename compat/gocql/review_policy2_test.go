package gocql

import (
	"errors"
	"testing"

	gocqlv1 "github.com/gocql/gocql"
)

// The tests of this file compare compat's host selection with gocql v1.7.0's on one cqlsim
// cluster: what a plan of a custom policy yields, and how the session runs it.

// entriesFirst is a policy whose plans start with the given entries (made for each plan by
// make), then follow the wrapped policy.
type entriesFirst struct {
	HostSelectionPolicy
	make func() []SelectedHost
}

func (p *entriesFirst) Pick(q ExecutableQuery) NextHost {
	next, first := p.HostSelectionPolicy.Pick(q), p.make()
	return func() SelectedHost {
		if len(first) > 0 {
			h := first[0]
			first = first[1:]
			return h
		}
		return next()
	}
}

// legacyEntriesFirst is entriesFirst for gocql v1.7.0.
type legacyEntriesFirst struct {
	gocqlv1.HostSelectionPolicy
	make func() []gocqlv1.SelectedHost
}

func (p *legacyEntriesFirst) Pick(q gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	next, first := p.HostSelectionPolicy.Pick(q), p.make()
	return func() gocqlv1.SelectedHost {
		if len(first) > 0 {
			h := first[0]
			first = first[1:]
			return h
		}
		return next()
	}
}

// emptyPlan is a policy whose plans are empty.
type emptyPlan struct{ HostSelectionPolicy }

func (emptyPlan) Pick(ExecutableQuery) NextHost { return func() SelectedHost { return nil } }

type legacyEmptyPlan struct{ gocqlv1.HostSelectionPolicy }

func (legacyEmptyPlan) Pick(gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	return func() gocqlv1.SelectedHost { return nil }
}

// noInfo is a SelectedHost without a host.
type noInfo struct{ marks *[]error }

func (noInfo) Info() *HostInfo  { return nil }
func (n noInfo) Mark(err error) { *n.marks = append(*n.marks, err) }

// TestReviewPolicyEntryWithoutHostIsSkipped: gocql v1.7.0 skips a plan entry whose Info() is
// nil (or a HostInfo of no node it has a pool for, such as a zero HostInfo), without an
// attempt: a plan made only of such entries fails with ErrNoConnections.
func TestReviewPolicyEntryWithoutHostIsSkipped(t *testing.T) {
	_, s, ls := failoverSessions(t, 3, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = &entriesFirst{emptyPlan{RoundRobinHostPolicy()}, func() []SelectedHost {
			var marks []error
			return []SelectedHost{noInfo{&marks}, (*selectedHost)(nil), (*selectedHost)(&HostInfo{})}
		}}
		l.PoolConfig.HostSelectionPolicy = &legacyEntriesFirst{legacyEmptyPlan{gocqlv1.RoundRobinHostPolicy()}, func() []gocqlv1.SelectedHost {
			return []gocqlv1.SelectedHost{legacySelected{nil}, legacySelected{&gocqlv1.HostInfo{}}}
		}}
	})
	const stmt = "SELECT key FROM system.local"
	lerr := ls.Query(stmt).Exec()
	if !errors.Is(lerr, gocqlv1.ErrNoConnections) {
		t.Fatalf("gocql v1.7.0: %v, the test expects ErrNoConnections", lerr)
	}
	obs := &countingObserver{}
	q := s.Query(stmt).Observer(obs)
	if err := q.Exec(); err != ErrNoConnections || len(obs.all()) != 0 || q.Attempts() != 0 {
		t.Fatalf("plan of entries without a node: %v, %d observed attempts, Attempts %d; want ErrNoConnections and no attempt, as gocql v1.7.0", err, len(obs.all()), q.Attempts())
	}
}

// nilPlan is a policy whose Pick returns no plan (a nil NextHost).
type nilPlan struct{ HostSelectionPolicy }

func (nilPlan) Pick(ExecutableQuery) NextHost { return nil }

type legacyNilPlan struct{ gocqlv1.HostSelectionPolicy }

func (legacyNilPlan) Pick(gocqlv1.ExecutableQuery) gocqlv1.NextHost { return nil }

// TestReviewPolicyNilPlan: a policy whose Pick returns a nil NextHost makes gocql v1.7.0 panic
// (a call of the nil function) on every query; compat fails the query with ErrNoConnections,
// as for an empty plan (docs/deviations.md G54).
func TestReviewPolicyNilPlan(t *testing.T) {
	_, s, ls := failoverSessions(t, 3, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = nilPlan{RoundRobinHostPolicy()}
		l.PoolConfig.HostSelectionPolicy = legacyNilPlan{gocqlv1.RoundRobinHostPolicy()}
	})
	const stmt = "SELECT key FROM system.local"
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("gocql v1.7.0 did not panic on a nil plan; the test expects it to")
			}
		}()
		_ = ls.Query(stmt).Exec()
	}()
	if err := s.Query(stmt).Exec(); err != ErrNoConnections {
		t.Fatalf("query with a nil plan: %v, want ErrNoConnections", err)
	}
	b := s.NewBatch(UnloggedBatch)
	b.Query("SELECT key FROM system.local")
	if err := s.ExecuteBatch(b); err != ErrNoConnections {
		t.Fatalf("batch with a nil plan: %v, want ErrNoConnections", err)
	}
}
