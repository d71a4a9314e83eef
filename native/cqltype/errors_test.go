package cqltype

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEncodeErrors(t *testing.T) {
	udt := NewUDT("ks", "addr", Field{"street", tText}, Field{"zip", tInt})
	cases := []struct {
		name  string
		typ   *Type
		v     any
		cause error
		msg   string // the full message
	}{
		{"nested path", NewMap(tText, NewTuple(tText, tInt)), map[string]any{"a": []any{"x", int64(9999999999)}}, ErrOutOfRange,
			`map<text, frozen<tuple<text, int>>>: value["a"].1: cannot encode int64 9999999999 as int: out of range`},
		{"int overflow", tInt, int64(math.MaxInt32 + 1), ErrOutOfRange,
			`int: cannot encode int64 2147483648 as int: out of range`},
		{"bigint from huge uint64", tBigint, uint64(math.MaxUint64), ErrOutOfRange,
			`bigint: cannot encode uint64 18446744073709551615 as bigint: out of range`},
		{"smallint", tSmallint, 40000, ErrOutOfRange, `smallint: cannot encode int 40000 as smallint: out of range`},
		{"tinyint named type", tTinyint, level(0), nil, ""}, // fits: no error
		{"tinyint", tTinyint, uint8(200), ErrOutOfRange, `tinyint: cannot encode uint8 200 as tinyint: out of range`},
		{"float64 into int", tInt, 1.0, ErrUnsupportedGoType, `int: cannot encode float64 1 as int: unsupported Go type`},
		{"string into int", tInt, "1", ErrUnsupportedGoType, `int: cannot encode string "1" as int: unsupported Go type`},
		{"int into text", tText, 1, ErrUnsupportedGoType, `text: cannot encode int 1 as text: unsupported Go type`},
		{"lossy float", tFloat, 0.1, ErrOutOfRange,
			`float: cannot encode float64 0.1 as float: out of range: not exactly representable as a 32-bit float`},
		{"int into double", tDouble, 1, ErrUnsupportedGoType, `double: cannot encode int 1 as double: unsupported Go type`},
		{"non-ascii", tASCII, "é", ErrInvalidValue, `ascii: cannot encode string "é" as ascii: invalid value: byte 0xc3 at offset 0 is not ASCII`},
		{"timestamp after the int64 milliseconds", tTimestamp, time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC), ErrOutOfRange, ""},
		{"timestamp before the int64 milliseconds", tTimestamp, time.Date(-300_000_000, 1, 1, 0, 0, 0, 0, time.UTC), ErrOutOfRange, ""},
		{"timestamp far off but in range", tTimestamp, time.Date(-200_000_000, 1, 1, 0, 0, 0, 0, time.UTC), nil, ""},
		{"duration as timestamp", tTimestamp, 90 * time.Second, ErrUnsupportedGoType,
			`timestamp: cannot encode time.Duration as timestamp: unsupported Go type`},
		{"date as timestamp", tTimestamp, Date(19000), ErrUnsupportedGoType, ""},
		{"duration as date", tDate, 48 * time.Hour, ErrUnsupportedGoType, ""},
		{"date as time", tTime, Date(3), ErrUnsupportedGoType, ""},
		{"time of day too big", tTime, 24 * time.Hour, ErrOutOfRange, ""},
		{"negative time of day", tTime, -time.Nanosecond, ErrOutOfRange, ""},
		{"v4 uuid as timeuuid", tTimeUUID, UUID{6: 0x40}, ErrInvalidValue, ""},
		{"bad uuid text", tUUID, "not-a-uuid", ErrBadUUID, ""},
		{"uuid wrong byte count", tUUID, []byte{1, 2}, ErrInvalidValue, ""},
		{"bad inet text", tInet, "1.2.3", ErrInvalidValue, ""},
		{"inet wrong bytes", tInet, []byte{1, 2, 3, 4}, ErrUnsupportedGoType, ""},
		{"mixed-sign duration", tDuration, Duration{Months: 1, Days: -1}, ErrInvalidValue, ""},
		{"null in list", NewList(tText), []*string{nil}, ErrInvalidValue,
			`list<text>: value[0]: cannot encode *string as text: invalid value: NULL is not allowed in a list`},
		{"null map value", NewMap(tText, tInt), map[string]any{"k": nil}, ErrInvalidValue, ""},
		{"unset inside list", NewList(tInt), []any{Unset}, ErrInvalidValue, ""},
		{"map key error path", NewMap(tInt, tText), map[int64]string{1 << 40: "v"}, ErrOutOfRange,
			`map<int, text>: value[key 1099511627776]: cannot encode int64 1099511627776 as int: out of range`},
		{"non-ascii in []string", NewList(tASCII), []string{"a", "é"}, ErrInvalidValue,
			`list<ascii>: value[1]: cannot encode string "é" as ascii: invalid value: byte 0xc3 at offset 0 is not ASCII`},
		{"[]int64 element overflow", NewSet(tInt), []int64{1, 1 << 40}, ErrOutOfRange,
			`set<int>: value[1]: cannot encode int64 1099511627776 as int: out of range`},
		{"[]int element overflow smallint", NewList(tSmallint), []int{1 << 20}, ErrOutOfRange, ""},
		{"[]string into list<int>", NewList(tInt), []string{"1"}, ErrUnsupportedGoType, ""},
		{"list into map", NewMap(tText, tText), []string{"a"}, ErrUnsupportedGoType, ""},
		{"tuple arity", NewTuple(tInt, tInt), []any{1}, ErrInvalidValue, ""},
		{"tuple struct arity", NewTuple(tInt), pair{}, ErrInvalidValue, ""},
		{"udt unknown struct field", udt, struct{ Street, City string }{}, ErrInvalidValue,
			`addr: cannot encode struct { Street string; City string } as addr: invalid value: struct field City maps to "city", which addr does not have`},
		{"udt unknown map key", udt, map[string]any{"town": "x"}, ErrInvalidValue, ""},
		{"udt field path", NewList(udt), []map[string]any{{"zip": "12"}}, ErrUnsupportedGoType,
			`list<frozen<addr>>: value[0].zip: cannot encode string "12" as int: unsupported Go type`},
		{"vector dimension", NewVector(tFloat, 3), []float32{1}, ErrInvalidValue, ""},
		{"vector dimension reflect", NewVector(tInt, 2), []int{1, 2, 3}, ErrInvalidValue, ""},
		{"vector null element", NewVector(tText, 1), []*string{nil}, ErrInvalidValue, ""},
		{"vector element path", NewVector(tInt, 2), []int64{1, 1 << 40}, ErrOutOfRange, ""},
		{"struct into int", tInt, struct{}{}, ErrUnsupportedGoType, ""},
		{"channel into list", NewList(tInt), make(chan int), ErrUnsupportedGoType, ""},
		{"set from map[int]int", NewSet(tInt), map[int]int{}, ErrUnsupportedGoType, ""},
		{"marshaler error", tText, failingMarshaler{}, errMarshalBoom, ""},
	}
	if strconv.IntSize == 64 {
		// An int below the int range, which only a 64-bit int can hold (a variable, so this
		// compiles where int has 32 bits).
		below := int64(math.MinInt32) - 1
		c := cases[0]
		c.name, c.typ, c.v, c.cause = "int underflow from int", tInt, int(below), ErrOutOfRange
		c.msg = `int: cannot encode int -2147483649 as int: out of range`
		cases = append(cases, c)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := []byte("keep")
			out, err := Append(dst, c.typ, c.v)
			if c.cause == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, encoded %x", out)
			}
			if string(out) != "keep" {
				t.Errorf("dst changed on error: %q", out)
			}
			var ve *ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T is not a *ValueError: %v", err, err)
			}
			if ve.Type != c.typ {
				t.Errorf("ValueError.Type = %v, want %v", ve.Type, c.typ)
			}
			if ve.Decode {
				t.Error("Decode set on an encoding error")
			}
			if !errors.Is(err, c.cause) {
				t.Errorf("error %q does not wrap %v", err, c.cause)
			}
			if c.msg != "" && err.Error() != c.msg {
				t.Errorf("message\n got: %s\nwant: %s", err, c.msg)
			}
			if _, err := Marshal(c.typ, c.v); !errors.Is(err, c.cause) {
				t.Errorf("Marshal error %v does not wrap %v", err, c.cause)
			}
		})
	}
}

