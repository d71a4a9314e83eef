package cqltype

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Causes wrapped by ValueError.Err; test for them with errors.Is.
var (
	// ErrUnsupportedGoType means the Go type cannot represent the CQL type
	// (for example a string for an int column, or a *float64 target for a uuid).
	ErrUnsupportedGoType = errors.New("unsupported Go type")
	// ErrOutOfRange means the value does not fit the target type without loss.
	ErrOutOfRange = errors.New("out of range")
	// ErrMalformedValue means the bytes are not a valid encoding of the CQL type.
	ErrMalformedValue = errors.New("malformed value")
	// ErrInvalidValue means a Go value is of a usable type but not valid for the
	// CQL type (a non-ASCII string for ascii, a vector of the wrong dimension,
	// a NULL element in a list, a duration with mixed signs...).
	ErrInvalidValue = errors.New("invalid value")
)

// ValueError reports a value that could not be encoded or decoded. It names the
// CQL type of the whole value, the place inside it where the problem is (for
// nested collections, tuples, UDTs and vectors), the Go type involved and the
// cause. Callers such as a session add the statement, parameter or column.
//
// Its message reads, for example:
//
//	map<text, frozen<tuple<int, text>>>: value["a"].1: cannot encode int64 9999999999 as int: out of range
type ValueError struct {
	Type   *Type  // CQL type of the whole value
	Path   string // position inside the value: "" for the value itself, `[2]`, `["a"].1`, `.city`
	At     *Type  // CQL type at Path
	GoType string // Go type being encoded, or decoded into
	Decode bool   // whether the error happened while decoding
	Value  string // short rendering of the offending Go value, when encoding
	Err    error  // the cause; wraps one of the Err* values of this package when it applies
}

// Error implements error.
func (e *ValueError) Error() string {
	var sb strings.Builder
	if e.Type != nil {
		sb.WriteString(e.Type.String())
		sb.WriteString(": ")
	}
	if e.Path != "" {
		sb.WriteString("value")
		sb.WriteString(e.Path)
		sb.WriteString(": ")
	}
	if e.Decode {
		sb.WriteString("cannot decode ")
		sb.WriteString(e.At.String())
		sb.WriteString(" into ")
		sb.WriteString(e.GoType)
	} else {
		sb.WriteString("cannot encode ")
		sb.WriteString(e.GoType)
		if e.Value != "" {
			sb.WriteByte(' ')
			sb.WriteString(e.Value)
		}
		sb.WriteString(" as ")
		sb.WriteString(e.At.String())
	}
	if e.Err != nil {
		sb.WriteString(": ")
		sb.WriteString(e.Err.Error())
	}
	return sb.String()
}

// Unwrap returns the cause.
func (e *ValueError) Unwrap() error { return e.Err }

// encodeError builds the error for a Go value v that cannot be encoded as at.
func encodeError(at *Type, v any, cause error) *ValueError {
	return &ValueError{At: at, GoType: goTypeName(v), Value: shortValue(v), Err: cause}
}

// decodeError builds the error for bytes of type at that cannot be decoded into a
// target of Go type goType.
func decodeError(at *Type, goType string, cause error) *ValueError {
	return &ValueError{At: at, GoType: goType, Decode: true, Err: cause}
}

func goTypeName(v any) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

// shortValue renders scalar values for error messages; composite values are
// left out since the path already points inside them.
func shortValue(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		if len(x) > 64 {
			x = x[:64]
		}
		s = strconv.Quote(x)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, bool:
		s = fmt.Sprint(x)
	default:
		return ""
	}
	if len(s) > 64 {
		s = s[:61] + "..."
	}
	return s
}

// withPath prefixes err's path with seg when err is a *ValueError.
func withPath(err error, seg string) error {
	if err == nil {
		return nil
	}
	var ve *ValueError
	if errors.As(err, &ve) {
		ve.Path = seg + ve.Path
	}
	return err
}

// finish sets the top-level type of a *ValueError before it leaves the package.
func finish(err error, t *Type) error {
	if err == nil {
		return nil
	}
	var ve *ValueError
	if errors.As(err, &ve) && ve.Type == nil {
		ve.Type = t
		if ve.At == nil {
			ve.At = t
		}
	}
	return err
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformedValue}, args...)...)
}

func outOfRange(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrOutOfRange}, args...)...)
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidValue}, args...)...)
}
