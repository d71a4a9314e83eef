package future_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// PythonRetryPolicy decides as cassandra.policies.RetryPolicy does (on_read_timeout,
// on_write_timeout, on_unavailable, on_request_error), for the first attempt (retry_num 0) and
// a later one; wrapped errors are recognised as the native core wraps them.
func TestPythonRetryPolicyDecisions(t *testing.T) {
	const (
		fail     = native.Fail
		sameHost = native.RetrySameHost
		nextHost = native.RetryNextHost
	)
	readTO := func(received, blockFor int, data bool) error {
		return &native.ReadTimeoutError{Received: received, BlockFor: blockFor, DataPresent: data}
	}
	writeTO := func(writeType string) error {
		return &native.WriteTimeoutError{Received: 1, BlockFor: 2, WriteType: writeType}
	}
	for _, tc := range []struct {
		name        string
		err         error
		first, next native.RetryAction // at retry_num 0, and at retry_num 1
	}{
		// on_read_timeout: retried once, on the same node, when enough replicas answered but
		// not the one asked for the data.
		{"read timeout, enough responses, no data", readTO(2, 2, false), sameHost, fail},
		{"read timeout, enough responses, data", readTO(2, 2, true), fail, fail},
		{"read timeout, too few responses", readTO(1, 2, false), fail, fail},
		// on_write_timeout: retried once when the batch log write timed out.
		{"write timeout, BATCH_LOG", writeTO("BATCH_LOG"), sameHost, fail},
		{"write timeout, SIMPLE", writeTO("SIMPLE"), fail, fail},
		{"write timeout, BATCH", writeTO("BATCH"), fail, fail},
		{"write timeout, CAS", writeTO("CAS"), fail, fail},
		// on_unavailable: the next node once.
		{"unavailable", &native.UnavailableError{Required: 2, Alive: 1}, nextHost, fail},
		// on_request_error: always the next node.
		{"overloaded", &native.OverloadedError{}, nextHost, nextHost},
		{"bootstrapping", &native.IsBootstrappingError{}, nextHost, nextHost},
		{"truncate error", &native.TruncateError{}, nextHost, nextHost},
		{"server error", &native.ServerError{}, nextHost, nextHost},
		{"connection closed", fmt.Errorf("%w: 10.0.0.1:9042 during \"SELECT\"", native.ErrConnClosed), nextHost, nextHost},
		{"wrapped overloaded", fmt.Errorf("attempt: %w", &native.OverloadedError{}), nextHost, nextHost},
		// Everything else is returned at once.
		{"syntax error", &native.SyntaxError{}, fail, fail},
		{"invalid", &native.InvalidError{}, fail, fail},
		{"read failure", &native.ReadFailureError{Received: 1, BlockFor: 1}, fail, fail},
		{"write failure", &native.WriteFailureError{WriteType: "SIMPLE"}, fail, fail},
		{"unauthorized", &native.UnauthorizedError{}, fail, fail},
		{"context canceled", context.Canceled, fail, fail},
	} {
		for number, want := range []native.RetryAction{tc.first, tc.next} {
			got := future.PythonRetryPolicy{}.Retry(context.Background(), &native.Attempt{Err: tc.err, Number: number})
			if got.Action != want {
				t.Errorf("%s at retry_num %d: %v, want %v", tc.name, number, got.Action, want)
			}
		}
	}
	// FallthroughRetryPolicy returns everything.
	for _, err := range []error{readTO(2, 2, false), &native.OverloadedError{}, &native.UnavailableError{}} {
		if got := (future.FallthroughRetryPolicy{}).Retry(context.Background(), &native.Attempt{Err: err}); got.Action != fail {
			t.Errorf("FallthroughRetryPolicy on %T: %v, want Fail", err, got.Action)
		}
	}
}
