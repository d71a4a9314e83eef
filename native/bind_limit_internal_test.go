package native

import (
	"errors"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// TestEncodedValuesRefusedOverTheLimit: values whose encodings together pass the limit are
// refused with ErrInvalidValue, and those bound before stay readable. With the real limit
// (2 GiB, the range of the int32 offsets) three values of 800 MB would otherwise wrap the third
// offset negative, and reading that value (for the routing token) would panic; the test uses a
// small limit, as 2 GiB of values cannot be allocated in a test.
func TestEncodedValuesRefusedOverTheLimit(t *testing.T) {
	var e encodedValues
	blob := &cqltype.Type{Kind: cqltype.KindBlob}
	for i := range 3 {
		if err := e.appendUpTo(blob, make([]byte, 10), 32); err != nil {
			if i < 2 {
				t.Fatalf("value %d (%d bytes bound so far): %v", i, len(e.buf), err)
			}
			if !errors.Is(err, cqltype.ErrInvalidValue) {
				t.Fatalf("value %d: error %v does not wrap cqltype.ErrInvalidValue", i, err)
			}
			continue
		}
		if i == 2 {
			t.Fatalf("value 2 bound: the values take %d bytes, over the limit of 32", len(e.buf))
		}
	}
	if e.n != 2 || len(e.offs) != 2 || len(e.buf) != 28 {
		t.Fatalf("after the refusal: n=%d offs=%v len(buf)=%d, want 2 values in 28 bytes", e.n, e.offs, len(e.buf))
	}
	for i := range 2 {
		if b, ok := e.body(i); !ok || len(b) != 10 {
			t.Errorf("value %d reads back as %v (ok %t), want 10 bytes", i, b, ok)
		}
	}
}