var errMarshalBoom = errors.New("boom")

type failingMarshaler struct{}

func (failingMarshaler) MarshalCQL(*Type) ([]byte, error) { return nil, errMarshalBoom }

func TestDecodeErrors(t *testing.T) {
	intList := encodeBody(t, NewList(tBigint), []int64{1, 1 << 40})
	cases := []struct {
		name  string
		typ   *Type
		b     []byte
		dst   any
		cause error
		msg   string
	}{
		{"int wrong length", tInt, []byte{1, 2, 3}, new(int32), ErrMalformedValue,
			"int: cannot decode int into int32: malformed value: int needs 4 bytes, got 3"},
		{"bigint into int32 overflow", tBigint, encodeBody(t, tBigint, int64(1)<<40), new(int32), ErrOutOfRange, ""},
		{"negative into uint", tInt, encodeBody(t, tInt, -1), new(uint32), ErrOutOfRange, ""},
		{"text into int", tText, []byte("1"), new(int), ErrUnsupportedGoType,
			"text: cannot decode text into int: unsupported Go type"},
		{"int into string", tInt, encodeBody(t, tInt, 1), new(string), ErrUnsupportedGoType, ""},
		{"double into float32 lossy", tDouble, encodeBody(t, tDouble, 0.1), new(float32), ErrOutOfRange, ""},
		{"varint too big for int64", tVarint, encodeBody(t, tVarint, new(big.Int).Lsh(big.NewInt(1), 70)), new(int64), ErrOutOfRange, ""},
		{"non-pointer", tInt, encodeBody(t, tInt, 1), 5, ErrUnsupportedGoType,
			"int: cannot decode int into int: unsupported Go type: the target must be a non-nil pointer"},
		{"nil pointer", tInt, encodeBody(t, tInt, 1), (*int)(nil), ErrUnsupportedGoType, ""},
		{"nested path", NewList(tBigint), intList, new([]int32), ErrOutOfRange,
			"list<bigint>: value[1]: cannot decode bigint into int32: out of range: 1099511627776"},
		{"list truncated", NewList(tInt), []byte{0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1}, new([]int32), ErrMalformedValue, ""},
		{"list huge count", NewList(tInt), []byte{0x7f, 0xff, 0xff, 0xff}, new([]int32), ErrMalformedValue, ""},
		{"list negative count", NewList(tInt), []byte{0xff, 0xff, 0xff, 0xfe}, new([]int32), ErrMalformedValue, ""},
		{"list trailing bytes", NewList(tInt), append(encodeBody(t, NewList(tInt), []int{1}), 0), new([]int32), ErrMalformedValue, ""},
		{"list into array of other size", NewList(tInt), encodeBody(t, NewList(tInt), []int{1}), new([2]int), ErrOutOfRange, ""},
		{"map blob key into any", NewMap(tBlob, tInt), encodeBody(t, NewMap(tText, tInt), map[string]int{"a": 1}), new(any), ErrUnsupportedGoType, ""},
		{"time out of range", tTime, encodeBody(t, tBigint, int64(-1)), new(time.Duration), ErrMalformedValue, ""},
		{"duration truncated", tDuration, []byte{0x02, 0x04}, new(Duration), ErrMalformedValue, ""},
		{"duration with days into time.Duration", tDuration, encodeBody(t, tDuration, Duration{Days: 1}), new(time.Duration), ErrOutOfRange, ""},
		{"inet 5 bytes", tInet, []byte{1, 2, 3, 4, 5}, new(any), ErrMalformedValue, ""},
		{"decimal short", tDecimal, []byte{0, 0, 0, 1}, new(Decimal), ErrMalformedValue, ""},
		{"vector wrong size", NewVector(tFloat, 2), []byte{0, 0, 0, 0}, new([]float32), ErrMalformedValue, ""},
		{"vector wrong size reflect", NewVector(tInt, 2), []byte{0, 0, 0, 0}, new([]int32), ErrMalformedValue, ""},
		{"vector bad vint", NewVector(tText, 1), []byte{0xff}, new([]string), ErrMalformedValue, ""},
		{"vector element beyond end", NewVector(tText, 1), []byte{5, 'a'}, new([]string), ErrMalformedValue, ""},
		{"tuple into wrong struct", NewTuple(tInt, tInt, tInt), encodeBody(t, NewTuple(tInt, tInt, tInt), []any{1, 2, 3}), new(pair), ErrUnsupportedGoType, ""},
		{"udt into int", NewUDT("k", "u", Field{"a", tInt}), []byte{0, 0, 0, 0}, new(int), ErrUnsupportedGoType, ""},
		{"udt field bad length", NewUDT("k", "u", Field{"a", tInt}), []byte{0, 0, 0, 9, 1}, new(map[string]any), ErrMalformedValue, ""},
		{"unmarshaler error", tText, []byte("x"), new(failingUnmarshaler), errMarshalBoom, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Decode(c.typ, c.b, c.dst)
			if err == nil {
				t.Fatal("no error")
			}
			var ve *ValueError
			if !errors.As(err, &ve) || !ve.Decode || ve.Type != c.typ {
				t.Fatalf("want a decoding *ValueError for %s, got %T %v", c.typ, err, err)
			}
			if !errors.Is(err, c.cause) {
				t.Errorf("error %q does not wrap %v", err, c.cause)
			}
			if c.msg != "" && err.Error() != c.msg {
				t.Errorf("message\n got: %s\nwant: %s", err, c.msg)
			}
		})
	}
}

