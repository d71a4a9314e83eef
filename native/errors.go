package native

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// ErrorCode is a protocol error code sent by the server in an ERROR response.
type ErrorCode int32

// The protocol error codes (native protocol v4 section 9, plus the ScyllaDB rate-limit
// extension, whose code the server announces in SUPPORTED and which the session maps to
// CodeRateLimit).
const (
	CodeServer          ErrorCode = 0x0000
	CodeProtocol        ErrorCode = 0x000A
	CodeAuthentication  ErrorCode = 0x0100
	CodeUnavailable     ErrorCode = 0x1000
	CodeOverloaded      ErrorCode = 0x1001
	CodeIsBootstrapping ErrorCode = 0x1002
	CodeTruncate        ErrorCode = 0x1003
	CodeWriteTimeout    ErrorCode = 0x1100
	CodeReadTimeout     ErrorCode = 0x1200
	CodeReadFailure     ErrorCode = 0x1300
	CodeFunctionFailure ErrorCode = 0x1400
	CodeWriteFailure    ErrorCode = 0x1500
	CodeCDCWriteFailure ErrorCode = 0x1600
	CodeCASWriteUnknown ErrorCode = 0x1700
	CodeSyntax          ErrorCode = 0x2000
	CodeUnauthorized    ErrorCode = 0x2100
	CodeInvalid         ErrorCode = 0x2200
	CodeConfig          ErrorCode = 0x2300
	CodeAlreadyExists   ErrorCode = 0x2400
	CodeUnprepared      ErrorCode = 0x2500
	// CodeRateLimit is ScyllaDB's "rate limit exceeded" error. ScyllaDB negotiates its
	// numeric code at STARTUP (SCYLLA_RATE_LIMIT_ERROR); the session reports it under this
	// fixed value whatever code was negotiated.
	CodeRateLimit ErrorCode = 0xF000
)

var codeNames = map[ErrorCode]string{
	CodeServer:          "server error",
	CodeProtocol:        "protocol error",
	CodeAuthentication:  "authentication error",
	CodeUnavailable:     "unavailable",
	CodeOverloaded:      "overloaded",
	CodeIsBootstrapping: "is bootstrapping",
	CodeTruncate:        "truncate error",
	CodeWriteTimeout:    "write timeout",
	CodeReadTimeout:     "read timeout",
	CodeReadFailure:     "read failure",
	CodeFunctionFailure: "function failure",
	CodeWriteFailure:    "write failure",
	CodeCDCWriteFailure: "cdc write failure",
	CodeCASWriteUnknown: "cas write unknown",
	CodeSyntax:          "syntax error",
	CodeUnauthorized:    "unauthorized",
	CodeInvalid:         "invalid query",
	CodeConfig:          "configuration error",
	CodeAlreadyExists:   "already exists",
	CodeUnprepared:      "unprepared",
	CodeRateLimit:       "rate limit reached",
}

// String returns a short description of the code, such as "read timeout".
func (c ErrorCode) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("error code 0x%04x", int32(c))
}

// RequestError is the part every server error shares: the code, the server's message and the
// host (host:port) that answered. Every typed server error below unwraps to its RequestError,
// so errors.As(err, &re) with re a *RequestError matches any server error.
//
// When the failed request was traced (Statement.WithTracing, Batch.WithTracing,
// Session.PrepareTraced) and the server sent a tracing session id with the error, TraceID
// holds it and Traced is true; the trace of the failure can be read from system_traces like that
// of a successful request (Result.TraceID).
type RequestError struct {
	Code    ErrorCode
	Message string
	Host    string
	TraceID [16]byte
	Traced  bool
}

// Error returns the code's description, the message and the host.
func (e *RequestError) Error() string {
	var b strings.Builder
	b.WriteString(e.Code.String())
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Host != "" {
		b.WriteString(" (host ")
		b.WriteString(e.Host)
		b.WriteByte(')')
	}
	return b.String()
}

// ServerError is code 0x0000: something unexpected happened on the server.
type ServerError struct{ RequestError }

// ProtocolError is code 0x000A: the server considers a request malformed.
type ProtocolError struct{ RequestError }

