package cqltype

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// body encodes v as t, without the [value] length.
func body(t *testing.T, typ *Type, v any) []byte {
	t.Helper()
	b, err := Append(nil, typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return b[4:]
}

// A key type that can hold an interface (an array or struct of any, as for a tuple) is
// checked value by value: a blob inside it cannot be a map key, and the decode fails with
// ErrUnsupportedGoType where reflect's SetMapIndex panicked.
func TestDecodeUnhashableKeyInsideArrayOrStruct(t *testing.T) {
	tup := NewTuple(New(KindBlob), New(KindInt))
	m := body(t, NewMap(tup, New(KindInt)), map[[2]any]int{{"\x01\x02", 7}: 1})
	s := body(t, NewSet(tup), [][2]any{{"\x01\x02", 7}})
	for name, dst := range map[string]any{
		"map into map[[2]any]int": new(map[[2]any]int),
		"map into map[struct{A any; B int}]int": new(map[struct {
			A any
			B int
		}]int),
		"set into map[[2]any]bool": new(map[[2]any]bool),
	} {
		t.Run(name, func(t *testing.T) {
			b, typ := m, NewMap(tup, New(KindInt))
			if _, ok := dst.(*map[[2]any]bool); ok {
				b, typ = s, NewSet(tup)
			}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Decode panicked: %v", r)
					}
				}()
				err = Decode(typ, b, dst)
			}()
			if !errors.Is(err, ErrUnsupportedGoType) {
				t.Errorf("Decode: %v, want ErrUnsupportedGoType", err)
			}
		})
	}
	// Hashable values in such keys still decode.
	ok := body(t, NewMap(NewTuple(New(KindVarchar), New(KindInt)), New(KindInt)), map[[2]any]int{{"a", 7}: 1})
	var got map[[2]any]int
	if err := Decode(NewMap(NewTuple(New(KindVarchar), New(KindInt)), New(KindInt)), ok, &got); err != nil || got[[2]any{"a", int32(7)}] != 1 {
		t.Errorf("tuple<text, int> key into [2]any: %v, %v", got, err)
	}
}

// A failed decode into an array (a list or a vector) leaves the array as it was, as for a
// slice, a tuple or a struct.
func TestDecodeArrayUnchangedOnError(t *testing.T) {
	b := binary.BigEndian.AppendUint32(nil, 3)
	for _, v := range []int32{1, 2, 300} {
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(v))
	}
	a := [3]int8{9, 9, 9}
	if err := Decode(NewList(New(KindInt)), b, &a); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("list<int> [1 2 300] into [3]int8: %v, want ErrOutOfRange", err)
	}
	if a != [3]int8{9, 9, 9} {
		t.Errorf("the failed list decode changed the array: %v", a)
	}
	vb := body(t, NewVector(New(KindInt), 3), []int32{1, 2, 300})
	if err := Decode(NewVector(New(KindInt), 3), vb, &a); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("vector<int, 3> [1 2 300] into [3]int8: %v, want ErrOutOfRange", err)
	}
	if a != [3]int8{9, 9, 9} {
		t.Errorf("the failed vector decode changed the array: %v", a)
	}
	if err := Decode(NewList(New(KindInt)), body(t, NewList(New(KindInt)), []int32{4, 5, 6}), &a); err != nil || a != [3]int8{4, 5, 6} {
		t.Errorf("list<int> [4 5 6] into [3]int8: %v, %v", a, err)
	}
}

// A varint that fits an unsigned destination decodes into it, also beyond int64; a negative
// one or one too large is out of range.
func TestDecodeVarintIntoUnsigned(t *testing.T) {
	vi := New(KindVarint)
	for _, c := range []struct {
		b    []byte
		want uint64
		err  bool
	}{
		{[]byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, false},
		{[]byte{0, 0x80, 0, 0, 0, 0, 0, 0, 0}, 1 << 63, false},
		{[]byte{0, 0, 5}, 5, false},
		{[]byte{0x7f}, 127, false},
		{[]byte{0xff}, 0, true},                                     // -1
		{[]byte{1, 0, 0, 0, 0, 0, 0, 0, 0}, 0, true},                // 2^64
		{[]byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, true}, // a large negative one
	} {
		var u uint64
		err := Decode(vi, c.b, &u)
		if c.err {
			if !errors.Is(err, ErrOutOfRange) {
				t.Errorf("varint %x into uint64: %d, %v; want ErrOutOfRange", c.b, u, err)
			}
			continue
		}
		if err != nil || u != c.want {
			t.Errorf("varint %x into uint64: %d, %v; want %d", c.b, u, err, c.want)
		}
	}
	var u8 uint8
	if err := Decode(vi, []byte{0, 0xff, 0xff}, &u8); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("varint 65535 into uint8: %d, %v; want ErrOutOfRange", u8, err)
	}
}

// TimeUUIDAt gives a time outside the UUID clock's range the nearest end, so the zero time
// is the lowest bound and a far future time the highest; times inside round-trip.
func TestTimeUUIDAtClampsToClockRange(t *testing.T) {
	lowest := time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{{}, time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), lowest} {
		if got := TimeUUIDAt(at, 1, [6]byte{1}).Time(); !got.Equal(lowest) {
			t.Errorf("TimeUUIDAt(%v).Time() = %v, want %v", at, got, lowest)
		}
	}
	far := TimeUUIDAt(time.Date(6000, 1, 1, 0, 0, 0, 0, time.UTC), 1, [6]byte{1})
	if ts, _ := far.Timestamp(); ts != 1<<60-1 {
		t.Errorf("TimeUUIDAt(6000-01-01) has timestamp %#x, want the largest, %#x", ts, uint64(1<<60-1))
	}
	for _, at := range []time.Time{time.Date(2026, 12, 6, 1, 2, 3, 400, time.UTC), time.Date(5000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if got := TimeUUIDAt(at, 1, [6]byte{1}).Time(); !got.Equal(at) {
			t.Errorf("TimeUUIDAt(%v).Time() = %v", at, got)
		}
	}
}