type failingUnmarshaler struct{}

func (*failingUnmarshaler) UnmarshalCQL(*Type, []byte) error { return errMarshalBoom }

// TestMarshalerHooks checks that custom Marshaler/Unmarshaler types are used,
// also nested inside collections.
func TestMarshalerHooks(t *testing.T) {
	typ := NewList(tText)
	body := encodeBody(t, typ, []upper{"ab", "c"})
	var plain []string
	if err := Decode(typ, body, &plain); err != nil {
		t.Fatal(err)
	}
	if strings.Join(plain, ",") != "AB,C" {
		t.Errorf("Marshaler not used: %v", plain)
	}
	var back []upper
	if err := Decode(typ, body, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0] != "ab" || back[1] != "c" {
		t.Errorf("Unmarshaler not used: %v", back)
	}
	// A Marshaler returning nil is NULL.
	if buf, err := Append(nil, tText, upper("")); err != nil || string(buf) != "\xff\xff\xff\xff" {
		t.Errorf("nil from MarshalCQL: %x %v", buf, err)
	}
}

// upper stores text upper-cased and reads it back lower-cased.
type upper string

func (u upper) MarshalCQL(*Type) ([]byte, error) {
	if u == "" {
		return nil, nil
	}
	return []byte(strings.ToUpper(string(u))), nil
}

