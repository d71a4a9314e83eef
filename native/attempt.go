package native

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// Attempt describes one attempt of a request on one node, for Config.Observer and
// RetryPolicy.
type Attempt struct {
	// Statement is the CQL text of the statement, or "BATCH" for a batch.
	Statement string
	// Host is the node (host:port) the attempt ran on.
	Host string
	// Number is the attempt's 0-based number within the request. A request that never left
	// the client on a node of the query plan, because no connection to it was open, because
	// the connection failed before writing it, or because its timeout or context ended while
	// it waited there for a free stream id (an error matching ErrNotSent), made no attempt
	// there: the Observer does not see it and the RetryPolicy is not asked; the request goes
	// to the next node, unless its timeout or context has ended. The attempts of a request
	// with speculative execution, which run at the same time, are numbered in the order they
	// start on their connections; one not sent is no attempt either, and the next node takes
	// the request at once (its number goes to the next attempt unless another attempt has
	// started meanwhile, which a connection failing before a write leaves time for).
	Number int
	// Consistency is the level the attempt ran at.
	Consistency Consistency
	// Idempotent is the request's idempotence flag.
	Idempotent bool
	// Reprepare is true for the PREPARE sent after an UNPREPARED error.
	Reprepare bool
	// Start and End bound the attempt.
	Start, End time.Time
	// Rows is the number of rows the attempt returned.
	Rows int
	// Err is the attempt's error, nil on success.
	Err error
}

// RetryAction is what a RetryPolicy decides after a failed attempt.
type RetryAction uint8

// The retry actions.
const (
	// Fail returns the attempt's error to the caller.
	Fail RetryAction = iota
	// RetrySameHost tries again on the same node.
	RetrySameHost
	// RetryNextHost tries again on the next node of the query plan.
	RetryNextHost
	// Ignore returns an empty (void) result instead of the error.
	Ignore
)

// String returns the action's name ("Fail", "RetrySameHost", "RetryNextHost", "Ignore"), or
// RetryAction(n) for a value that is none of them.
func (a RetryAction) String() string {
	switch a {
	case Fail:
		return "Fail"
	case RetrySameHost:
		return "RetrySameHost"
	case RetryNextHost:
		return "RetryNextHost"
	case Ignore:
		return "Ignore"
	}
	return "RetryAction(" + strconv.Itoa(int(a)) + ")"
}

// RetryDecision is a RetryPolicy's answer: the action, and optionally a new consistency
// level for the retry.
type RetryDecision struct {
	Action RetryAction
	// Consistency replaces the request's level for the retry when SetConsistency is true
	// (a downgrading policy).
	Consistency    Consistency
	SetConsistency bool
}

// RetryPolicy decides whether a failed attempt is retried. a describes the failed attempt
// (a.Err is its error; a.Number counts the attempts made so far). Implementations must be
// safe for concurrent use and should retry non-idempotent requests only for errors that
// prove the request was not applied (for example UnavailableError). ctx is the request's
// context, also cancelled when the session closes (context.Cause is then ErrSessionClosed),
// and ending at the request's timeout (Config.Timeout, Statement.WithTimeout), after which no
// retry is sent: a policy that waits before retrying should stop waiting when it ends. Like
// Config.Observer, a policy may Close the session, also while deciding on an asynchronous
// request: Close does not wait for that request's goroutine while the policy runs (see
// Session.Close).
type RetryPolicy interface {
	Retry(ctx context.Context, a *Attempt) RetryDecision
}

// NextHostRetry is a RetryPolicy that tries the next node of the plan, up to MaxRetries
// times, when the failure proves the request was not applied (the coordinator found too few
// replicas alive, or was bootstrapping; a request the connection failed before sending goes
// to the next node without asking the policy), and, for idempotent requests only, also when
// the outcome is unknown: a server-side read or write timeout, a connection that broke while
// the request was in flight, or an OVERLOADED answer, which a coordinator may send after it
// has sent the write to some replicas (Cassandra does when a replica has too many hints in
// flight), so that the write may have been applied.
type NextHostRetry struct {
	MaxRetries int
}

// Retry implements RetryPolicy.
func (p NextHostRetry) Retry(_ context.Context, a *Attempt) RetryDecision {
	if a.Number >= p.MaxRetries {
		return RetryDecision{Action: Fail}
	}
	var (
		unavailable *UnavailableError
		overloaded  *OverloadedError
		booting     *IsBootstrappingError
		readTO      *ReadTimeoutError
		writeTO     *WriteTimeoutError
	)
	switch {
	case errors.As(a.Err, &unavailable), errors.As(a.Err, &booting):
		return RetryDecision{Action: RetryNextHost}
	case a.Idempotent && (errors.As(a.Err, &overloaded) || errors.As(a.Err, &readTO) || errors.As(a.Err, &writeTO) || errors.Is(a.Err, ErrConnClosed)):
		return RetryDecision{Action: RetryNextHost}
	}
	return RetryDecision{Action: Fail}
}
