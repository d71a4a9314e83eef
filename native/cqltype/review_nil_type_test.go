package cqltype

import (
	"errors"
	"testing"
)

// Marshal, like Append and Decode, refuses a nil type with a *ValueError instead of
// dereferencing it (it panicked for every value but nil and Unset).
func TestMarshalNilType(t *testing.T) {
	for _, v := range []any{int32(1), "text", []int{1}, Unset} {
		var body []byte
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = errors.New("panic")
					t.Errorf("Marshal(nil, %T): panic %v", v, p)
				}
			}()
			body, err = Marshal(nil, v)
		}()
		var ve *ValueError
		if body != nil || !errors.As(err, &ve) {
			t.Errorf("Marshal(nil, %T) = %x, %v; want a *ValueError", v, body, err)
		}
	}
	if body, err := Marshal(nil, nil); body != nil || err != nil {
		t.Errorf("Marshal(nil, nil) = %x, %v; want NULL", body, err)
	}
}
