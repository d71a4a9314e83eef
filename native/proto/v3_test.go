package proto

import (
	"errors"
	"testing"
)

// preparedBody returns the body of a PREPARED result with one int bind marker k in ks.t, in
// the v3 layout, or the v4 one (with the partition key index of k) when pk is set.
func preparedBody(pk bool) []byte {
	b := AppendInt(nil, int32(ResultPrepared))
	b, _ = AppendShortBytes(b, []byte{0xAB})
	b = AppendInt(b, int32(MetaGlobalTablesSpec))
	b = AppendInt(b, 1)
	if pk {
		b = AppendInt(b, 1)
		b = AppendShort(b, 0)
	}
	b, _ = AppendString(b, "ks")
	b, _ = AppendString(b, "t")
	b, _ = AppendString(b, "k")
	b = AppendShort(b, 0x0009) // int
	b = AppendInt(b, int32(MetaNoMetadata))
	return AppendInt(b, 0)
}

// Protocol v3's prepared metadata has no partition key indexes: decoded at v3 it gives the
// bind markers and no indexes; v4's layout carries them.
func TestPreparedV3HasNoPKIndexes(t *testing.T) {
	for _, c := range []struct {
		v  Version
		pk bool
	}{{Version3, false}, {Version4, true}} {
		body := preparedBody(c.pk)
		r := AcquireResponse()
		err := r.Decode(Header{Version: c.v, Response: true, Opcode: OpResult, Length: len(body)}, body, nil, nil)
		if err != nil {
			t.Fatalf("v%d: %v", c.v, err)
		}
		p, ok := r.Msg.(*PreparedResult)
		if !ok || len(p.Bind) != 1 || p.Bind[0].Name != "k" || p.Bind[0].Table != "t" {
			t.Fatalf("v%d: %#v", c.v, r.Msg)
		}
		if want := map[bool]int{false: 0, true: 1}[c.pk]; len(p.PKIndexes) != want {
			t.Errorf("v%d: PKIndexes %v, want %d", c.v, p.PKIndexes, want)
		}
		r.Release()
	}
}

// A custom payload has no frame flag before v4.
func TestCustomPayloadNeedsV4(t *testing.T) {
	q := &Query{Query: "SELECT 1", FrameOptions: FrameOptions{CustomPayload: map[string][]byte{"k": {1}}}}
	dst := []byte{7}
	out, err := AppendFrame(dst, Version3, 1, q, nil)
	if !errors.Is(err, ErrCustomPayloadNeedsV4) || len(out) != 1 {
		t.Errorf("v3: %v, %d bytes; want ErrCustomPayloadNeedsV4 and dst unchanged", err, len(out))
	}
	if _, err := AppendFrame(nil, Version4, 1, q, nil); err != nil {
		t.Errorf("v4: %v", err)
	}
	q.CustomPayload = nil
	if _, err := AppendFrame(nil, Version3, 1, q, nil); err != nil {
		t.Errorf("v3 without payload: %v", err)
	}
}
