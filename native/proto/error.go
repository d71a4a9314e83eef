package proto

import (
	"fmt"
	"net/netip"
	"strings"
)

// ErrorCode is the code of an ERROR response.
type ErrorCode int32

// The error codes of protocol v4 and v5, and ScyllaDB's rate limit error.
const (
	ErrCodeServer          ErrorCode = 0x0000
	ErrCodeProtocol        ErrorCode = 0x000A
	ErrCodeAuthentication  ErrorCode = 0x0100 // bad credentials
	ErrCodeUnavailable     ErrorCode = 0x1000
	ErrCodeOverloaded      ErrorCode = 0x1001
	ErrCodeIsBootstrapping ErrorCode = 0x1002
	ErrCodeTruncate        ErrorCode = 0x1003
	ErrCodeWriteTimeout    ErrorCode = 0x1100
	ErrCodeReadTimeout     ErrorCode = 0x1200
	ErrCodeReadFailure     ErrorCode = 0x1300
	ErrCodeFunctionFailure ErrorCode = 0x1400
	ErrCodeWriteFailure    ErrorCode = 0x1500
	ErrCodeCDCWriteFailure ErrorCode = 0x1600 // v5
	ErrCodeCASWriteUnknown ErrorCode = 0x1700 // v5
	ErrCodeSyntax          ErrorCode = 0x2000
	ErrCodeUnauthorized    ErrorCode = 0x2100
	ErrCodeInvalid         ErrorCode = 0x2200
	ErrCodeConfig          ErrorCode = 0x2300
	ErrCodeAlreadyExists   ErrorCode = 0x2400
	ErrCodeUnprepared      ErrorCode = 0x2500
	// ErrCodeRateLimit is the code ScyllaDB uses by default for its per-partition rate limit
	// error (the SCYLLA_RATE_LIMIT_ERROR extension advertises the actual code; see
	// DecodeOptions.RateLimitCode).
	ErrCodeRateLimit ErrorCode = 0xF000
)

var errorCodeNames = map[ErrorCode]string{
	ErrCodeServer: "server error", ErrCodeProtocol: "protocol error",
	ErrCodeAuthentication: "authentication error", ErrCodeUnavailable: "unavailable",
	ErrCodeOverloaded: "overloaded", ErrCodeIsBootstrapping: "is bootstrapping",
	ErrCodeTruncate: "truncate error", ErrCodeWriteTimeout: "write timeout",
	ErrCodeReadTimeout: "read timeout", ErrCodeReadFailure: "read failure",
	ErrCodeFunctionFailure: "function failure", ErrCodeWriteFailure: "write failure",
	ErrCodeCDCWriteFailure: "CDC write failure", ErrCodeCASWriteUnknown: "CAS write unknown",
	ErrCodeSyntax: "syntax error", ErrCodeUnauthorized: "unauthorized", ErrCodeInvalid: "invalid",
	ErrCodeConfig: "config error", ErrCodeAlreadyExists: "already exists",
	ErrCodeUnprepared: "unprepared", ErrCodeRateLimit: "rate limit reached",
}

// String returns a short description such as "read timeout".
func (c ErrorCode) String() string {
	if s, ok := errorCodeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("error code 0x%04x", int32(c))
}

// ErrorResponse is a decoded ERROR message. It is an error; the fields beyond Code and Message
// are filled only for the codes that carry them (see each field). An ErrorResponse is allocated
// per error and does not refer to the frame buffer, so it may be kept after Response.Release.
type ErrorResponse struct {
	Code    ErrorCode
	Message string

	// Consistency is set for Unavailable, WriteTimeout, ReadTimeout, ReadFailure, WriteFailure
	// and CASWriteUnknown.
	Consistency Consistency
	// Required and Alive are set for Unavailable.
	Required, Alive int32
	// Received and BlockFor are set for WriteTimeout, ReadTimeout, ReadFailure, WriteFailure and
	// CASWriteUnknown.
	Received, BlockFor int32
	// WriteType is set for WriteTimeout and WriteFailure ("SIMPLE", "BATCH", "CAS", ...).
	WriteType string
	// DataPresent is set for ReadTimeout and ReadFailure.
	DataPresent bool
	// NumFailures is set for ReadFailure and WriteFailure.
	NumFailures int32
	// Reasons maps failing replicas to their failure codes (ReadFailure, WriteFailure; v5 only).
	Reasons map[netip.Addr]uint16
	// Contentions is set for a CAS WriteTimeout in v5.
	Contentions uint16
	// Keyspace is set for FunctionFailure and AlreadyExists.
	Keyspace string
	// Table is set for AlreadyExists (empty when a keyspace already exists).
	Table string
	// Function and ArgTypes are set for FunctionFailure.
	Function string
	ArgTypes []string
	// UnpreparedID is the statement id the server does not know (Unprepared).
	UnpreparedID []byte
	// RateLimitOpType (0 read, 1 write) and RejectedByCoordinator are set for ScyllaDB's
	// rate limit error.
	RateLimitOpType       byte
	RejectedByCoordinator bool

	// TracingID is the tracing session id of the failed request when it was traced
	// (FlagTracing) and the server sent one with the error; HasTracingID tells.
	TracingID    [16]byte
	HasTracingID bool
}

