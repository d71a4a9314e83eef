package native

import (
	"errors"
	"fmt"
	"testing"
)

// A NoHostAvailableError matches ErrNotSent only when no host's attempt left the client: one
// attempt sent (which may have run) makes the whole not match, though its own error still
// matches ErrConnClosed and errors.As finds each host's typed error.
func TestNoHostAvailableNotSentOnlyWhenNoneSent(t *testing.T) {
	notSent := notSentError{fmt.Errorf("%w: no open connection", ErrConnClosed)}
	sent := fmt.Errorf("%w: 10.0.0.2:9042 during \"INSERT\": EOF", ErrConnClosed)
	unavailable := &UnavailableError{RequestError: RequestError{Message: "cannot achieve consistency"}}
	for _, c := range []struct {
		name          string
		errs          []error
		notSent, conn bool
	}{
		{"no host tried", nil, true, false},
		{"none sent", []error{notSent, notSent}, true, true},
		{"one sent", []error{notSent, sent}, false, true},
		{"a server error", []error{notSent, unavailable}, false, true},
	} {
		nh := &NoHostAvailableError{}
		for i, err := range c.errs {
			nh.Errors = append(nh.Errors, HostError{Host: fmt.Sprintf("10.0.0.%d:9042", i+1), Err: err})
		}
		var err error = fmt.Errorf("native: INSERT: %w", nh)
		if got := errors.Is(err, ErrNotSent); got != c.notSent {
			t.Errorf("%s: errors.Is(ErrNotSent) = %v, want %v", c.name, got, c.notSent)
		}
		if got := errors.Is(err, ErrConnClosed); got != c.conn {
			t.Errorf("%s: errors.Is(ErrConnClosed) = %v, want %v", c.name, got, c.conn)
		}
	}
	nh := &NoHostAvailableError{Errors: []HostError{{Host: "a", Err: notSent}, {Host: "b", Err: unavailable}, {Host: "c"}}}
	var ue *UnavailableError
	if !errors.As(nh, &ue) || ue != unavailable {
		t.Errorf("errors.As found %v, want the host's *UnavailableError", ue)
	}
	if errors.Is(nh, ErrTimeout) {
		t.Error("matches ErrTimeout, which no host's error wraps")
	}
}
