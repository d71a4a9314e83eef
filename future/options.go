package future

import (
	"time"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/cqlbridge/cqlbridge/native"
)

// DefaultTimeout is the per-page client timeout used when Options.Timeout is zero, the Python
// driver's default request_timeout.
const DefaultTimeout = 10 * time.Second

// NoTimeout disables the client timer when set as Options.Timeout (Python's timeout=None).
const NoTimeout time.Duration = -1

// Options configures a [ResponseFuture].
type Options struct {
	// Timeout bounds each page's request, including its retries and speculative executions.
	// Zero means the statement's (or, for ExecuteBatchAsync, the batch's) own timeout when it
	// has one (native.Statement.WithTimeout, native.Batch.WithTimeout; WithTimeout(0) means no
	// timer), else DefaultTimeout. A non-zero Timeout replaces the statement's own: a
	// negative one (NoTimeout) means no timer. Unlike the Python driver, every page gets its
	// own timer, not only the first (see docs/deviations.md). It replaces the session's
	// native.Config.Timeout.
	Timeout time.Duration

	// RetryPolicy decides the retries of every page's request made by ExecuteAsync (and of
	// ExecuteBatchAsync's one request), unless the statement (or batch) has a policy of its own
	// (native.Statement.WithRetryPolicy, native.Batch.WithRetryPolicy), as a Python
	// statement's retry_policy overrides its execution profile's. Nil selects
	// PythonRetryPolicy, the Python driver's default; FallthroughRetryPolicy retries nothing;
	// to keep the session's native.Config.RetryPolicy, pass it here. The policy sees Python's
	// retry_num as native.Attempt.Number: the retries decided so far for the future, over all
	// its pages (a statement's own policy sees the native numbering, the attempts of the page).
	RetryPolicy native.RetryPolicy

	// Callbacks configures dispatch: an executor for callbacks, and what a panicking callback
	// does (callbacks.RecoverAndReport by default; callbacks.PythonReroute for the Python
	// driver's behaviour).
	Callbacks callbacks.Options
}

func (o *Options) retryPolicy() native.RetryPolicy {
	if o.RetryPolicy == nil {
		return PythonRetryPolicy{}
	}
	return o.RetryPolicy
}

func (o *Options) timeout() time.Duration {
	if o.Timeout == 0 {
		return DefaultTimeout
	}
	return o.Timeout
}
