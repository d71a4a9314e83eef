package cqltype

import (
	"math"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/inf.v0"
)

type point struct {
	X    float64
	Y    float64
	Name string `cql:"label"`
}

type address struct {
	Street string
	Zip    *int32 `cql:"zip"`
	Tags   []string
}

type pair struct {
	A int32
	B string
}

type celsius float64
type level int8
type name string

func TestRoundTrip(t *testing.T) {
	udtPoint := NewUDT("ks", "point",
		Field{"x", tDouble}, Field{"y", tDouble}, Field{"label", tText})
	udtAddr := NewUDT("ks", "address",
		Field{"street", tText}, Field{"zip", tInt}, Field{"tags", NewList(tText)})
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123_000_000, time.UTC)
	before1970 := time.Date(1901, 12, 13, 20, 45, 52, 7_000_000, time.UTC)
	u := UUID{0x55, 0x0e, 0x84, 0x00, 0xe2, 0x9b, 0x41, 0xd4, 0xa7, 0x16, 0x44, 0x66, 0x55, 0x44, 0x00, 0x00}
	tu := TimeUUIDAt(ts, 0x1234, [6]byte{1, 2, 3, 4, 5, 6})
	huge := new(big.Int).Lsh(big.NewInt(1), 300)
	negHuge := new(big.Int).Neg(new(big.Int).Sub(huge, big.NewInt(7)))
	long := strings.Repeat("ä€𝄞", 100_000)

	cases := []struct {
		name string
		typ  *Type
		in   any
		want any // decoded into a new value of this type
	}{
		{"int zero", tInt, int32(0), int32(0)},
		{"int min", tInt, int32(math.MinInt32), int32(math.MinInt32)},
		{"int max", tInt, int32(math.MaxInt32), int32(math.MaxInt32)},
		{"int from int", tInt, -42, -42},
		{"int from int64 in range", tInt, int64(math.MaxInt32), int64(math.MaxInt32)},
		{"int from uint16", tInt, uint16(65535), uint16(65535)},
		{"int named type", tInt, level(-5), level(-5)},
		{"int pointer", tInt, ptr(int32(7)), ptr(int32(7))},
		{"bigint min", tBigint, int64(math.MinInt64), int64(math.MinInt64)},
		{"bigint max", tBigint, int64(math.MaxInt64), int64(math.MaxInt64)},
		{"bigint max uint64 in range", tBigint, uint64(math.MaxInt64), uint64(math.MaxInt64)},
		{"counter", tCounter, int64(-3), int64(-3)},
		{"smallint min", tSmallint, int16(math.MinInt16), int16(math.MinInt16)},
		{"smallint max", tSmallint, int16(math.MaxInt16), int16(math.MaxInt16)},
		{"tinyint min", tTinyint, int8(math.MinInt8), int8(math.MinInt8)},
		{"tinyint max", tTinyint, int8(math.MaxInt8), int8(math.MaxInt8)},
		{"tinyint into int", tTinyint, int8(-1), -1},
		{"varint zero", tVarint, big.NewInt(0), big.NewInt(0)},
		{"varint from int64 min", tVarint, int64(math.MinInt64), int64(math.MinInt64)},
		{"varint from uint64 max", tVarint, uint64(math.MaxUint64), new(big.Int).SetUint64(math.MaxUint64)},
		{"varint huge", tVarint, huge, huge},
		{"varint negative huge", tVarint, negHuge, negHuge},
		{"varint big.Int value target", tVarint, big.NewInt(-129), *big.NewInt(-129)},
		{"decimal", tDecimal, NewDecimal(-12345, 2), NewDecimal(-12345, 2)},
		{"decimal negative scale", tDecimal, NewDecimal(5, -10), NewDecimal(5, -10)},
		{"decimal huge negative", tDecimal, Decimal{Unscaled: negHuge, Scale: 40}, Decimal{Unscaled: negHuge, Scale: 40}},
		{"decimal nil unscaled is zero", tDecimal, Decimal{Scale: 3}, NewDecimal(0, 3)},
		{"decimal inf.Dec", tDecimal, inf.NewDec(-31415, 4), inf.NewDec(-31415, 4)},
		{"float", tFloat, float32(1.5), float32(1.5)},
		{"float max", tFloat, float32(math.MaxFloat32), float32(math.MaxFloat32)},
		{"float smallest", tFloat, float32(math.SmallestNonzeroFloat32), float32(math.SmallestNonzeroFloat32)},
		{"float -inf", tFloat, float32(math.Inf(-1)), float32(math.Inf(-1))},
		{"float nan", tFloat, float32(math.NaN()), float32(math.NaN())},
		{"float from exact float64", tFloat, 0.25, 0.25},
		{"double", tDouble, math.Pi, math.Pi},
		{"double max", tDouble, math.MaxFloat64, math.MaxFloat64},
		{"double -0", tDouble, math.Copysign(0, -1), math.Copysign(0, -1)},
		{"double +inf", tDouble, math.Inf(1), math.Inf(1)},
		{"double nan", tDouble, math.NaN(), math.NaN()},
		{"double named", tDouble, celsius(-40), celsius(-40)},
		{"boolean true", tBoolean, true, true},
		{"boolean false", tBoolean, false, false},
		{"text", tText, "héllo", "héllo"},
		{"text empty", tText, "", ""},
		{"text empty is not NULL", tText, "", ptr("")},
		{"text large", tText, long, long},
		{"text from bytes", tText, []byte("abc"), "abc"},
		{"text named", tText, name("n"), name("n")},
		{"ascii", tASCII, "plain", "plain"},
		{"blob", tBlob, []byte{0, 1, 2, 0xff}, []byte{0, 1, 2, 0xff}},
		{"blob empty", tBlob, []byte{}, []byte{}},
		{"blob large", tBlob, make([]byte, 1<<20), make([]byte, 1<<20)},
		{"blob from string", tBlob, "raw", []byte("raw")},
		{"timestamp", tTimestamp, ts, ts},
		{"timestamp before 1970", tTimestamp, before1970, before1970},
		{"timestamp drops sub-ms", tTimestamp, ts.Add(999_999), ts},
		{"timestamp as int64 ms", tTimestamp, int64(-1), int64(-1)},
		{"timestamp non-UTC input", tTimestamp, ts.In(time.FixedZone("x", 3600)), ts},
		{"date epoch", tDate, Date(0), Date(0)},
		{"date min", tDate, Date(math.MinInt32), Date(math.MinInt32)},
		{"date max", tDate, Date(math.MaxInt32), Date(math.MaxInt32)},
		{"date before 1970 from time", tDate, time.Date(1969, 7, 20, 20, 17, 0, 0, time.UTC), time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC)},
		{"date into Date", tDate, time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), Date(-1)},
		{"time zero", tTime, time.Duration(0), time.Duration(0)},
		{"time max", tTime, time.Duration(86399999999999), time.Duration(86399999999999)},
		{"time from int64", tTime, int64(3600e9), time.Hour},
		{"uuid", tUUID, u, u},
		{"uuid from string", tUUID, "550e8400-e29b-41d4-a716-446655440000", u},
		{"uuid into string", tUUID, u, "550e8400-e29b-41d4-a716-446655440000"},
		{"uuid into [16]byte", tUUID, [16]byte(u), [16]byte(u)},
		{"uuid into []byte", tUUID, u[:], u[:]},
		{"timeuuid", tTimeUUID, tu, tu},
		{"inet v4 net.IP", tInet, net.ParseIP("192.168.1.20"), net.IP{192, 168, 1, 20}},
		{"inet v6 net.IP", tInet, net.ParseIP("2001:db8::1"), net.ParseIP("2001:db8::1")},
		{"inet v4 netip", tInet, netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.1")},
		{"inet v6 netip", tInet, netip.MustParseAddr("fe80::1:2"), netip.MustParseAddr("fe80::1:2")},
		{"inet string", tInet, "::1", "::1"},
		{"duration", tDuration, Duration{Months: 14, Days: 3, Nanoseconds: 1}, Duration{Months: 14, Days: 3, Nanoseconds: 1}},
		{"duration negative", tDuration, Duration{Months: -1, Days: math.MinInt32, Nanoseconds: math.MinInt64},
			Duration{Months: -1, Days: math.MinInt32, Nanoseconds: math.MinInt64}},
		{"duration max", tDuration, Duration{math.MaxInt32, math.MaxInt32, math.MaxInt64}, Duration{math.MaxInt32, math.MaxInt32, math.MaxInt64}},
		{"duration from time.Duration", tDuration, 90 * time.Minute, 90 * time.Minute},
		{"duration zero", tDuration, Duration{}, Duration{}},

		{"list<int>", NewList(tInt), []int32{1, -2, 3}, []int32{1, -2, 3}},
		{"list<int> empty", NewList(tInt), []int32{}, []int32{}},
		{"list<varint> from []int", NewList(tVarint), []int{-1, wideInt}, []int64{-1, wideInt}},
		{"list<tinyint> from []int", NewList(tTinyint), []int{-128, 127}, []int8{-128, 127}},
		{"list<bigint> from []int32", NewList(tBigint), []int32{math.MinInt32}, []int64{math.MinInt32}},
		{"set<blob> from []string", NewSet(tBlob), []string{"\x00"}, [][]byte{{0}}},
		{"list<int> into array", NewList(tInt), []int{4, 5}, [2]int64{4, 5}},
		{"list<text> from array", NewList(tText), [2]string{"a", "b"}, []string{"a", "b"}},
		{"list<blob>", NewList(tBlob), [][]byte{{1}, {}}, [][]byte{{1}, {}}},
		{"set<text>", NewSet(tText), []string{"x", "y"}, []string{"x", "y"}},
		{"set<int> from map[]struct{}", NewSet(tInt), map[int32]struct{}{9: {}}, map[int32]struct{}{9: {}}},
		{"set<int> from map[]bool", NewSet(tInt), map[int]bool{1: true, 2: false}, map[int]bool{1: true}},
		{"map<text,int>", NewMap(tText, tInt), map[string]int32{"a": 1, "b": -1}, map[string]int32{"a": 1, "b": -1}},
		{"map<text,int> empty", NewMap(tText, tInt), map[string]int{}, map[string]int{}},
		{"map<int,list<text>>", NewMap(tInt, NewList(tText)), map[int][]string{1: {"a"}, 2: {}}, map[int][]string{1: {"a"}, 2: {}}},
		{"list<frozen<map<text,frozen<set<int>>>>>", NewList(NewMap(tText, NewSet(tInt))),
			[]map[string][]int{{"a": {1, 2}}, {}}, []map[string][]int{{"a": {1, 2}}, {}}},
		{"map<uuid,timestamp>", NewMap(tUUID, tTimestamp), map[UUID]time.Time{u: ts}, map[UUID]time.Time{u: ts}},
		{"tuple from []any", NewTuple(tInt, tText, tBoolean), []any{int32(1), "a", nil}, []any{int32(1), "a", nil}},
		{"tuple into struct", NewTuple(tInt, tText), pair{7, "x"}, pair{7, "x"}},
		{"tuple from array", NewTuple(tText, tText), [2]string{"p", "q"}, [2]string{"p", "q"}},
		{"tuple nested", NewTuple(tInt, NewTuple(tText, NewList(tInt))), []any{1, []any{"z", []int{1}}},
			[]any{int32(1), []any{"z", []any{int32(1)}}}},
		{"udt struct", udtPoint, point{1.5, -2, "p"}, point{1.5, -2, "p"}},
		{"udt struct with NULL field", udtAddr, address{Street: "Main"}, address{Street: "Main"}},
		{"udt struct nested list", udtAddr, address{"S", ptr(int32(12345)), []string{"a", "b"}}, address{"S", ptr(int32(12345)), []string{"a", "b"}}},
		{"udt from map", udtPoint, map[string]any{"x": 1.0, "label": "m"}, map[string]any{"x": 1.0, "y": nil, "label": "m"}},
		{"udt map into struct", udtPoint, map[string]any{"y": 2.0}, point{Y: 2}},
		{"list<udt>", NewList(udtPoint), []point{{1, 2, "a"}, {3, 4, "b"}}, []point{{1, 2, "a"}, {3, 4, "b"}}},
		{"vector<float,3>", NewVector(tFloat, 3), []float32{1, -2.5, float32(math.Inf(1))}, []float32{1, -2.5, float32(math.Inf(1))}},
		{"vector<float,2> into array", NewVector(tFloat, 2), [2]float32{1, 2}, [2]float32{1, 2}},
		{"vector<double,2>", NewVector(tDouble, 2), []float64{1e300, -1e-300}, []float64{1e300, -1e-300}},
		{"vector<bigint,2>", NewVector(tBigint, 2), []int64{math.MinInt64, 1}, []int64{math.MinInt64, 1}},
		{"vector<text,3>", NewVector(tText, 3), []string{"", "a", strings.Repeat("b", 300)}, []string{"", "a", strings.Repeat("b", 300)}},
		{"vector<smallint,2>", NewVector(tSmallint, 2), []int16{-1, 2}, []int16{-1, 2}},
		{"vector<vector<float,2>,2>", NewVector(NewVector(tFloat, 2), 2), [][]float32{{1, 2}, {3, 4}}, [][]float32{{1, 2}, {3, 4}}},
		{"vector<list<int>,2>", NewVector(NewList(tInt), 2), [][]int{{1}, {}}, [][]int{{1}, {}}},
		{"vector<varint,2>", NewVector(tVarint, 2), []*big.Int{huge, big.NewInt(-1)}, []*big.Int{huge, big.NewInt(-1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := encodeBody(t, c.typ, c.in)
			if body == nil {
				t.Fatalf("encoded as NULL")
			}
			got := decodeAs(t, c.typ, body, c.want)
			if diff := cmp.Diff(c.want, got, cmpOpts); diff != "" {
				t.Errorf("round trip of %T %v (body %x) (-want +got):\n%s", c.in, c.in, body, diff)
			}
			// Marshal must produce the same body as Append (up to the order of
			// map entries, which Go randomises).
			m, err := Marshal(c.typ, c.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(m) != string(body) {
				if diff := cmp.Diff(c.want, decodeAs(t, c.typ, m, c.want), cmpOpts); diff != "" || len(m) != len(body) {
					t.Errorf("Marshal body %x, Append body %x", m, body)
				}
			}
		})
	}
}

// TestNaturalDecode decodes into *any and checks the documented natural Go types.
func TestNaturalDecode(t *testing.T) {
	u := UUID{1, 2, 3, 4, 5, 6, 0x40, 8, 0x80, 10, 11, 12, 13, 14, 15, 16}
	ts := time.UnixMilli(1_700_000_000_123).UTC()
	cases := []struct {
		typ  *Type
		in   any
		want any
	}{
		{tASCII, "a", "a"},
		{tText, "é", "é"},
		{tBlob, []byte{1}, []byte{1}},
		{tBigint, int64(5), int64(5)},
		{tCounter, int64(6), int64(6)},
		{tInt, 5, int32(5)},
		{tSmallint, 5, int16(5)},
		{tTinyint, 5, int8(5)},
		{tBoolean, true, true},
		{tFloat, float32(1.5), float32(1.5)},
		{tDouble, 2.5, 2.5},
		{tTimestamp, ts, ts},
		{tDate, Date(19000), Date(19000)},
		{tTime, time.Second, time.Second},
		{tUUID, u, u},
		{tTimeUUID, TimeUUIDAt(ts, 1, [6]byte{}), TimeUUIDAt(ts, 1, [6]byte{})},
		{tDuration, Duration{1, 2, 3}, Duration{1, 2, 3}},
		{tVarint, 300, big.NewInt(300)},
		{tDecimal, NewDecimal(1, 1), NewDecimal(1, 1)},
		{tInet, "1.2.3.4", netip.MustParseAddr("1.2.3.4")},
		{NewList(tInt), []int{1, 2}, []any{int32(1), int32(2)}},
		{NewSet(tText), []string{"a"}, []any{"a"}},
		{NewMap(tText, tBigint), map[string]int64{"k": 1}, map[any]any{"k": int64(1)}},
		{NewTuple(tInt, tText), []any{1, nil}, []any{int32(1), nil}},
		{NewUDT("ks", "u", Field{"a", tInt}, Field{"b", tText}), map[string]any{"a": 1}, map[string]any{"a": int32(1), "b": nil}},
		{NewVector(tFloat, 2), []float32{1, 2}, []float32{1, 2}},
		{NewVector(tDouble, 1), []float64{1}, []float64{1}},
		{NewVector(tInt, 2), []int32{1, 2}, []any{int32(1), int32(2)}},
	}
	for _, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			body := encodeBody(t, c.typ, c.in)
			var got any
			if err := Decode(c.typ, body, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got, cmpOpts); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNullAndEmpty(t *testing.T) {
	// Every way of saying NULL encodes as length -1.
	nulls := []struct {
		typ *Type
		v   any
	}{
		{tInt, nil},
		{tInt, (*int32)(nil)},
		{tText, (*string)(nil)},
		{tBlob, []byte(nil)},
		{tText, []byte(nil)},
		{tVarint, (*big.Int)(nil)},
		{tDecimal, (*inf.Dec)(nil)},
		{tDecimal, (*Decimal)(nil)},
		{tInet, net.IP(nil)},
		{tInet, netip.Addr{}},
		{NewList(tInt), []int(nil)},
		{NewMap(tText, tInt), map[string]int(nil)},
		{NewSet(tInt), map[int]struct{}(nil)},
		{NewTuple(tInt), []any(nil)},
		{NewUDT("k", "u", Field{"a", tInt}), map[string]any(nil)},
		{NewVector(tFloat, 2), []float32(nil)},
		{tUUID, (*UUID)(nil)},
		{tTimestamp, (*time.Time)(nil)},
	}
	for _, c := range nulls {
		buf, err := Append([]byte{9}, c.typ, c.v)
		if err != nil {
			t.Fatalf("%s %T: %v", c.typ, c.v, err)
		}
		if string(buf) != "\x09\xff\xff\xff\xff" {
			t.Errorf("%s %T: got %x, want NULL after the existing byte", c.typ, c.v, buf)
		}
		if m, err := Marshal(c.typ, c.v); err != nil || m != nil {
			t.Errorf("Marshal(%s, %T) = %x, %v; want nil, nil", c.typ, c.v, m, err)
		}
	}
	if buf, err := Append(nil, tInt, Unset); err != nil || string(buf) != "\xff\xff\xff\xfe" {
		t.Errorf("Unset: %x, %v", buf, err)
	}

	// Decoding NULL: pointers become nil, values their zero value, even when
	// they held something before.
	s := "old"
	sp := &s
	n := int64(5)
	np := &n
	var anyv any = 3
	list := []int{1}
	m := map[string]int{"a": 1}
	ts := time.Now()
	for _, c := range []struct {
		typ   *Type
		dst   any
		check func() bool
	}{
		{tText, &s, func() bool { return s == "" }},
		{tText, &sp, func() bool { return sp == nil }},
		{tBigint, &n, func() bool { return n == 0 }},
		{tBigint, &np, func() bool { return np == nil }},
		{tInt, &anyv, func() bool { return anyv == nil }},
		{NewList(tInt), &list, func() bool { return list == nil }},
		{NewMap(tText, tInt), &m, func() bool { return m == nil }},
		{tTimestamp, &ts, func() bool { return ts.IsZero() }},
	} {
		if err := Decode(c.typ, nil, c.dst); err != nil {
			t.Fatalf("%s NULL into %T: %v", c.typ, c.dst, err)
		}
		if !c.check() {
			t.Errorf("%s NULL into %T left a value", c.typ, c.dst)
		}
	}

	// Empty is distinct from NULL for text and blob.
	var b []byte
	if err := Decode(tBlob, []byte{}, &b); err != nil || b == nil || len(b) != 0 {
		t.Errorf("empty blob: %v %v", b, err)
	}
	var bp *string
	if err := Decode(tText, []byte{}, &bp); err != nil || bp == nil || *bp != "" {
		t.Errorf("empty text into *string: %v %v", bp, err)
	}
	// An empty int (legacy empty value) reads as no value.
	var ip = ptr(int32(4))
	if err := Decode(tInt, []byte{}, &ip); err != nil || ip != nil {
		t.Errorf("empty int into *int32: %v %v", ip, err)
	}
	var i32 int32 = 4
	if err := Decode(tInt, []byte{}, &i32); err != nil || i32 != 0 {
		t.Errorf("empty int into int32: %v %v", i32, err)
	}
	// An empty list is an empty, non-nil slice.
	body := encodeBody(t, NewList(tInt), []int{})
	list = nil
	if err := Decode(NewList(tInt), body, &list); err != nil || list == nil || len(list) != 0 {
		t.Errorf("empty list: %#v %v", list, err)
	}
}

// TestDecodeIntoTypedPointers covers pointer chains and re-use of targets.
func TestDecodeIntoTypedPointers(t *testing.T) {
	body := encodeBody(t, tInt, 77)
	var pp **int
	if err := Decode(tInt, body, &pp); err != nil || pp == nil || *pp == nil || **pp != 77 {
		t.Fatalf("**int: %v", err)
	}
	// A UDT struct target is reset, not merged.
	typ := NewUDT("k", "u", Field{"street", tText})
	a := address{Street: "old", Tags: []string{"keep?"}}
	if err := Decode(typ, encodeBody(t, typ, map[string]any{"street": "new"}), &a); err != nil {
		t.Fatal(err)
	}
	if a.Street != "new" || a.Tags != nil {
		t.Errorf("struct not reset: %+v", a)
	}
	// UDT values with fewer fields than the type (older writer) leave the rest NULL.
	full := NewUDT("k", "u", Field{"street", tText}, Field{"zip", tInt})
	short := encodeBody(t, typ, map[string]any{"street": "s"})
	var m map[string]any
	if err := Decode(full, short, &m); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"street": "s", "zip": nil}, m); diff != "" {
		t.Error(diff)
	}
	// Fields the struct does not know (added by ALTER TYPE) are skipped.
	var p struct{ Street string }
	if err := Decode(full, encodeBody(t, full, map[string]any{"street": "x", "zip": 1}), &p); err != nil || p.Street != "x" {
		t.Errorf("%+v %v", p, err)
	}
}

