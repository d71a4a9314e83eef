package future

import (
	"context"
	"errors"

	"github.com/cqlbridge/cqlbridge/native"
)

// PythonRetryPolicy is the Python driver's default RetryPolicy (cassandra.policies.RetryPolicy),
// the policy [ExecuteAsync] uses unless told otherwise (Options.RetryPolicy, or the statement's
// own native.Statement.WithRetryPolicy). Its decisions depend on the error and on
// native.Attempt.Number, which ExecuteAsync sets to Python's retry_num: the retries already
// decided for the future, over all its pages (0 before the first):
//
//   - a read timeout is retried once, on the same node at the same consistency, when enough
//     replicas answered but not the one asked for the data (Received >= BlockFor and not
//     DataPresent); otherwise it is returned;
//   - a write timeout is retried once, on the same node, when the write type is BATCH_LOG;
//     otherwise it is returned;
//   - an unavailable error is retried once on the next node of the plan, then returned;
//   - an overloaded or bootstrapping coordinator, a truncate or server error, and a connection
//     that broke are always retried on the next node (whatever retry_num), until the plan runs
//     out: the request then fails with a *native.NoHostAvailableError holding each node's
//     error (Python's NoHostAvailable);
//   - every other error (syntax, invalid, read and write failures, ...) is returned at once.
//
// Like Python's policy it retries whether or not the statement is idempotent. With speculative
// execution, the native core sends a retry "on the same node" to the next node of the plan.
type PythonRetryPolicy struct{}

// Retry implements native.RetryPolicy.
func (PythonRetryPolicy) Retry(_ context.Context, a *native.Attempt) native.RetryDecision {
	var (
		readTO      *native.ReadTimeoutError
		writeTO     *native.WriteTimeoutError
		unavailable *native.UnavailableError
		overloaded  *native.OverloadedError
		booting     *native.IsBootstrappingError
		truncate    *native.TruncateError
		server      *native.ServerError
	)
	fail := native.RetryDecision{Action: native.Fail}
	switch {
	case errors.As(a.Err, &readTO):
		if a.Number == 0 && readTO.Received >= readTO.BlockFor && !readTO.DataPresent {
			return native.RetryDecision{Action: native.RetrySameHost}
		}
		return fail
	case errors.As(a.Err, &writeTO):
		if a.Number == 0 && writeTO.WriteType == "BATCH_LOG" {
			return native.RetryDecision{Action: native.RetrySameHost}
		}
		return fail
	case errors.As(a.Err, &unavailable):
		if a.Number == 0 {
			return native.RetryDecision{Action: native.RetryNextHost}
		}
		return fail
	case errors.As(a.Err, &overloaded), errors.As(a.Err, &booting), errors.As(a.Err, &truncate),
		errors.As(a.Err, &server), errors.Is(a.Err, native.ErrConnClosed):
		return native.RetryDecision{Action: native.RetryNextHost}
	}
	return fail
}

// FallthroughRetryPolicy never retries: every error is returned as it is (the Python driver's
// FallthroughRetryPolicy).
type FallthroughRetryPolicy struct{}

// Retry implements native.RetryPolicy.
func (FallthroughRetryPolicy) Retry(context.Context, *native.Attempt) native.RetryDecision {
	return native.RetryDecision{Action: native.Fail}
}
