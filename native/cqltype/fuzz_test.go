package cqltype

import (
	"bytes"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fuzzTypes are the types FuzzDecode picks from: every kind, nested ones, and
// vectors of fixed- and variable-size elements.
func fuzzTypes() []*Type {
	udt := NewUDT("ks", "u", Field{"a", tInt}, Field{"b", NewList(tText)}, Field{"c", NewUDT("ks", "v", Field{"d", tUUID})})
	return append(sampleTypes(),
		NewMap(tInt, NewTuple(tText, tVarint)),
		NewList(NewMap(tBigint, tDecimal)),
		NewSet(tInet),
		NewTuple(tDuration, tDate, tTime, tTimestamp),
		NewVector(tSmallint, 3),
		NewVector(tVarint, 2),
		NewVector(udt, 1),
		udt,
	)
}

// fuzzTargets returns fresh typed targets to decode into besides *any.
func fuzzTargets() []any {
	return []any{new(int), new(int64), new(int8), new(uint16), new(string), new([]byte), new(float32), new(float64),
		new(bool), new(time.Time), new(time.Duration), new(UUID), new(Date), new(Duration), new(Decimal), new(*big.Int),
		new([]int32), new([]string), new(map[string]int), new(map[int32][]string), new([2]any), new(pair),
		new(address), new([]float32), new(map[any]any), new(map[string]any), new([]*string)}
}

// FuzzDecode decodes arbitrary bytes as each type, into *any and typed targets:
// it must never panic, and what decodes into *any must encode again and decode
// to the same value.
func FuzzDecode(f *testing.F) {
	types := fuzzTypes()
	for i, typ := range types {
		for _, v := range []any{nil, []any{1}, map[string]any{"a": 1}} {
			if b, err := Marshal(typ, v); err == nil && b != nil {
				f.Add(uint8(i), b)
			}
		}
		f.Add(uint8(i), []byte{})
		f.Add(uint8(i), []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7})
	}
	f.Add(uint8(0), []byte("hello"))
	f.Fuzz(func(t *testing.T, sel uint8, data []byte) {
		typ := types[int(sel)%len(types)]
		for _, dst := range fuzzTargets() {
			_ = Decode(typ, data, dst) // must not panic
		}
		var v any
		if err := Decode(typ, data, &v); err != nil {
			return
		}
		body, err := Marshal(typ, v)
		if err != nil {
			// Values the server would not send (NULL inside a list, a
			// timeuuid of another version, a duration with mixed signs)
			// decode but are refused on the way back; that is fine.
			return
		}
		var again any
		if err := Decode(typ, body, &again); err != nil {
			t.Fatalf("%s: re-decoding %x (from %x): %v", typ, body, data, err)
		}
		if diff := cmp.Diff(v, again, cmpOpts, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: %x decoded, encoded as %x and decoded differently (-first +second):\n%s", typ, data, body, diff)
		}
	})
}

// FuzzScalarRoundTrip checks decode(encode(x)) == x for the scalar types.
func FuzzScalarRoundTrip(f *testing.F) {
	f.Add(int64(0), "", 0.0, []byte(nil))
	f.Add(int64(math.MinInt64), "héllo", math.Inf(-1), []byte{0x80})
	f.Add(int64(math.MaxInt64), "\x00\xff", math.NaN(), []byte{1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, n int64, s string, fl float64, raw []byte) {
		check := func(typ *Type, in, want any) {
			t.Helper()
			body, err := Marshal(typ, in)
			if err != nil {
				t.Fatalf("Marshal(%s, %T %v): %v", typ, in, in, err)
			}
			got := decodeAs(t, typ, body, want)
			if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
				t.Fatalf("%s %v: (-want +got)\n%s", typ, in, diff)
			}
		}
		check(tBigint, n, n)
		check(tCounter, n, n)
		check(tVarint, n, n)
		check(tTimestamp, n, n)
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			check(tInt, n, int32(n))
			check(tDate, Date(n), Date(n))
		} else if _, err := Marshal(tInt, n); err == nil {
			t.Fatalf("int accepted %d", n)
		}
		if n >= math.MinInt16 && n <= math.MaxInt16 {
			check(tSmallint, int(n), int16(n))
		}
		if n >= math.MinInt8 && n <= math.MaxInt8 {
			check(tTinyint, int(n), int8(n))
		}
		if n >= 0 && n <= maxTimeOfDay {
			check(tTime, time.Duration(n), time.Duration(n))
		}
		big1 := new(big.Int).Mul(big.NewInt(n), big.NewInt(n))
		big1.Sub(big1, big.NewInt(n))
		check(tVarint, big1, big1)
		check(tDecimal, Decimal{Unscaled: big1, Scale: int32(n)}, Decimal{Unscaled: big1, Scale: int32(n)})
		check(tDuration, time.Duration(n), time.Duration(n))
		if n >= 0 {
			check(tDuration, Duration{int32(n >> 33), int32(n >> 32), n}, Duration{int32(n >> 33), int32(n >> 32), n})
		}
		check(tText, s, s)
		check(tBlob, raw, bytes.Clone(raw))
		check(tDouble, fl, fl)
		check(tFloat, float32(fl), float32(fl))
		check(tBoolean, n%2 == 0, n%2 == 0)
		if len(raw) >= 16 {
			check(tUUID, UUID(raw), UUID(raw))
		}
		check(NewList(tText), []string{s, s}, []string{s, s})
		check(NewMap(tText, tBigint), map[string]int64{s: n}, map[string]int64{s: n})
		check(NewTuple(tText, tDouble), []any{s, fl}, []any{s, fl})
		check(NewVector(tText, 2), []string{s, string(raw)}, []string{s, string(raw)})
	})
}

// FuzzParseOption parses arbitrary type options: never a panic, and a parsed
// type encodes back to the bytes it came from. The bytes after the option are
// then decoded as a value of that type, so that types the server invents
// (FuzzDecode only draws from a fixed list) are decoded too.
func FuzzParseOption(f *testing.F) {
	for _, typ := range sampleTypes() {
		f.Add(typ.AppendOption(nil))
	}
	f.Add([]byte{0, 0, 0, 3, 'a', '(', ')'})
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, n, err := ParseOption(data)
		if err != nil {
			return
		}
		if n > len(data) {
			t.Fatalf("used %d of %d bytes", n, len(data))
		}
		for _, dst := range append(fuzzTargets(), new(any)) {
			_ = Decode(typ, data[n:], dst) // must not panic
		}
		_ = typ.String()
		// Class names are normalised (spacing, FrozenType, known classes
		// becoming native types), so compare the types, not the bytes.
		out := typ.AppendOption(nil)
		again, m, err := ParseOption(out)
		if err != nil || m != len(out) || !again.Equal(typ) {
			t.Fatalf("%s: parsed from %x, encodes as %x, which parses to %v (%d bytes, %v)", typ, data[:n], out, again, m, err)
		}
	})
}

// FuzzParseClass parses arbitrary class names without panicking.
func FuzzParseClass(f *testing.F) {
	for _, typ := range sampleTypes() {
		f.Add(typ.Class())
	}
	f.Fuzz(func(t *testing.T, class string) {
		typ, err := ParseClass(class)
		if err != nil {
			return
		}
		_ = typ.String()
		_ = typ.Class()
	})
}
