package native

import (
	"github.com/cqlbridge/cqlbridge/native/internal/conn"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// serverError converts an ERROR response received from host over c into the typed error
// for its code.
func serverError(e *proto.ErrorResponse, host string, c *conn.Conn) error {
	code := ErrorCode(e.Code)
	if code != CodeRateLimit && isRateLimitCode(e.Code, c) {
		code = CodeRateLimit
	}
	base := RequestError{Code: code, Message: e.Message, Host: host, TraceID: e.TracingID, Traced: e.HasTracingID}
	cons := Consistency(e.Consistency)
	switch code {
	case CodeServer:
		return &ServerError{base}
	case CodeProtocol:
		return &ProtocolError{base}
	case CodeAuthentication:
		return &AuthenticationError{base}
	case CodeUnavailable:
		return &UnavailableError{RequestError: base, Consistency: cons, Required: int(e.Required), Alive: int(e.Alive)}
	case CodeOverloaded:
		return &OverloadedError{base}
	case CodeIsBootstrapping:
		return &IsBootstrappingError{base}
	case CodeTruncate:
		return &TruncateError{base}
	case CodeWriteTimeout:
		return &WriteTimeoutError{RequestError: base, Consistency: cons, Received: int(e.Received), BlockFor: int(e.BlockFor), WriteType: e.WriteType, Contentions: int(e.Contentions)}
	case CodeReadTimeout:
		return &ReadTimeoutError{RequestError: base, Consistency: cons, Received: int(e.Received), BlockFor: int(e.BlockFor), DataPresent: e.DataPresent}
	case CodeReadFailure:
		return &ReadFailureError{RequestError: base, Consistency: cons, Received: int(e.Received), BlockFor: int(e.BlockFor), NumFailures: int(e.NumFailures), Reasons: e.Reasons, DataPresent: e.DataPresent}
	case CodeFunctionFailure:
		return &FunctionFailureError{RequestError: base, Keyspace: e.Keyspace, Function: e.Function, ArgTypes: e.ArgTypes}
	case CodeWriteFailure:
		return &WriteFailureError{RequestError: base, Consistency: cons, Received: int(e.Received), BlockFor: int(e.BlockFor), NumFailures: int(e.NumFailures), Reasons: e.Reasons, WriteType: e.WriteType}
	case CodeCDCWriteFailure:
		return &CDCWriteFailureError{base}
	case CodeCASWriteUnknown:
		return &CASWriteUnknownError{RequestError: base, Consistency: cons, Received: int(e.Received), BlockFor: int(e.BlockFor)}
	case CodeSyntax:
		return &SyntaxError{base}
	case CodeUnauthorized:
		return &UnauthorizedError{base}
	case CodeInvalid:
		return &InvalidError{base}
	case CodeConfig:
		return &ConfigError{base}
	case CodeAlreadyExists:
		return &AlreadyExistsError{RequestError: base, Keyspace: e.Keyspace, Table: e.Table}
	case CodeUnprepared:
		return &UnpreparedError{RequestError: base, ID: e.UnpreparedID}
	case CodeRateLimit:
		return &RateLimitError{RequestError: base, OpType: e.RateLimitOpType, RejectedByCoordinator: e.RejectedByCoordinator}
	}
	return &base
}

// isRateLimitCode reports whether code is the rate limit error code a ScyllaDB server
// announced in SUPPORTED (SCYLLA_RATE_LIMIT_ERROR=ERROR_CODE=n).
func isRateLimitCode(code proto.ErrorCode, c *conn.Conn) bool {
	if c == nil {
		return false
	}
	announced, ok := proto.RateLimitCode(c.Supported())
	return ok && announced == code
}