// AuthenticationError is code 0x0100: authentication failed.
type AuthenticationError struct{ RequestError }

// UnavailableError is code 0x1000: not enough replicas were alive to attempt the request.
type UnavailableError struct {
	RequestError
	Consistency Consistency // level of the request
	Required    int         // replicas needed to reach Consistency
	Alive       int         // replicas known alive when the request was processed
}

// OverloadedError is code 0x1001: the coordinator is overloaded.
type OverloadedError struct{ RequestError }

// IsBootstrappingError is code 0x1002: the coordinator is still bootstrapping.
type IsBootstrappingError struct{ RequestError }

// TruncateError is code 0x1003: a TRUNCATE failed.
type TruncateError struct{ RequestError }

// WriteTimeoutError is code 0x1100: replicas did not acknowledge a write in time.
type WriteTimeoutError struct {
	RequestError
	Consistency Consistency
	Received    int    // acknowledgements received
	BlockFor    int    // acknowledgements required for Consistency
	WriteType   string // SIMPLE, BATCH, BATCH_LOG, UNLOGGED_BATCH, COUNTER, CAS, VIEW, CDC
	Contentions int    // CAS contentions (protocol v5 only; 0 otherwise)
}

// ReadTimeoutError is code 0x1200: replicas did not answer a read in time.
type ReadTimeoutError struct {
	RequestError
	Consistency Consistency
	Received    int  // responses received
	BlockFor    int  // responses required for Consistency
	DataPresent bool // whether the replica asked for data answered
}

// ReadFailureError is code 0x1300: a non-timeout failure occurred on replicas during a read.
type ReadFailureError struct {
	RequestError
	Consistency Consistency
	Received    int
	BlockFor    int
	NumFailures int
	// Reasons maps failed replicas to their failure codes (protocol v5; nil with v4).
	Reasons     map[netip.Addr]uint16
	DataPresent bool
}

// FunctionFailureError is code 0x1400: a user-defined function failed.
type FunctionFailureError struct {
	RequestError
	Keyspace string
	Function string
	ArgTypes []string
}

// WriteFailureError is code 0x1500: a non-timeout failure occurred on replicas during a write.
type WriteFailureError struct {
	RequestError
	Consistency Consistency
	Received    int
	BlockFor    int
	NumFailures int
	// Reasons maps failed replicas to their failure codes (protocol v5; nil with v4).
	Reasons   map[netip.Addr]uint16
	WriteType string
}

// CDCWriteFailureError is code 0x1600 (protocol v5): a write to a CDC-enabled table failed.
type CDCWriteFailureError struct{ RequestError }

// CASWriteUnknownError is code 0x1700 (protocol v5): the outcome of a CAS write is unknown.
type CASWriteUnknownError struct {
	RequestError
	Consistency Consistency
	Received    int // acknowledgements received
	BlockFor    int // acknowledgements required for Consistency
}

// SyntaxError is code 0x2000: the statement has a syntax error.
type SyntaxError struct{ RequestError }

// UnauthorizedError is code 0x2100: the logged-in user lacks a permission.
type UnauthorizedError struct{ RequestError }

// InvalidError is code 0x2200: the statement is syntactically correct but invalid.
type InvalidError struct{ RequestError }

// ConfigError is code 0x2300: the statement is invalid because of a configuration issue.
type ConfigError struct{ RequestError }

// AlreadyExistsError is code 0x2400: a keyspace or table to create already exists.
type AlreadyExistsError struct {
	RequestError
	Keyspace string
	Table    string // empty when a keyspace already exists
}

// UnpreparedError is code 0x2500: the coordinator does not know a prepared statement id.
// The session re-prepares and retries transparently; callers see it only when that fails.
type UnpreparedError struct {
	RequestError
	ID []byte
}

