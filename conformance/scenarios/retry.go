package scenarios

import (
	"github.com/gocql/gocql"
)

// fixedRetry is a RetryPolicy that allows max attempts in all and always answers typ.
type fixedRetry struct {
	max int
	typ gocql.RetryType
}

func (p fixedRetry) Attempt(q gocql.RetryableQuery) bool { return q.Attempts() <= p.max }

func (p fixedRetry) GetRetryType(error) gocql.RetryType { return p.typ }

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
