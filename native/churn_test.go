package native_test

import (
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// While the nodes of a three-node cluster restart one after another (the contact point and
// the control connection's node included), idempotent reads and writes from 16 workers, half
// of them through ExecuteAsync, all succeed: requests caught on a stopping node fail over to
// the next one, and restarted nodes are reconnected and serve again. Close then leaves no
// goroutine behind. (Without the retry policy, a few dozen of them fail.)
func TestIdempotentRequestsSurviveRollingRestarts(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cl, err := cqlsim.Start(cqlsim.Options{Nodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// A generous timeout: a slow CI machine must not turn into failures; stopped nodes close
	// their connections, so nothing waits for it.
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 20 * time.Second,
		RetryPolicy: native.NextHostRetry{MaxRetries: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	mustExec(t, s, "CREATE KEYSPACE churn WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE churn.kv (k int PRIMARY KEY, v text)")
	ins := mustPrepare(t, s, "INSERT INTO churn.kv (k, v) VALUES (?, ?)")
	sel := mustPrepare(t, s, "SELECT v FROM churn.kv WHERE k = ?")

	ctx := ctxT(t)
	got := cqltest.RollingRestarts(t, cl, 16, func(w, i int) (string, error) {
		k := w*100_000 + i
		var (
			res *native.Result
			err error
		)
		if w%2 == 0 {
			res, err = s.Execute(ctx, ins.Bind(k, fmt.Sprint(k)).WithIdempotent(true))
		} else {
			res, err = s.ExecuteAsync(ctx, sel.Bind(k-1).WithIdempotent(true)).Result()
		}
		if err != nil {
			return "", fmt.Errorf("key %d: %w", k, err)
		}
		return res.Host(), nil
	})
	t.Logf("%d requests, answers per node after the first restart: %v", got.OK, got.Served)
	s.Close()
	cl.Close()
}
