package future

import (
	"errors"
	"fmt"
	"time"
)

// ErrQueryExhausted is returned by StartFetchingNextPage when there is no next page (the Python
// driver's QueryExhausted).
var ErrQueryExhausted = errors.New("future: query exhausted: there are no more pages")

// ErrNotDone is wrapped by the errors of accessors that need a completed response (Warnings,
// CustomPayload, TraceID) while the current page is in flight.
var ErrNotDone = errors.New("future: the response future is not done")

// ErrNoLWT is wrapped by WasApplied's error when the result is not a lightweight-transaction
// result.
var ErrNoLWT = errors.New("future: not a lightweight transaction result")

// TimeoutError is the outcome of a page whose request did not complete within the future's
// timeout (the Python driver's OperationTimedOut). The timeout covers every retry and
// speculative execution of the page.
type TimeoutError struct {
	// Timeout is the limit that expired.
	Timeout time.Duration
	// Page is the 1-based number of the page request that timed out (see Page.Number).
	Page int
	// Err is what the request reported (usually context.DeadlineExceeded, possibly wrapped).
	Err error
}

// Error describes the timeout.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("future: client request timeout after %s on page %d: %v", e.Timeout, e.Page, e.Err)
}

// Unwrap returns the request's error.
func (e *TimeoutError) Unwrap() error { return e.Err }