// RateLimitError is ScyllaDB's per-partition rate limit error.
type RateLimitError struct {
	RequestError
	OpType                byte // 0 read, 1 write
	RejectedByCoordinator bool
}

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *ServerError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *ProtocolError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *AuthenticationError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *UnavailableError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *OverloadedError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *IsBootstrappingError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *TruncateError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *WriteTimeoutError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *ReadTimeoutError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *ReadFailureError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *FunctionFailureError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *WriteFailureError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *CDCWriteFailureError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *CASWriteUnknownError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *SyntaxError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *UnauthorizedError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *InvalidError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *ConfigError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *AlreadyExistsError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *UnpreparedError) Unwrap() error { return &e.RequestError }

// Unwrap returns the common part, so errors.As finds a *RequestError.
func (e *RateLimitError) Unwrap() error { return &e.RequestError }

// Error describes the unavailable replicas.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s (consistency %s, required %d, alive %d)", e.RequestError.Error(), e.Consistency, e.Required, e.Alive)
}

// Error describes the acknowledgements received.
func (e *WriteTimeoutError) Error() string {
	return fmt.Sprintf("%s (consistency %s, received %d of %d, write type %s)", e.RequestError.Error(), e.Consistency, e.Received, e.BlockFor, e.WriteType)
}

// Error describes the responses received.
func (e *ReadTimeoutError) Error() string {
	return fmt.Sprintf("%s (consistency %s, received %d of %d, data present %t)", e.RequestError.Error(), e.Consistency, e.Received, e.BlockFor, e.DataPresent)
}

// Error describes the failures.
func (e *ReadFailureError) Error() string {
	return fmt.Sprintf("%s (consistency %s, received %d of %d, %d failures)", e.RequestError.Error(), e.Consistency, e.Received, e.BlockFor, e.NumFailures)
}

// Error describes the failures.
func (e *WriteFailureError) Error() string {
	return fmt.Sprintf("%s (consistency %s, received %d of %d, %d failures, write type %s)", e.RequestError.Error(), e.Consistency, e.Received, e.BlockFor, e.NumFailures, e.WriteType)
}

// Error describes the acknowledgements received.
func (e *CASWriteUnknownError) Error() string {
	return fmt.Sprintf("%s (consistency %s, received %d of %d)", e.RequestError.Error(), e.Consistency, e.Received, e.BlockFor)
}

// Error names the function.
func (e *FunctionFailureError) Error() string {
	return fmt.Sprintf("%s (function %s.%s(%s))", e.RequestError.Error(), e.Keyspace, e.Function, strings.Join(e.ArgTypes, ", "))
}

// Error names the keyspace or table.
func (e *AlreadyExistsError) Error() string {
	if e.Table == "" {
		return fmt.Sprintf("%s (keyspace %s)", e.RequestError.Error(), e.Keyspace)
	}
	return fmt.Sprintf("%s (table %s.%s)", e.RequestError.Error(), e.Keyspace, e.Table)
}

// Error names the unknown id.
func (e *UnpreparedError) Error() string {
	return fmt.Sprintf("%s (id %x)", e.RequestError.Error(), e.ID)
}

// Error says what was rate-limited.
func (e *RateLimitError) Error() string {
	op := "read"
	if e.OpType == 1 {
		op = "write"
	}
	return fmt.Sprintf("%s (%s, rejected by coordinator %t)", e.RequestError.Error(), op, e.RejectedByCoordinator)
}

// errNilContext fails a call given a nil context.Context (pass context.Background()).
var errNilContext = errors.New("native: nil Context (pass context.Background() or a context with a deadline)")

