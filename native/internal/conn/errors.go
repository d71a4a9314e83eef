package conn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// ErrConnClosed is matched (errors.Is) by every error reporting that a connection is closed or
// broken; the error itself is a *ClosedError naming the address and the cause.
var ErrConnClosed = errors.New("conn: connection closed")

// ErrClosedByClient is the cause of a ClosedError when the connection was closed with Close.
var ErrClosedByClient = errors.New("closed by the client")

// ErrClosedByServer is the cause of a ClosedError when a request found the connection, idle
// until then, closed by the server (that request is not sent: Start returns the error).
var ErrClosedByServer = errors.New("the server closed the connection while it was idle")

// ErrNotSent is matched (errors.Is) by the error of a Call whose request never left the client:
// the connection failed before the request's frame was written (a failed write that did not
// reach it, or a failure while it was queued for the writer or gathered by it, whatever failed
// the connection: a write, a read, Close). A frame written in part counts as sent, as does one
// in a write that outlived the connection's close by more than a second (see sweep). Such a
// request may go to another node whatever its idempotence. The error is a *NotSentError, which
// also matches ErrConnClosed. (Start's errors all mean that nothing was sent; those of a
// failed connection match ErrNotSent too.)
var ErrNotSent = errors.New("the request was not sent")

// ErrNoFreeStream is matched (errors.Is) by the error of TryStart and StartNotify when every
// stream id of the connection is in use: nothing was sent.
var ErrNoFreeStream = errors.New("no free stream id")

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

// NotSentError is the error of a request that was not sent because its connection failed
// first (see ErrNotSent).
type NotSentError struct {
	// Err is the connection's error, a *ClosedError.
	Err error
}

// Error is the connection's error, saying that the request was not sent.
func (e *NotSentError) Error() string { return e.Err.Error() + " (the request was not sent)" }

// Is reports whether target is ErrNotSent.
func (e *NotSentError) Is(target error) bool { return target == ErrNotSent }

// Unwrap returns the connection's error.
func (e *NotSentError) Unwrap() error { return e.Err }

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

// VersionError reports that the server does not speak the connection's protocol version: it
// answered OPTIONS, the handshake's first request, with a protocol error saying that the
// version is unsupported, or with a frame of a lower version. Dial returns it (within a
// *DialError, step "OPTIONS"), so that a caller may dial again in a lower version.
type VersionError struct {
	// Version is the version the connection spoke.
	Version proto.Version
	// Server is the version of the server's answer when it is lower than Version (1 or 2
	// for a server that speaks no version this package does), else 0.
	Server proto.Version
	// Err is the server's answer: a *proto.ErrorResponse, or the error of reading a frame
	// in a version this package does not decode.
	Err error
}

// Error names the version refused and the server's answer.
func (e *VersionError) Error() string {
	if e.Server != 0 {
		return fmt.Sprintf("the server does not speak protocol v%d (it answered in v%d): %v", e.Version, e.Server, e.Err)
	}
	return fmt.Sprintf("the server does not speak protocol v%d: %v", e.Version, e.Err)
}

// Unwrap returns the server's answer.
func (e *VersionError) Unwrap() error { return e.Err }

// UnsolicitedError is the cause of a connection closed because the server sent an ERROR
// message on a negative stream id, outside any request (see Conn.unsolicitedError). It does
// not unwrap to the server's *proto.ErrorResponse, so that a request failed by the closed
// connection does not pass for one the server answered with that error; versionRefused looks
// inside it during the handshake.
type UnsolicitedError struct {
	// Stream is the frame's stream id (negative).
	Stream int16
	// Version is the protocol version of the frame.
	Version proto.Version
	// Server is the server's message.
	Server *proto.ErrorResponse
}

// Error says that the server sent an error outside any request, and what it said.
func (e *UnsolicitedError) Error() string {
	return fmt.Sprintf("the server sent an error outside any request (stream %d): %v", e.Stream, e.Server)
}

// oldFrameError is the error of reading a response frame of protocol v1 or v2, whose header
// this package does not decode: the answer of a server that speaks no later version.
type oldFrameError struct {
	version proto.Version
	err     error // the header's decoding error
}

func (e *oldFrameError) Error() string { return e.err.Error() }
func (e *oldFrameError) Unwrap() error { return e.err }

// versionRefused returns a *VersionError when err, the error of the OPTIONS that opens the
// handshake of a connection speaking version (answered is the version of the response
// frame, 0 when none arrived), says that the server does not speak that version; else nil.
func versionRefused(version, answered proto.Version, err error) error {
	var old *oldFrameError
	if errors.As(err, &old) {
		return &VersionError{Version: version, Server: old.version, Err: err}
	}
	var er *proto.ErrorResponse
	if un := (*UnsolicitedError)(nil); errors.As(err, &un) {
		// The refusal came on a negative stream: it answers the OPTIONS all the same, as
		// nothing else was sent yet.
		er, answered = un.Server, un.Version
	} else if !errors.As(err, &er) {
		return nil
	}
	if er.Code != proto.ErrCodeProtocol {
		return nil
	}
	if answered != 0 && answered < version {
		return &VersionError{Version: version, Server: answered, Err: err}
	}
	// Cassandra says "Invalid or unsupported protocol version (4); the lowest supported
	// version is 3 and the greatest is 3" (2.1: "Invalid or unsupported protocol version: 4"),
	// ScyllaDB alike.
	if strings.Contains(strings.ToLower(er.Message), "unsupported protocol version") {
		return &VersionError{Version: version, Err: err}
	}
	return nil
}
