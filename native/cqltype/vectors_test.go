package cqltype

// Byte-exact encodings derived from the protocol specification
// (native_protocol_v4.spec section 6, native_protocol_v5.spec for vint and
// duration) and RFC 9562, not from this implementation.

import (
	"encoding/hex"
	"math"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

func TestSpecVectors(t *testing.T) {
	cases := []struct {
		typ  *Type
		v    any
		body string // hex
	}{
		// 6.23: the varint table of the specification.
		{tVarint, 0, "00"},
		{tVarint, 1, "01"},
		{tVarint, 127, "7F"},
		{tVarint, 128, "0080"},
		{tVarint, 129, "0081"},
		{tVarint, -1, "FF"},
		{tVarint, -128, "80"},
		{tVarint, -129, "FF7F"},
		{tVarint, big.NewInt(-129), "FF7F"},
		{tVarint, uint64(math.MaxUint64), "00FFFFFFFFFFFFFFFF"},
		{tVarint, int64(math.MinInt64), "8000000000000000"},
		// 6.5: dates are days with the epoch at 2^31.
		{tDate, Date(0), "80000000"},
		{tDate, Date(math.MinInt32), "00000000"},
		{tDate, Date(math.MaxInt32), "FFFFFFFF"},
		{tDate, time.Date(1970, 1, 2, 23, 0, 0, 0, time.UTC), "80000001"},
		{tDate, time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), "7FFFFFFF"},
		// 6.6: decimal = [int scale] varint unscaled; 1.23 and -0.5.
		{tDecimal, NewDecimal(123, 2), "00000002 7B"},
		{tDecimal, NewDecimal(-5, 1), "00000001 FB"},
		// 6.4, 6.7, 6.8, 6.10, 6.2, 6.14, 6.19.
		{tBoolean, true, "01"},
		{tBoolean, false, "00"},
		{tDouble, 1.0, "3FF0000000000000"},
		{tFloat, float32(1), "3F800000"},
		{tFloat, float32(-2), "C0000000"},
		{tInt, -2, "FFFFFFFE"},
		{tBigint, int64(256), "0000000000000100"},
		{tSmallint, -1, "FFFF"},
		{tTinyint, -128, "80"},
		// 6.16 and 6.17.
		{tTime, time.Duration(86399999999999), "00004E94914EFFFF"},
		{tTime, time.Duration(0), "0000000000000000"},
		{tTimestamp, time.UnixMilli(-1), "FFFFFFFFFFFFFFFF"},
		{tTimestamp, time.Unix(1, 0), "00000000000003E8"},
		// 6.9.
		{tInet, netip.MustParseAddr("127.0.0.1"), "7F000001"},
		{tInet, "::1", "00000000000000000000000000000001"},
		// 6.11-6.13, 6.20, section 7.
		{NewList(tInt), []int{1, 2}, "00000002 00000004 00000001 00000004 00000002"},
		{NewSet(tText), []string{"a"}, "00000001 00000001 61"},
		{NewMap(tText, tInt), map[string]int{"a": 1}, "00000001 00000001 61 00000004 00000001"},
		{NewTuple(tInt, tText), []any{1, nil}, "00000004 00000001 FFFFFFFF"},
		{NewUDT("k", "u", Field{"a", tText}, Field{"b", tInt}), map[string]any{"a": ""}, "00000000 FFFFFFFF"},
		// v5 spec 5.8: duration = three zig-zag vints. 1000 ns zig-zags to 2000 =
		// 0x7D0, which takes one extra byte: 10 000111 11010000.
		{tDuration, Duration{Months: 1, Days: 2, Nanoseconds: 3}, "02 04 06"},
		{tDuration, Duration{Nanoseconds: 1000}, "00 00 87D0"},
		{tDuration, Duration{Months: -1}, "01 00 00"},
		{tDuration, Duration{Nanoseconds: math.MinInt64}, "00 00 FFFFFFFFFFFFFFFFFF"},
		// Vectors (Cassandra 5): fixed-size elements packed, others with an
		// unsigned vint length each.
		{NewVector(tFloat, 2), []float32{1, -2}, "3F800000 C0000000"},
		{NewVector(tInt, 2), []int{1, 2}, "00000001 00000002"},
		{NewVector(tText, 2), []string{"a", ""}, "01 61 00"},
		{NewVector(tSmallint, 1), []int16{1}, "02 0001"},
		{NewVector(tText, 1), []string{strings.Repeat("x", 200)}, "80C8" + strings.Repeat("78", 200)},
	}
	for _, c := range cases {
		want := unhex(c.body)
		got := encodeBody(t, c.typ, c.v)
		if string(got) != string(want) {
			t.Errorf("%s %v: got %X, want %X", c.typ, c.v, got, want)
			continue
		}
		// And the spec bytes decode back to the value.
		var back any
		if err := Decode(c.typ, want, &back); err != nil {
			t.Errorf("%s: decoding %X: %v", c.typ, want, err)
		}
	}
}

