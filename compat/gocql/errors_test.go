package gocql

import (
	"errors"
	"fmt"
	"testing"
)

func TestRequestErrorsExposeCodeAndMessage(t *testing.T) {
	var err error = &RequestErrUnavailable{
		errorFrame:  newErrorFrame(ErrCodeUnavailable, "Cannot achieve consistency level QUORUM"),
		Consistency: Quorum, Required: 3, Alive: 1,
	}
	wrapped := fmt.Errorf("insert: %w", err)
	var re RequestError
	if !errors.As(wrapped, &re) {
		t.Fatal("errors.As found no RequestError")
	}
	if re.Code() != ErrCodeUnavailable || re.Message() != "Cannot achieve consistency level QUORUM" || re.Error() != re.Message() {
		t.Errorf("Code %#x Message %q Error %q", re.Code(), re.Message(), re.Error())
	}
	var un *RequestErrUnavailable
	if !errors.As(wrapped, &un) || un.Alive != 1 || un.Required != 3 {
		t.Fatalf("errors.As(*RequestErrUnavailable) = %v", un)
	}
	if s := un.String(); s != "[request_error_unavailable consistency=QUORUM required=3 alive=1]" {
		t.Errorf("String() = %q", s)
	}

	syntax := newErrorFrame(ErrCodeSyntax, "line 1:0 no viable alternative")
	if syntax.String() != `[error code=2000 message="line 1:0 no viable alternative"]` {
		t.Errorf("errorFrame String() = %q", syntax.String())
	}
	if !errors.As(error(syntax), &re) || re.Code() != ErrCodeSyntax {
		t.Error("a plain server error is not a RequestError")
	}
}

func TestProtocolAndPlainErrors(t *testing.T) {
	err := NewErrProtocol("unexpected opcode %d", 9)
	var pe ErrProtocol
	if !errors.As(err, &pe) || err.Error() != "unexpected opcode 9" {
		t.Errorf("NewErrProtocol = %#v", err)
	}
	if (Error{Code: 1, Message: "m"}).Error() != "m" {
		t.Error("Error.Error() is not the message")
	}
	if ErrNotFound.Error() != "not found" || ErrNoConnections.Error() != "gocql: no hosts available in the pool" {
		t.Error("sentinel messages differ from gocql v1.7.0")
	}
}
