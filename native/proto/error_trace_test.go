package proto

import "testing"

// An ERROR answering a traced request starts with the tracing id, like any traced response;
// the id stays with the ErrorResponse, which outlives the frame.
func TestTracedErrorKeepsTracingID(t *testing.T) {
	id := [16]byte{0x5e, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff}
	body := append([]byte(nil), id[:]...)
	body = AppendInt(body, int32(ErrCodeInvalid))
	body, _ = AppendString(body, "Undefined column name nope")
	r := AcquireResponse()
	if err := r.Decode(Header{Version: Version4, Response: true, Flags: FlagTracing, Opcode: OpError}, body, nil, nil); err != nil {
		t.Fatal(err)
	}
	e, ok := r.Msg.(*ErrorResponse)
	if !ok {
		t.Fatalf("Msg = %T, want *ErrorResponse", r.Msg)
	}
	r.Release()
	if !e.HasTracingID || e.TracingID != id || e.Code != ErrCodeInvalid || e.Message != "Undefined column name nope" {
		t.Fatalf("traced error = %+v", e)
	}

	r = AcquireResponse()
	defer r.Release()
	if err := r.Decode(Header{Version: Version4, Response: true, Opcode: OpError}, body[16:], nil, nil); err != nil {
		t.Fatal(err)
	}
	if e := r.Msg.(*ErrorResponse); e.HasTracingID || e.TracingID != ([16]byte{}) {
		t.Fatalf("untraced error has a tracing id: %+v", e)
	}
}
