package engine

import "fmt"

// Protocol error codes used by the engine.
const (
	CodeServerError     ErrorCode = 0x0000
	CodeFunctionFailure ErrorCode = 0x1400
	CodeProtocolError   ErrorCode = 0x000A
	CodeSyntaxError     ErrorCode = 0x2000
	CodeUnauthorized    ErrorCode = 0x2100
	CodeInvalid         ErrorCode = 0x2200
	CodeConfigError     ErrorCode = 0x2300
	CodeAlreadyExists   ErrorCode = 0x2400
	CodeUnprepared      ErrorCode = 0x2500
)

func invalid(format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

func syntaxError(msg string) *Error { return &Error{Code: CodeSyntaxError, Message: msg} }

func configError(format string, args ...any) *Error {
	return &Error{Code: CodeConfigError, Message: fmt.Sprintf(format, args...)}
}

func unsupported(what string) *Error {
	return &Error{Code: CodeInvalid, Message: "cqlsim: " + what + " is not supported"}
}

func keyspaceExists(ks string) *Error {
	return &Error{Code: CodeAlreadyExists, Message: fmt.Sprintf("Cannot add existing keyspace \"%s\"", ks), Keyspace: ks}
}

func tableExists(ks, table string) *Error {
	return &Error{Code: CodeAlreadyExists, Message: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", table, ks), Keyspace: ks, Table: table}
}

func noKeyspace(ks string) *Error { return invalid("Keyspace '%s' does not exist", ks) }