// TestDecodeFunctions checks the typed Decode* shortcuts against Decode.
func TestDecodeFunctions(t *testing.T) {
	if v := DecodeVarint(encodeBody(t, tVarint, -129)); v.Int64() != -129 {
		t.Errorf("DecodeVarint: %v", v)
	}
	if DecodeVarint(nil) != nil {
		t.Error("DecodeVarint(NULL) not nil")
	}
	if d, err := DecodeDecimal(encodeBody(t, tDecimal, NewDecimal(-5, 3))); err != nil || d.String() != "-0.005" {
		t.Errorf("DecodeDecimal: %v %v", d, err)
	}
	if a, err := DecodeInet(encodeBody(t, tInet, "10.1.2.3")); err != nil || a.String() != "10.1.2.3" {
		t.Errorf("DecodeInet: %v %v", a, err)
	}
	if a, err := DecodeInet(nil); err != nil || a.IsValid() {
		t.Errorf("DecodeInet(NULL): %v %v", a, err)
	}
	if _, err := DecodeInet([]byte{1}); err == nil {
		t.Error("DecodeInet accepted 1 byte")
	}
	for _, f := range []func([]byte) error{
		func(b []byte) error { _, err := DecodeInt32(b); return err },
		func(b []byte) error { _, err := DecodeInt64(b); return err },
		func(b []byte) error { _, err := DecodeInt16(b); return err },
		func(b []byte) error { _, err := DecodeBool(b); return err },
		func(b []byte) error { _, err := DecodeFloat32(b); return err },
		func(b []byte) error { _, err := DecodeFloat64(b); return err },
		func(b []byte) error { _, err := DecodeUUID(b); return err },
		func(b []byte) error { _, err := DecodeTimestamp(b); return err },
		func(b []byte) error { _, err := DecodeDate(b); return err },
		func(b []byte) error { _, err := DecodeTime(b); return err },
		func(b []byte) error { _, err := DecodeDecimal(b); return err },
	} {
		if err := f([]byte{1, 2, 3}); err == nil {
			t.Error("3 bytes accepted by a fixed-size decoder")
		}
		if err := f(nil); err != nil {
			t.Errorf("NULL: %v", err)
		}
	}
}