// Client-side errors.
var (
	// ErrSessionClosed is returned by every call on a closed Session, and fails requests
	// still in flight when Close is called.
	ErrSessionClosed = errors.New("native: session closed")
	// ErrNotConnected is returned by the calls of a Session that Connect did not make (the
	// zero Session, or a copy of one), which has no connection to send anything on.
	ErrNotConnected = errors.New("native: session not connected: a Session must come from Connect")
	// ErrTimeout is wrapped by the error of a request that exceeded Config.Timeout (or the
	// statement's own timeout). A request cancelled through its context returns the
	// context's error instead. The timeout's error also wraps context.DeadlineExceeded, so
	// that code written for deadlines sees one: to tell the request's timeout from the
	// caller's own deadline, test errors.Is(err, ErrTimeout) first.
	ErrTimeout = errors.New("native: request timed out")
	// ErrNotFound is returned by helpers that need a row when the result has none.
	ErrNotFound = errors.New("native: no rows in result")
	// ErrNoMorePages is returned by Result.NextPage when the result was the last page.
	ErrNoMorePages = errors.New("native: no more pages")
	// ErrPagingStateRepeated is returned by Result.NextPage (and yielded by Result.All and
	// Session.Iter after the page's rows) when the server answered a page with the paging
	// state the request for that page carried: fetching on would bring the same page again,
	// for ever. A correct server's paging state moves on with every page.
	ErrPagingStateRepeated = errors.New("native: the server repeated the paging state")
	// ErrUnsupported is wrapped when a request asks for a feature the negotiated protocol
	// version does not have (for example a per-statement keyspace with protocol v4).
	ErrUnsupported = errors.New("native: not supported by the protocol version in use")
	// ErrConnClosed is wrapped when a connection closed while a request was in flight on it,
	// and when a node had no open connection to take a request.
	ErrConnClosed = errors.New("native: connection closed")
	// ErrNotSent is matched (errors.Is) by the error of a request that never left the
	// client: its node had no open connection, or the connection failed before the request
	// was written (the error matches ErrConnClosed too), or the request's timeout or context
	// ended while it waited for a free stream id on a connection whose ids were all in use,
	// or before it was sent (the error matches ErrTimeout and context.DeadlineExceeded, or
	// the context's error). Such a request did not run, whatever its idempotence. A request
	// written, in whole or in part, before its connection failed matches ErrConnClosed only:
	// it may have run; so does a request an earlier attempt of which was sent, whatever
	// happened to the later ones (a retry, or an attempt on a node that answered UNPREPARED
	// and never received the statement again), and one that ran on a node whose rows its
	// prepared metadata did not describe (the table changed), when the PREPARE sent again
	// there, or the request after it, was not sent. An attempt answered UNPREPARED did not
	// run: when it is the only one, and the PREPARE sent again never left the client, the
	// error matches ErrNotSent. A *NoHostAvailableError matches it only when every host's
	// attempt does.
	ErrNotSent = errors.New("native: the request was not sent")
	// ErrHostFiltered is wrapped when the control connection reached a node Config.HostFilter
	// excludes: it is not used (Connect fails when the filter excludes every contact point).
	ErrHostFiltered = errors.New("native: the node is excluded by Config.HostFilter")
	// ErrUnknownLocalDC is wrapped by Connect's error when Config.LocalDC names a data center
	// no node of the cluster is in (a misspelt name would otherwise send every request to
	// "remote" nodes without a word).
	ErrUnknownLocalDC = errors.New("native: Config.LocalDC names no data center of the cluster")
	// ErrNoPoolOpened is wrapped, with the *NoHostAvailableError listing each node's error,
	// by Connect's error when the control connection opened but no node's pool could (every
	// node's address refuses connections, say, as an AddressTranslator may make it).
	ErrNoPoolOpened = errors.New("native: the control connection opened but no node's pool could")
)

// notSentError is err, the error of a request that never left the client, matching ErrNotSent
// too; its message is err's.
type notSentError struct{ err error }

func (e notSentError) Error() string        { return e.err.Error() }
func (e notSentError) Unwrap() error        { return e.err }
func (e notSentError) Is(target error) bool { return target == ErrNotSent }

// NoHostAvailableError reports that a request could not be completed on any host. Errors
// holds the error of each host tried, in order: one per attempt (a node's attempts retried on
// it, RetrySameHost, each have theirs), and one per node that could not take the request.
type NoHostAvailableError struct {
	Errors []HostError
}

// HostError is the error of one attempt on one host.
type HostError struct {
	Host string
	Err  error
}

// Error lists the hosts tried and why each failed.
func (e *NoHostAvailableError) Error() string {
	if len(e.Errors) == 0 {
		return "native: no host available: no hosts to try"
	}
	var b strings.Builder
	b.WriteString("native: no host available (")
	for i, he := range e.Errors {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(he.Host)
		b.WriteString(": ")
		if he.Err == nil {
			b.WriteString("<nil>")
		} else {
			b.WriteString(he.Err.Error())
		}
	}
	b.WriteByte(')')
	return b.String()
}

