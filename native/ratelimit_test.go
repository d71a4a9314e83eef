package native_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// On a ScyllaDB-like node (cqlsim with shards, which offers SCYLLA_RATE_LIMIT_ERROR), the
// session opts in to the rate limit error, so a statement over its partition's rate limit
// fails with a *RateLimitError carrying the node's fields, not a CONFIG_ERROR; NextHostRetry
// does not retry it.
func TestRateLimitErrorFromScylla(t *testing.T) {
	var attempts atomic.Int32
	cl, s := simClusterSession(t, cqlsim.Options{Shards: 2}, func(c *native.Config) {
		c.RetryPolicy = native.NextHostRetry{MaxRetries: 3}
		c.Observer = func(_ context.Context, a native.Attempt) {
			if a.Statement == "INSERT INTO rl.t (k, v) VALUES (1, 1)" {
				attempts.Add(1)
			}
		}
	})
	mustExec(t, s, "CREATE KEYSPACE rl WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE rl.t (k int PRIMARY KEY, v int)")
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "INSERT INTO rl.t", Times: 1,
		Error: &cqlsim.RateLimitReached{ErrorMessage: "Per-partition rate limit reached", OpType: 1, RejectedByCoordinator: true}}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Execute(ctxT(t), native.Query("INSERT INTO rl.t (k, v) VALUES (1, 1)").WithIdempotent(true))
	var rl *native.RateLimitError
	if !errors.As(err, &rl) || rl.OpType != 1 || !rl.RejectedByCoordinator || rl.Code != native.CodeRateLimit {
		t.Fatalf("over the rate limit: %v (%T), want a *RateLimitError for a write rejected by the coordinator", err, err)
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("%d attempts, want 1: the rate limit error is not retried", n)
	}
	mustExec(t, s, "INSERT INTO rl.t (k, v) VALUES (1, 1)") // the fault is spent
}
