package scenarios

import (
	"errors"

	"github.com/gocql/gocql"
)

// fixedRetry is a RetryPolicy that allows max attempts in all and always answers typ.
type fixedRetry struct {
	max int
	typ gocql.RetryType
}

func (p fixedRetry) Attempt(q gocql.RetryableQuery) bool { return q.Attempts() <= p.max }

func (p fixedRetry) GetRetryType(error) gocql.RetryType { return p.typ }

// recordingRetry is a RetryPolicy that records each call the driver makes to inner, with
// what the query looks like at that moment (its attempts and consistency).
type recordingRetry struct {
	e     *Env
	inner gocql.RetryPolicy
}

func (p recordingRetry) Attempt(q gocql.RetryableQuery) bool {
	ok := p.inner.Attempt(q)
	p.e.R.Record("policy Attempt", nil, q.Attempts(), q.GetConsistency().String(), ok)
	return ok
}

func (p recordingRetry) GetRetryType(err error) gocql.RetryType {
	t := p.inner.GetRetryType(err)
	p.e.R.Record("policy GetRetryType", err, t)
	return t
}

// unavailableKeyspace creates a keyspace (the scenario's keyspace name plus suffix) with a
// replication factor of 10 and a table t (k int PRIMARY KEY, v int) in it: on a cluster of
// fewer than six nodes, a statement on t at QUORUM or ALL fails with UNAVAILABLE, with the
// same fields for both drivers. It returns the keyspace, or "" when the set-up failed; the
// caller drops it.
func unavailableKeyspace(e *Env, suffix string) string {
	ks := e.Keyspace + suffix
	if e.Exec("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 10}") != nil {
		return ""
	}
	if e.Exec("CREATE TABLE "+ks+".t (k int PRIMARY KEY, v int)") != nil {
		return ""
	}
	return ks
}

// Retries on a one-node cluster are deterministic: the errors used are server errors (invalid
// queries) that fail the same way every time.
func retryScenarios() []Scenario {
	const bad = "SELECT nope FROM system.local"
	return []Scenario{
		{"retry/simple_policy_one_host", func(e *Env) {
			q := e.Session.Query(bad).RetryPolicy(&gocql.SimpleRetryPolicy{NumRetries: 3}).Observer(recorderObserver{e})
			e.R.Record("exec", q.Exec(), q.Attempts())
		}},
		{"retry/retry_same_host", func(e *Env) {
			q := e.Session.Query(bad).RetryPolicy(fixedRetry{2, gocql.Retry}).Observer(recorderObserver{e})
			e.R.Record("exec", q.Exec(), q.Attempts())
			e.R.Record("exec again (attempts accumulate)", q.Exec(), q.Attempts())
		}},
		{"retry/ignore_returns_error", func(e *Env) {
			q := e.Session.Query(bad).RetryPolicy(fixedRetry{5, gocql.Ignore}).Observer(recorderObserver{e})
			e.R.Record("exec", q.Exec(), q.Attempts())
		}},
		{"retry/rethrow", func(e *Env) {
			q := e.Session.Query(bad).RetryPolicy(fixedRetry{5, gocql.Rethrow})
			e.R.Record("exec", q.Exec(), q.Attempts())
		}},
		{"retry/batch_retry_same_host", func(e *Env) {
			b := e.Session.NewBatch(gocql.LoggedBatch).RetryPolicy(fixedRetry{1, gocql.Retry}).Observer(recorderObserver{e})
			b.Query("INSERT INTO no_such_table_retry (k) VALUES (1)")
			e.R.Record("batch", e.Session.ExecuteBatch(b), b.Attempts())
		}},
		{"retry/success_not_retried", func(e *Env) {
			q := e.Session.Query("SELECT key FROM system.local").RetryPolicy(fixedRetry{3, gocql.Retry}).Observer(recorderObserver{e})
			var k string
			e.R.Record("scan", q.Scan(&k), k, q.Attempts())
		}},
		{"retry/cluster_retry_policy", func(e *Env) {
			c := e.Cluster()
			c.RetryPolicy = fixedRetry{1, gocql.Retry}
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			q := s.Query(bad).Observer(recorderObserver{e})
			e.R.Record("exec", q.Exec(), q.Attempts())
		}},
	}
}

// unavailableScenarios retry statements that fail with UNAVAILABLE (a keyspace replicated more
// than the cluster has nodes), as an application's retry policies see them. They come last in
// All, so that the scenarios before them keep their indexes (and table names).
func unavailableScenarios() []Scenario {
	return []Scenario{
		{"retry/downgrading_consistency_on_unavailable", func(e *Env) {
			// An application's usual fallback for a cluster short of replicas: each retry on
			// UNAVAILABLE lowers the consistency (ALL, then QUORUM, still unavailable, then ONE),
			// for a statement, a read and a batch; the policy's calls, the observer's attempts
			// and the consistency left on the query are recorded.
			ks := unavailableKeyspace(e, "_rf10d")
			if ks == "" {
				return
			}
			defer e.Session.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
			pol := recordingRetry{e, &gocql.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocql.Consistency{gocql.Quorum, gocql.One}}}
			q := e.Session.Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", 1, 2).Consistency(gocql.All).RetryPolicy(pol).Observer(recorderObserver{e})
			e.R.Record("insert", q.Exec(), q.Attempts(), q.GetConsistency().String())
			var v int
			q = e.Session.Query("SELECT v FROM "+ks+".t WHERE k = ?", 1).Consistency(gocql.All).RetryPolicy(pol).Observer(recorderObserver{e})
			e.R.Record("read", q.Scan(&v), v, q.Attempts(), q.GetConsistency().String())
			b := e.Session.NewBatch(gocql.UnloggedBatch).RetryPolicy(pol).Observer(recorderObserver{e})
			b.SetConsistency(gocql.All)
			b.Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", 2, 3)
			e.R.Record("batch", e.Session.ExecuteBatch(b), b.Attempts(), b.GetConsistency().String())
			short := recordingRetry{e, &gocql.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocql.Consistency{gocql.Quorum}}}
			q = e.Session.Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", 3, 4).Consistency(gocql.All).RetryPolicy(short)
			err := q.Exec()
			var ue *gocql.RequestErrUnavailable
			if errors.As(err, &ue) {
				e.R.Record("levels run out: unavailable fields", nil, ue.Consistency.String(), ue.Required, ue.Alive, ue.Code())
			}
			e.R.Record("levels run out", err, q.Attempts(), q.GetConsistency().String())
		}},
		{"retry/simple_policy_on_unavailable", func(e *Env) {
			// SimpleRetryPolicy answers RetryNextHost to UNAVAILABLE: on one node there is no
			// next host, so the error comes back after one attempt, as a
			// *RequestErrUnavailable an application can branch on.
			ks := unavailableKeyspace(e, "_rf10s")
			if ks == "" {
				return
			}
			defer e.Session.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
			pol := recordingRetry{e, &gocql.SimpleRetryPolicy{NumRetries: 2}}
			q := e.Session.Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", 1, 2).Consistency(gocql.Quorum).RetryPolicy(pol).Observer(recorderObserver{e})
			err := q.Exec()
			_, direct := err.(*gocql.RequestErrUnavailable)
			var re gocql.RequestError
			e.R.Record("insert", err, q.Attempts(), direct, errors.As(err, &re))
		}},
	}
}