func (u *upper) UnmarshalCQL(_ *Type, b []byte) error {
	*u = upper(strings.ToLower(string(b)))
	return nil
}

// TestHostileSizes checks that counts and dimensions from the wire are checked
// against the bytes present before anything is allocated for them.
func TestHostileSizes(t *testing.T) {
	huge := NewVector(tText, wideInt)
	if err := Decode(huge, []byte{1, 'a'}, new([]string)); !errors.Is(err, ErrMalformedValue) {
		t.Errorf("vector<text, %d>: %v", wideInt, err)
	}
	if err := Decode(NewVector(tFloat, wideInt), []byte{1, 2, 3, 4}, new([]float32)); !errors.Is(err, ErrMalformedValue) {
		t.Errorf("vector<float, %d>: %v", wideInt, err)
	}
	if err := Decode(NewMap(tInt, tInt), []byte{0x10, 0, 0, 0, 0, 0, 0, 0}, new(map[int]int)); !errors.Is(err, ErrMalformedValue) {
		t.Errorf("map with a huge count: %v", err)
	}
}

// TestNestedVectorSizeOverflow decodes a vector of vectors whose packed size,
// dimension times element size, does not fit in an int: with an inner
// dimension of 2^62+1 (2^30+1 where int has 32 bits) and an outer one of 4, the product wraps
// around to 4, so
// 4 bytes used to pass the size check and slicing the first element panicked.
// Such a type came straight from the server's metadata through ParseClass.
func TestNestedVectorSizeOverflow(t *testing.T) {
	inner := NewVector(tBoolean, 1<<(strconv.IntSize-2)+1)
	for _, typ := range []*Type{NewVector(inner, 4), NewVector(NewVector(inner, 2), 2)} {
		for _, dst := range []any{new(any), new([][]bool), new([][][]bool)} {
			err := Decode(typ, []byte{1, 0, 1, 0}, dst)
			if !errors.Is(err, ErrMalformedValue) {
				t.Errorf("%s into %T: err = %v, want ErrMalformedValue", typ, dst, err)
			}
		}
	}
	// Dimensions beyond a Java int cannot come from Cassandra: the class stays
	// an opaque custom type, and the CQL form is refused.
	const class = marshalPrefix + "VectorType(" + marshalPrefix + "VectorType(" + marshalPrefix + "BooleanType, 4611686018427387905), 4)"
	if typ, err := ParseClass(class); !errors.Is(err, ErrMalformedClass) {
		t.Errorf("ParseClass: %v, %v; want ErrMalformedClass", typ, err)
	}
	if typ, _, err := ParseOption(customOption(class)); err != nil || typ.Kind != KindCustom {
		t.Errorf("ParseOption: %v, %v; want the custom type", typ, err)
	}
	if typ, err := ParseCQL("vector<boolean, 2147483648>"); !errors.Is(err, ErrMalformedCQLType) {
		t.Errorf("ParseCQL: %v, %v; want ErrMalformedCQLType", typ, err)
	}
	if typ, err := ParseCQL("vector<boolean, 2147483647>"); err != nil || typ.Dim != math.MaxInt32 {
		t.Errorf("ParseCQL of the largest dimension: %v, %v", typ, err)
	}
	// Dimensions a server can send overflow too: 1684887088 * 1824726041 * 6
	// booleans wraps around to 32 bytes.
	const wraps = marshalPrefix + "VectorType(" + marshalPrefix + "VectorType(" + marshalPrefix + "VectorType(" +
		marshalPrefix + "BooleanType, 1684887088), 1824726041), 6)"
	typ, err := ParseClass(wraps)
	if err != nil {
		t.Fatalf("ParseClass: %v", err)
	}
	if err := Decode(typ, make([]byte, 32), new(any)); !errors.Is(err, ErrMalformedValue) {
		t.Errorf("%s from 32 bytes: err = %v, want ErrMalformedValue", typ, err)
	}
}