func TestSpecDateExamples(t *testing.T) {
	// The three examples of section 6.5, rendered as Cassandra renders them: the spec
	// writes the last one without the '+' that Cassandra puts before years after 9999.
	for _, c := range []struct {
		raw  string
		want string
	}{{"00000000", "-5877641-06-23"}, {"80000000", "1970-01-01"}, {"FFFFFFFF", "+5881580-07-11"}} {
		d, err := DecodeDate(unhex(c.raw))
		if err != nil {
			t.Fatal(err)
		}
		if d.String() != c.want {
			t.Errorf("%s: %s, want %s", c.raw, d, c.want)
		}
	}
}

// TestVarintDefinition checks random big integers against the definition: the
// shortest big-endian two's complement form.
func TestVarintDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		raw := make([]byte, rng.IntN(24)+1)
		binaryFill(rng, raw)
		x := new(big.Int).SetBytes(raw)
		x.Rsh(x, uint(rng.IntN(8)))
		if rng.IntN(2) == 0 {
			x.Neg(x)
		}
		b := encodeBody(t, tVarint, x)
		if len(b) > 1 && ((b[0] == 0 && b[1]&0x80 == 0) || (b[0] == 0xFF && b[1]&0x80 != 0)) {
			t.Fatalf("%s: %X is not minimal", x, b)
		}
		v := new(big.Int).SetBytes(b)
		if b[0]&0x80 != 0 {
			v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		if v.Cmp(x) != 0 {
			t.Fatalf("%s encoded as %X, which means %s", x, b, v)
		}
		var back *big.Int
		if err := Decode(tVarint, b, &back); err != nil || back.Cmp(x) != 0 {
			t.Fatalf("%X decoded to %v, %v", b, back, err)
		}
	}
}

func TestUnsignedVint(t *testing.T) {
	// Size boundaries: n extra bytes hold 7(n+1) bits, the 9-byte form 64 bits.
	for _, c := range []struct {
		v    uint64
		want string
	}{
		{0, "00"}, {0x7F, "7F"}, {0x80, "8080"}, {0x3FFF, "BFFF"}, {0x4000, "C04000"},
		{1<<56 - 1, "FEFFFFFFFFFFFFFF"}, {1 << 56, "FF0100000000000000"}, {math.MaxUint64, "FFFFFFFFFFFFFFFFFF"},
	} {
		got := appendUvint(nil, c.v)
		if hex.EncodeToString(got) != strings.ToLower(c.want) {
			t.Errorf("%#x: %X, want %s", c.v, got, c.want)
		}
		back, n := readUvint(got)
		if back != c.v || n != len(got) {
			t.Errorf("%X read as %#x (%d bytes)", got, back, n)
		}
	}
	for i := range 64 {
		for _, v := range []uint64{1<<i - 1, 1 << i, 1<<i + 1} {
			b := appendUvint(nil, v)
			if back, n := readUvint(b); back != v || n != len(b) {
				t.Fatalf("%#x -> %X -> %#x", v, b, back)
			}
		}
	}
	if _, n := readUvint([]byte{0xC0, 0x01}); n != 0 {
		t.Error("truncated vint accepted")
	}
}

func TestTimeUUIDVector(t *testing.T) {
	// RFC 9562 appendix A.1: 2022-02-22 14:22:22 -05:00, clock sequence 0x33C8,
	// node 9F6BDECED846.
	want, err := ParseUUID("C232AB00-9414-11EC-B3C8-9F6BDECED846")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2022, 2, 22, 14, 22, 22, 0, time.FixedZone("EST", -5*3600))
	got := TimeUUIDAt(at, 0x33C8, [6]byte{0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46})
	if got != want {
		t.Errorf("TimeUUIDAt = %s, want %s", got, want)
	}
	if !want.Time().Equal(at) || want.Time().Location() != time.UTC {
		t.Errorf("Time() = %v, want %v in UTC", want.Time(), at)
	}
	if want.Version() != 1 || want.ClockSequence() != 0x33C8 || want.Node() != [6]byte{0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46} {
		t.Errorf("fields: v%d seq %#x node %x", want.Version(), want.ClockSequence(), want.Node())
	}
	if got.String() != "c232ab00-9414-11ec-b3c8-9f6bdeced846" {
		t.Errorf("String() = %s", got)
	}
}
