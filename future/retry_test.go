package future_test

import (
	"context"
	"errors"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// Which retry policy a future's requests use: Options.RetryPolicy, PythonRetryPolicy when it is
// nil, and the statement's own policy before either. The node answers OVERLOADED, which
// PythonRetryPolicy sends to the next node (there is none: NoHostAvailable) and the others
// return as it is. The session's policy would retry it on the same node and succeed.
func TestRetryPolicyChoice(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	sameHostOnce := funcRetry(func(a *native.Attempt) native.RetryDecision {
		if a.Number == 0 {
			return native.RetryDecision{Action: native.RetrySameHost}
		}
		return native.RetryDecision{Action: native.Fail}
	})
	sess, err := native.Connect(ctx, native.Config{Hosts: sim.Addrs(), RetryPolicy: sameHostOnce})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	const stmt = "SELECT release_version FROM system.local WHERE key = 'local'"
	run := func(q native.Statement, opts future.Options) error {
		t.Helper()
		if err := sim.InjectFault(0, cqlsim.Fault{Match: stmt, Times: 1, Error: &message.Overloaded{ErrorMessage: "overloaded"}}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := sim.ClearFaults(0); err != nil {
				t.Fatal(err)
			}
		}()
		_, err := future.ExecuteAsync(ctx, sess, q, opts).Result()
		return err
	}
	isOverloaded := func(err error) bool {
		var nh *native.NoHostAvailableError
		var ov *native.OverloadedError
		return errors.As(err, &ov) && !errors.As(err, &nh)
	}

	if err := run(native.Query(stmt), future.Options{}); !errors.As(err, new(*native.NoHostAvailableError)) {
		t.Errorf("default options: got %v (%T), want NoHostAvailable (PythonRetryPolicy)", err, err)
	}
	if err := run(native.Query(stmt), future.Options{RetryPolicy: future.FallthroughRetryPolicy{}}); !isOverloaded(err) {
		t.Errorf("FallthroughRetryPolicy: got %v (%T), want the overloaded error", err, err)
	}
	if err := run(native.Query(stmt).WithRetryPolicy(future.FallthroughRetryPolicy{}), future.Options{}); !isOverloaded(err) {
		t.Errorf("the statement's policy: got %v (%T), want the overloaded error", err, err)
	}
	if err := run(native.Query(stmt), future.Options{RetryPolicy: sameHostOnce}); err != nil {
		t.Errorf("a policy retrying on the same node: %v", err)
	}
}

type funcRetry func(a *native.Attempt) native.RetryDecision

func (f funcRetry) Retry(_ context.Context, a *native.Attempt) native.RetryDecision { return f(a) }
