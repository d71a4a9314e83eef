package native

import (
	"errors"
	"net/netip"
	"reflect"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Every protocol error code becomes its typed error with all of its fields, and every typed
// error unwraps to the RequestError with the code, message and host.
func TestServerErrorConversion(t *testing.T) {
	reasons := map[netip.Addr]uint16{netip.MustParseAddr("10.0.0.2"): 3}
	cases := []struct {
		in   proto.ErrorResponse
		want error
	}{
		{proto.ErrorResponse{Code: proto.ErrCodeServer}, &ServerError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeProtocol}, &ProtocolError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeAuthentication}, &AuthenticationError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeUnavailable, Consistency: proto.Quorum, Required: 2, Alive: 1},
			&UnavailableError{Consistency: Quorum, Required: 2, Alive: 1}},
		{proto.ErrorResponse{Code: proto.ErrCodeOverloaded}, &OverloadedError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeIsBootstrapping}, &IsBootstrappingError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeTruncate}, &TruncateError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeWriteTimeout, Consistency: proto.All, Received: 1, BlockFor: 3, WriteType: "CAS", Contentions: 4},
			&WriteTimeoutError{Consistency: All, Received: 1, BlockFor: 3, WriteType: "CAS", Contentions: 4}},
		{proto.ErrorResponse{Code: proto.ErrCodeReadTimeout, Consistency: proto.One, Received: 0, BlockFor: 1, DataPresent: true},
			&ReadTimeoutError{Consistency: One, BlockFor: 1, DataPresent: true}},
		{proto.ErrorResponse{Code: proto.ErrCodeReadFailure, Consistency: proto.Two, Received: 1, BlockFor: 2, NumFailures: 1, Reasons: reasons, DataPresent: true},
			&ReadFailureError{Consistency: Two, Received: 1, BlockFor: 2, NumFailures: 1, Reasons: reasons, DataPresent: true}},
		{proto.ErrorResponse{Code: proto.ErrCodeFunctionFailure, Keyspace: "ks", Function: "f", ArgTypes: []string{"int"}},
			&FunctionFailureError{Keyspace: "ks", Function: "f", ArgTypes: []string{"int"}}},
		{proto.ErrorResponse{Code: proto.ErrCodeWriteFailure, Consistency: proto.Three, Received: 2, BlockFor: 3, NumFailures: 1, WriteType: "BATCH"},
			&WriteFailureError{Consistency: Three, Received: 2, BlockFor: 3, NumFailures: 1, WriteType: "BATCH"}},
		{proto.ErrorResponse{Code: proto.ErrCodeCDCWriteFailure}, &CDCWriteFailureError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeCASWriteUnknown, Consistency: proto.Serial, Received: 1, BlockFor: 2},
			&CASWriteUnknownError{Consistency: Serial, Received: 1, BlockFor: 2}},
		{proto.ErrorResponse{Code: proto.ErrCodeSyntax}, &SyntaxError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeUnauthorized}, &UnauthorizedError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeInvalid}, &InvalidError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeConfig}, &ConfigError{}},
		{proto.ErrorResponse{Code: proto.ErrCodeAlreadyExists, Keyspace: "ks", Table: "t"}, &AlreadyExistsError{Keyspace: "ks", Table: "t"}},
		{proto.ErrorResponse{Code: proto.ErrCodeUnprepared, UnpreparedID: []byte{1, 2}}, &UnpreparedError{ID: []byte{1, 2}}},
		{proto.ErrorResponse{Code: proto.ErrCodeRateLimit, RateLimitOpType: 1, RejectedByCoordinator: true},
			&RateLimitError{OpType: 1, RejectedByCoordinator: true}},
	}
	for _, c := range cases {
		c.in.Message = "msg"
		got := serverError(&c.in, "h:9042", nil)
		// Fill the expected common part.
		base := reflect.ValueOf(c.want).Elem().FieldByName("RequestError")
		base.Set(reflect.ValueOf(RequestError{Code: ErrorCode(c.in.Code), Message: "msg", Host: "h:9042"}))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("code 0x%04x: got %#v, want %#v", int32(c.in.Code), got, c.want)
		}
		var re *RequestError
		if !errors.As(got, &re) || re.Code != ErrorCode(c.in.Code) || re.Host != "h:9042" || got.Error() == "" {
			t.Errorf("code 0x%04x does not unwrap to its RequestError: %v", int32(c.in.Code), got)
		}
	}
	// An unknown code keeps its number.
	got := serverError(&proto.ErrorResponse{Code: 0x7777, Message: "?"}, "h", nil)
	var re *RequestError
	if !errors.As(got, &re) || re.Code != 0x7777 {
		t.Errorf("unknown code: %#v", got)
	}
}
