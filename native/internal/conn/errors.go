package conn

import (
	"errors"
	"fmt"
)

// ErrConnClosed is matched (errors.Is) by every error reporting that a connection is closed or
// broken; the error itself is a *ClosedError naming the address and the cause.
var ErrConnClosed = errors.New("conn: connection closed")

// ErrClosedByClient is the cause of a ClosedError when the connection was closed with Close.
var ErrClosedByClient = errors.New("closed by the client")

// ErrClosedByServer is the cause of a ClosedError when a request found the connection, idle
// until then, closed by the server (that request is not sent: Start returns the error).
var ErrClosedByServer = errors.New("the server closed the connection while it was idle")

// ErrHeartbeat is the cause of a ClosedError when a heartbeat went unanswered.
var ErrHeartbeat = errors.New("heartbeat failed")

// ClosedError reports that a connection was closed or broke, and why.
type ClosedError struct {
	Addr  string
	Cause error
}

// Error says which connection closed and why.
func (e *ClosedError) Error() string {
	return fmt.Sprintf("conn: connection to %s closed: %v", e.Addr, e.Cause)
}

// Is reports whether target is ErrConnClosed.
func (e *ClosedError) Is(target error) bool { return target == ErrConnClosed }

// Unwrap returns the cause.
func (e *ClosedError) Unwrap() error { return e.Cause }

// DialError reports a failure to establish a connection: the address and the step that failed
// ("connect", "tls handshake", "OPTIONS", "STARTUP", "authentication", "USE").
type DialError struct {
	Addr string
	Step string
	Err  error
}

// Error names the address and the step.
func (e *DialError) Error() string {
	return fmt.Sprintf("conn: dialing %s: %s: %v", e.Addr, e.Step, e.Err)
}

// Unwrap returns the underlying error.
func (e *DialError) Unwrap() error { return e.Err }
