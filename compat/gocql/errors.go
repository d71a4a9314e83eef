package gocql

import "fmt"

// The error codes of the native protocol's ERROR message (protocol v5 spec,
// section 8), returned by RequestError.Code.
const (
	// ErrCodeServer indicates an unexpected error on the server side.
	ErrCodeServer = 0x0000
	// ErrCodeProtocol indicates a protocol violation by some client message.
	ErrCodeProtocol = 0x000A
	// ErrCodeCredentials indicates missing required authentication.
	ErrCodeCredentials = 0x0100
	// ErrCodeUnavailable indicates that not enough replicas were alive.
	ErrCodeUnavailable = 0x1000
	// ErrCodeOverloaded is returned by an overloaded coordinator.
	ErrCodeOverloaded = 0x1001
	// ErrCodeBootstrapping is returned by a coordinator that is bootstrapping.
	ErrCodeBootstrapping = 0x1002
	// ErrCodeTruncate indicates a failed truncation.
	ErrCodeTruncate = 0x1003
	// ErrCodeWriteTimeout indicates a timeout waiting for replicas during a write.
	ErrCodeWriteTimeout = 0x1100
	// ErrCodeReadTimeout indicates a timeout waiting for replicas during a read.
	ErrCodeReadTimeout = 0x1200
	// ErrCodeReadFailure indicates a read failure other than a timeout.
	ErrCodeReadFailure = 0x1300
	// ErrCodeFunctionFailure indicates an error in a user-defined function.
	ErrCodeFunctionFailure = 0x1400
	// ErrCodeWriteFailure indicates a write failure other than a timeout.
	ErrCodeWriteFailure = 0x1500
	// ErrCodeCDCWriteFailure indicates a write rejected by the CDC space limit.
	ErrCodeCDCWriteFailure = 0x1600
	// ErrCodeCASWriteUnknown indicates a CAS write whose outcome is unknown.
	ErrCodeCASWriteUnknown = 0x1700
	// ErrCodeSyntax indicates a syntax error in the query.
	ErrCodeSyntax = 0x2000
	// ErrCodeUnauthorized indicates that the user may not perform the operation.
	ErrCodeUnauthorized = 0x2100
	// ErrCodeInvalid indicates an invalid query other than a syntax error.
	ErrCodeInvalid = 0x2200
	// ErrCodeConfig indicates a configuration error.
	ErrCodeConfig = 0x2300
	// ErrCodeAlreadyExists is returned when creating an existing keyspace or table.
	ErrCodeAlreadyExists = 0x2400
	// ErrCodeUnprepared is returned for a prepared statement the host does not know.
	ErrCodeUnprepared = 0x2500
)

// RequestError is implemented by every error the server returns: Code is the
// protocol error code (one of the ErrCode constants) and Message and Error
// the server's message.
type RequestError interface {
	Code() int
	Message() string
	Error() string
}

// frameHeader is the header of the response that carried an error; the
// compat layer keeps only what it can know over the native core.
type frameHeader struct {
	version byte
	stream  int
}

// String describes the header.
func (f frameHeader) String() string {
	return fmt.Sprintf("[header version=%d stream=%d]", f.version, f.stream)
}

// Header returns the header itself (promoted to every RequestErr type, as in
// gocql).
func (f frameHeader) Header() frameHeader {
	return f
}

// errorFrame is a server error without extra fields (syntax, invalid,
// unauthorized, config, overloaded, ...) and the common part of the
// RequestErr types.
type errorFrame struct {
	frameHeader

	code    int
	message string
}

// newErrorFrame returns the server error with the given protocol code and
// message.
func newErrorFrame(code int, message string) errorFrame {
	return errorFrame{code: code, message: message}
}

// Code returns the protocol error code.
func (e errorFrame) Code() int { return e.code }

// Message returns the server's message.
func (e errorFrame) Message() string { return e.message }

// Error returns the server's message.
func (e errorFrame) Error() string { return e.Message() }

// String describes the error with its code.
func (e errorFrame) String() string {
	return fmt.Sprintf("[error code=%x message=%q]", e.code, e.message)
}

// RequestErrUnavailable is returned when too few replicas are alive to reach
// the requested consistency.
type RequestErrUnavailable struct {
	errorFrame
	Consistency Consistency
	Required    int
	Alive       int
}

// String describes the error with its fields.
func (e *RequestErrUnavailable) String() string {
	return fmt.Sprintf("[request_error_unavailable consistency=%s required=%d alive=%d]", e.Consistency, e.Required, e.Alive)
}

// ErrorMap maps the address of each replica that failed to its failure code.
type ErrorMap map[string]uint16

// RequestErrWriteTimeout is returned when replicas did not acknowledge a write
// in time.
type RequestErrWriteTimeout struct {
	errorFrame
	Consistency Consistency
	Received    int
	BlockFor    int
	WriteType   string
}

// RequestErrWriteFailure is returned when replicas failed a write.
type RequestErrWriteFailure struct {
	errorFrame
	Consistency Consistency
	Received    int
	BlockFor    int
	NumFailures int
	WriteType   string
	ErrorMap    ErrorMap
}

// RequestErrCDCWriteFailure is returned when a write was rejected because of
// the change-data-capture space limit.
type RequestErrCDCWriteFailure struct {
	errorFrame
}

// RequestErrReadTimeout is returned when replicas did not answer a read in
// time.
type RequestErrReadTimeout struct {
	errorFrame
	Consistency Consistency
	Received    int
	BlockFor    int
	DataPresent byte
}

// RequestErrAlreadyExists is returned when creating a keyspace or table that
// exists; Table is empty for a keyspace.
type RequestErrAlreadyExists struct {
	errorFrame
	Keyspace string
	Table    string
}

// RequestErrUnprepared is returned when the host does not know a prepared
// statement id; the session re-prepares and retries on its own.
type RequestErrUnprepared struct {
	errorFrame
	StatementId []byte
}

// RequestErrReadFailure is returned when replicas failed a read.
type RequestErrReadFailure struct {
	errorFrame
	Consistency Consistency
	Received    int
	BlockFor    int
	NumFailures int
	DataPresent bool
	ErrorMap    ErrorMap
}

// RequestErrFunctionFailure is returned when a user-defined function failed.
type RequestErrFunctionFailure struct {
	errorFrame
	Keyspace string
	Function string
	ArgTypes []string
}

// RequestErrCASWriteUnknown is returned when the outcome of a compare-and-set
// write is unknown.
type RequestErrCASWriteUnknown struct {
	errorFrame
	Consistency Consistency
	Received    int
	BlockFor    int
}

// Error is a plain error with a code, as gocql declares it.
type Error struct {
	Code    int
	Message string
}

// Error returns the message.
func (e Error) Error() string {
	return e.Message
}

// ErrProtocol is a violation of the native protocol by the server.
type ErrProtocol struct{ error }

// NewErrProtocol returns an ErrProtocol with a formatted message.
func NewErrProtocol(format string, args ...interface{}) error {
	return ErrProtocol{fmt.Errorf(format, args...)}
}
