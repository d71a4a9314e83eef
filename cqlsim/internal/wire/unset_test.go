package wire

import "testing"

// Cassandra reads an unset value (length -2) as NULL before protocol v4, which added unset
// values; from v4 on it is unset.
func TestUnsetBeforeV4IsNull(t *testing.T) {
	body := []byte{
		0x00, 0x00, 0x00, 0x08, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '?', // [long string]
		0x00, 0x01, // consistency ONE
		0x01,       // values
		0x00, 0x01, // one value
		0xFF, 0xFF, 0xFF, 0xFE, // length -2
	}
	for v, unset := range map[uint8]bool{3: false, 4: true, 5: true} {
		b := body
		if v >= 5 {
			b = append(append(append([]byte(nil), body[:14]...), 0, 0, 0, 1), body[15:]...)
		}
		req, err := DecodeRequest(Header{Version: v, Opcode: OpQuery, Length: int32(len(b))}, b)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got := req.Query.Params.Values.Positional
		if len(got) != 1 || got[0].Unset != unset || got[0].Bytes != nil {
			t.Errorf("v%d: %+v, want unset=%v", v, got, unset)
		}
	}
}
