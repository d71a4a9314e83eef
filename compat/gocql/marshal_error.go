package gocql

import "fmt"

// MarshalError is returned by Marshal when a Go value cannot be encoded as
// the requested CQL type.
type MarshalError string

// Error returns the message.
func (m MarshalError) Error() string {
	return string(m)
}

func marshalErrorf(format string, args ...interface{}) MarshalError {
	return MarshalError(fmt.Sprintf(format, args...))
}

// UnmarshalError is returned by Unmarshal when CQL data cannot be decoded
// into the given Go value.
type UnmarshalError string

// Error returns the message.
func (m UnmarshalError) Error() string {
	return string(m)
}

func unmarshalErrorf(format string, args ...interface{}) UnmarshalError {
	return UnmarshalError(fmt.Sprintf(format, args...))
}