// Error returns the code's description and the server's message, with the most useful fields.
func (e *ErrorResponse) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "cql: %s (0x%04x): %s", e.Code, int32(e.Code), e.Message)
	switch e.Code {
	case ErrCodeUnavailable:
		fmt.Fprintf(&sb, " [consistency=%s required=%d alive=%d]", e.Consistency, e.Required, e.Alive)
	case ErrCodeWriteTimeout:
		fmt.Fprintf(&sb, " [consistency=%s received=%d blockfor=%d writetype=%s]", e.Consistency, e.Received, e.BlockFor, e.WriteType)
	case ErrCodeReadTimeout:
		fmt.Fprintf(&sb, " [consistency=%s received=%d blockfor=%d datapresent=%t]", e.Consistency, e.Received, e.BlockFor, e.DataPresent)
	case ErrCodeReadFailure:
		fmt.Fprintf(&sb, " [consistency=%s received=%d blockfor=%d failures=%d datapresent=%t]", e.Consistency, e.Received, e.BlockFor, e.NumFailures, e.DataPresent)
	case ErrCodeWriteFailure:
		fmt.Fprintf(&sb, " [consistency=%s received=%d blockfor=%d failures=%d writetype=%s]", e.Consistency, e.Received, e.BlockFor, e.NumFailures, e.WriteType)
	case ErrCodeCASWriteUnknown:
		fmt.Fprintf(&sb, " [consistency=%s received=%d blockfor=%d]", e.Consistency, e.Received, e.BlockFor)
	case ErrCodeAlreadyExists:
		fmt.Fprintf(&sb, " [keyspace=%s table=%s]", e.Keyspace, e.Table)
	case ErrCodeFunctionFailure:
		fmt.Fprintf(&sb, " [keyspace=%s function=%s argtypes=%v]", e.Keyspace, e.Function, e.ArgTypes)
	case ErrCodeUnprepared:
		fmt.Fprintf(&sb, " [id=%x]", e.UnpreparedID)
	}
	return sb.String()
}

// Opcode returns OpError.
func (*ErrorResponse) Opcode() Opcode { return OpError }

func decodeError(d *decoder, version Version, rateLimitCode ErrorCode) *ErrorResponse {
	e := &ErrorResponse{Code: ErrorCode(d.int_("error code"))}
	e.Message = d.string_("error message")
	code := e.Code
	if code == rateLimitCode {
		code = ErrCodeRateLimit
	}
	switch code {
	case ErrCodeUnavailable:
		e.Consistency = d.consistency("unavailable consistency")
		e.Required = d.int_("unavailable required")
		e.Alive = d.int_("unavailable alive")
	case ErrCodeWriteTimeout:
		e.Consistency = d.consistency("write timeout consistency")
		e.Received = d.int_("write timeout received")
		e.BlockFor = d.int_("write timeout blockfor")
		e.WriteType = d.string_("write timeout writetype")
		if version >= Version5 && e.WriteType == "CAS" && d.remaining() >= 2 {
			e.Contentions = d.short("write timeout contentions")
		}
	case ErrCodeReadTimeout:
		e.Consistency = d.consistency("read timeout consistency")
		e.Received = d.int_("read timeout received")
		e.BlockFor = d.int_("read timeout blockfor")
		e.DataPresent = d.byte_("read timeout data_present") != 0
	case ErrCodeReadFailure:
		e.Consistency = d.consistency("read failure consistency")
		e.Received = d.int_("read failure received")
		e.BlockFor = d.int_("read failure blockfor")
		decodeFailures(d, e, version)
		e.DataPresent = d.byte_("read failure data_present") != 0
	case ErrCodeWriteFailure:
		e.Consistency = d.consistency("write failure consistency")
		e.Received = d.int_("write failure received")
		e.BlockFor = d.int_("write failure blockfor")
		decodeFailures(d, e, version)
		e.WriteType = d.string_("write failure writetype")
	case ErrCodeCASWriteUnknown:
		e.Consistency = d.consistency("CAS write unknown consistency")
		e.Received = d.int_("CAS write unknown received")
		e.BlockFor = d.int_("CAS write unknown blockfor")
	case ErrCodeFunctionFailure:
		e.Keyspace = d.string_("function failure keyspace")
		e.Function = d.string_("function failure function")
		e.ArgTypes = d.stringList("function failure arg types")
	case ErrCodeAlreadyExists:
		e.Keyspace = d.string_("already exists keyspace")
		e.Table = d.string_("already exists table")
	case ErrCodeUnprepared:
		e.UnpreparedID = append([]byte(nil), d.shortBytes("unprepared id")...)
	case ErrCodeRateLimit:
		e.RateLimitOpType = d.byte_("rate limit op_type")
		e.RejectedByCoordinator = d.byte_("rate limit rejected_by_coordinator") != 0
	}
	return e
}

// decodeFailures reads <numfailures> (v4) or <reasonmap> (v5).
func decodeFailures(d *decoder, e *ErrorResponse, version Version) {
	if version < Version5 {
		e.NumFailures = d.int_("numfailures")
		return
	}
	n := d.count("reason map size", 7)
	e.NumFailures = int32(n)
	if n > 0 {
		e.Reasons = make(map[netip.Addr]uint16, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		size := d.byte_("reason map address size")
		if size != 4 && size != 16 {
			d.failf("reason map address size %d, want 4 or 16", size)
			return
		}
		addr, _ := netip.AddrFromSlice(d.take(int(size), "reason map address"))
		e.Reasons[addr.Unmap()] = d.short("reason map failure code")
	}
}