// Is reports whether target is ErrNotSent and the request left the client for no host: every
// host's error matches ErrNotSent (or no host was tried). One attempt sent makes the whole
// error not match ErrNotSent, as the request may have run there.
func (e *NoHostAvailableError) Is(target error) bool {
	if target != ErrNotSent {
		return false
	}
	for _, he := range e.Errors {
		if !errors.Is(he.Err, ErrNotSent) {
			return false
		}
	}
	return true
}

// Unwrap returns each host's error, so errors.Is and errors.As look at every one, but for
// ErrNotSent, which Is answers for the request as a whole.
func (e *NoHostAvailableError) Unwrap() []error {
	out := make([]error, len(e.Errors))
	for i, he := range e.Errors {
		out[i] = attemptError{he.Err}
	}
	return out
}

// attemptError is err, with its message, matching what err matches but ErrNotSent: one host's
// error as NoHostAvailableError.Unwrap gives it, or the error of a request an earlier attempt
// of which was sent (see sentBefore).
type attemptError struct{ err error }

func (a attemptError) Error() string {
	if a.err == nil {
		return "<nil>"
	}
	return a.err.Error()
}

func (a attemptError) Is(target error) bool {
	return target != ErrNotSent && errors.Is(a.err, target)
}

func (a attemptError) As(target any) bool { return errors.As(a.err, target) }

// BindError reports a value that cannot be bound to a statement: a wrong number of values,
// a name that matches no bind marker, or a value the codec rejects (Err then wraps the
// codec's error, which carries the path inside tuples, collections and UDTs). Nothing is
// sent when binding fails.
type BindError struct {
	Statement string        // the CQL text
	Index     int           // 0-based position of the value, or -1 when the error is about the count
	Name      string        // bind marker name, when known
	Type      *cqltype.Type // CQL type of the marker, when known
	Err       error
}

// Error says which value of which statement failed and why.
func (e *BindError) Error() string {
	var b strings.Builder
	b.WriteString("native: binding ")
	if e.Index >= 0 {
		fmt.Fprintf(&b, "value %d", e.Index)
		if e.Name != "" {
			fmt.Fprintf(&b, " (%s", abbreviate(e.Name))
			if e.Type != nil {
				fmt.Fprintf(&b, " %s", e.Type)
			}
			b.WriteByte(')')
		} else if e.Type != nil {
			fmt.Fprintf(&b, " (%s)", e.Type)
		}
	} else {
		b.WriteString("values")
	}
	fmt.Fprintf(&b, " of %q: %v", abbreviate(e.Statement), e.Err)
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *BindError) Unwrap() error { return e.Err }

// ErrArgCount is wrapped by a BindError when the number of values does not match the
// statement's bind markers, and by a ScanError when the number of destinations does not match
// the row's columns.
var ErrArgCount = errors.New("wrong number of values")

// ScanError reports a column that cannot be decoded into its destination. Err wraps the
// codec's error, which carries the path inside tuples, collections and UDTs.
type ScanError struct {
	Column string        // column name
	Index  int           // 0-based column index, or -1 when the error is about the count
	Type   *cqltype.Type // CQL type of the column
	Err    error
}

// Error names the column and the cause.
func (e *ScanError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("native: scanning row: %v", e.Err)
	}
	return fmt.Sprintf("native: scanning column %d (%s %s): %v", e.Index, e.Column, e.Type, e.Err)
}

// Unwrap returns the underlying cause.
func (e *ScanError) Unwrap() error { return e.Err }

// abbreviate shortens s, a statement or a request's description quoted in an error message,
// to at most 120 bytes followed by "...". The cut falls on a character boundary: a multi-byte
// UTF-8 character straddling the limit is dropped whole, not split (it backs up at most three
// bytes, so that a string that is not UTF-8 is still cut near the limit).
func abbreviate(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	cut := max
	for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); back++ {
		cut--
	}
	return s[:cut] + "..."
}