func TestBadVectorDimensions(t *testing.T) {
	for _, dim := range []int{0, -1, math.MaxInt, math.MaxInt/4 + 1} {
		for _, typ := range []*Type{NewVector(tFloat, dim), NewVector(tText, dim), NewVector(tBigint, dim)} {
			for _, dst := range []any{new([]float32), new([]string), new([]int64), new(any)} {
				if err := Decode(typ, []byte{0, 0, 0, 0}, dst); err == nil {
					t.Errorf("%s into %T: no error", typ, dst)
				}
			}
			if _, err := Marshal(typ, []float32{1}); err == nil {
				t.Errorf("%s: encoded a 1-element slice", typ)
			}
		}
	}
}

// The edges of the timestamp range: the int64 milliseconds themselves encode, one more
// millisecond does not.
func TestTimestampRangeEdges(t *testing.T) {
	for _, c := range []struct {
		t  time.Time
		ok bool
		ms int64 // what it reads back as, when ok
	}{
		{time.UnixMilli(math.MaxInt64), true, math.MaxInt64},
		{time.UnixMilli(math.MinInt64), true, math.MinInt64},
		{time.UnixMilli(math.MaxInt64).Add(time.Millisecond), false, 0},
		{time.UnixMilli(math.MinInt64).Add(-time.Nanosecond), false, 0},
		{time.UnixMilli(-1).Add(time.Microsecond), true, -1}, // -0.999 ms rounds toward the past
	} {
		out, err := Append(nil, tTimestamp, c.t)
		if !c.ok {
			if !errors.Is(err, ErrOutOfRange) {
				t.Errorf("%v: %v, want ErrOutOfRange", c.t, err)
			}
			continue
		}
		var got time.Time
		if err == nil {
			err = Decode(tTimestamp, out[4:], &got)
		}
		if err != nil || got.UnixMilli() != c.ms {
			t.Errorf("%v: read back %d ms (%v), want %d", c.t, got.UnixMilli(), err, c.ms)
		}
	}
}
