package native_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

func TestNextHostRetryDecisions(t *testing.T) {
	p := native.NextHostRetry{MaxRetries: 2}
	conn := fmt.Errorf("%w: reading: EOF", native.ErrConnClosed)
	cases := []struct {
		err        error
		idempotent bool
		number     int
		want       native.RetryAction
	}{
		{&native.UnavailableError{}, false, 0, native.RetryNextHost},
		{&native.OverloadedError{}, true, 1, native.RetryNextHost},
		{&native.OverloadedError{}, false, 0, native.Fail}, // may have been applied
		{&native.IsBootstrappingError{}, false, 0, native.RetryNextHost},
		{&native.UnavailableError{}, false, 2, native.Fail}, // MaxRetries reached
		{&native.ReadTimeoutError{}, true, 0, native.RetryNextHost},
		{&native.ReadTimeoutError{}, false, 0, native.Fail},
		{&native.WriteTimeoutError{}, true, 0, native.RetryNextHost},
		{&native.WriteTimeoutError{}, false, 0, native.Fail},
		{conn, true, 0, native.RetryNextHost},
		{conn, false, 0, native.Fail},
		{&native.SyntaxError{}, true, 0, native.Fail},
		{errors.New("other"), true, 0, native.Fail},
	}
	for _, c := range cases {
		d := p.Retry(context.Background(), &native.Attempt{Err: c.err, Idempotent: c.idempotent, Number: c.number})
		if d.Action != c.want {
			t.Errorf("%T idempotent=%t attempt %d: action %d, want %d", c.err, c.idempotent, c.number, d.Action, c.want)
		}
	}
}
