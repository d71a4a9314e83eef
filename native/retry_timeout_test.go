package native_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// A retry policy that backs off waits on its context, which ends at the request's timeout (no
// retry is sent after it anyway): the caller gets the timeout error when the timeout passes,
// not when the backoff would have ended, for a timeout checked exactly and for one the coarse
// clock checks.
func TestRetryPolicyContextEndsAtTheRequestTimeout(t *testing.T) {
	const backoff = 20 * time.Second // far longer than the timeouts
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{
		{"exact", 200 * time.Millisecond},
		{"coarse", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := connect(t)
			ended := make(chan error, 1)
			policy := funcRetry(func(ctx context.Context, a *native.Attempt) native.RetryDecision {
				select {
				case <-ctx.Done():
					ended <- ctx.Err()
				case <-time.After(backoff):
					ended <- nil
				}
				return native.RetryDecision{Action: native.RetrySameHost}
			})
			st := native.Query("SELECT * FROM no_such_table_here").WithRetryPolicy(policy).WithTimeout(tc.timeout)
			_, err := s.Execute(context.Background(), st)
			if !errors.Is(err, native.ErrTimeout) {
				t.Errorf("%v, want an error matching ErrTimeout", err)
			}
			var inv *native.InvalidError
			if !errors.As(err, &inv) {
				t.Errorf("the timeout error lost the attempt's error: %v", err)
			}
			if perr := <-ended; !errors.Is(perr, context.DeadlineExceeded) {
				t.Errorf("the policy's context ended with %v, want the request's deadline (the policy backed off past the timeout)", perr)
			}
		})
	}
}
