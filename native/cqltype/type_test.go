package cqltype

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestTypeString(t *testing.T) {
	udt := NewUDT("ks", "address", Field{"street", tText})
	cases := []struct {
		typ  *Type
		want string
	}{
		{tText, "text"},
		{tTimeUUID, "timeuuid"},
		{NewMap(tText, NewList(tInt)), "map<text, frozen<list<int>>>"},
		{NewMap(tText, NewTuple(tInt, tText)), "map<text, frozen<tuple<int, text>>>"},
		{NewList(udt), "list<frozen<address>>"},
		{udt, "address"},
		{NewSet(NewSet(tBigint)), "set<frozen<set<bigint>>>"},
		{NewVector(tFloat, 768), "vector<float, 768>"},
		{&Type{Kind: KindCustom, Custom: "a.B'c"}, "'a.B''c'"},
		{New(Kind(0x7777)), "kind(0x7777)"},
		{nil, "<nil type>"},
	}
	for _, c := range cases {
		if got := c.typ.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestOptionRoundTrip(t *testing.T) {
	for _, typ := range sampleTypes() {
		b := typ.AppendOption([]byte{0xAA})
		got, n, err := ParseOption(append(b[1:], 0xBB, 0xCC))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if n != len(b)-1 {
			t.Errorf("%s: used %d bytes, want %d", typ, n, len(b)-1)
		}
		if diff := cmp.Diff(typ, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", typ, diff)
		}
	}
}

func TestParseOptionVector(t *testing.T) {
	// What Cassandra 5 sends for vector<float, 3>: a custom option.
	class := "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)"
	b := customOption(class)
	typ, n, err := ParseOption(b)
	if err != nil || n != len(b) {
		t.Fatalf("%v %d", err, n)
	}
	if diff := cmp.Diff(NewVector(tFloat, 3), typ); diff != "" {
		t.Error(diff)
	}
	if typ.String() != "vector<float, 3>" {
		t.Errorf("String() = %s", typ)
	}
}

// TestParseOptionKeepsServerClass: a type the server sent by class name keeps that name as
// spelled (Cassandra 5 writes "FloatType , 2"), which Class returns; Equal ignores it.
func TestParseOptionKeepsServerClass(t *testing.T) {
	class := "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 2)"
	typ, _, err := ParseOption(customOption(class))
	if err != nil {
		t.Fatal(err)
	}
	if typ.ServerClass != class || typ.Class() != class {
		t.Errorf("ServerClass %q, Class() %q; want %q", typ.ServerClass, typ.Class(), class)
	}
	if !typ.Equal(NewVector(tFloat, 2)) {
		t.Errorf("%s is not Equal to vector<float, 2>", typ)
	}
	if built := NewVector(tFloat, 2).Class(); built != "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 2)" {
		t.Errorf("Class() of a built vector = %q", built)
	}
}

func TestParseOptionMalformed(t *testing.T) {
	deep := []byte{}
	for range 100 {
		deep = append(deep, 0, 0x20) // list<list<...
	}
	deep = append(deep, 0, 9)
	cases := map[string][]byte{
		"empty":              {},
		"one byte":           {0},
		"unknown id":         {0x00, 0x16},
		"list without elem":  {0x00, 0x20},
		"map without value":  {0x00, 0x21, 0x00, 0x09},
		"custom truncated":   {0x00, 0x00, 0x00, 0x05, 'a'},
		"udt truncated":      {0x00, 0x30, 0x00, 0x02, 'k', 's', 0x00, 0x01, 'u', 0xFF, 0xFF},
		"tuple short count":  {0x00, 0x31, 0x00},
		"tuple missing elem": {0x00, 0x31, 0x00, 0x02, 0x00, 0x09},
		"too deep":           deep,
	}
	for name, b := range cases {
		_, _, err := ParseOption(b)
		if !errors.Is(err, ErrMalformedOption) {
			t.Errorf("%s: error %v does not wrap ErrMalformedOption", name, err)
		}
	}
}

func TestParseOptionKnownClass(t *testing.T) {
	// Cassandra 5 under protocol v4 describes a duration column so.
	typ, _, err := ParseOption(customOption("org.apache.cassandra.db.marshal.DurationType"))
	if err != nil || !typ.Equal(tDuration) {
		t.Errorf("DurationType: %v %v", typ, err)
	}
	typ, _, err = ParseOption(append([]byte{0, 0x20}, customOption("org.apache.cassandra.db.marshal.DurationType")...))
	if err != nil || !typ.Equal(NewList(tDuration)) {
		t.Errorf("list of DurationType: %v %v", typ, err)
	}
}

func TestParseOptionUnreadableVector(t *testing.T) {
	for _, class := range []string{
		"org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, -1)",
		"org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.ListType(, 2)",
	} {
		typ, _, err := ParseOption(customOption(class))
		if err != nil || typ.Kind != KindCustom || typ.Custom != class {
			t.Errorf("%s: %v %v", class, typ, err)
		}
	}
}

func customOption(class string) []byte {
	return append([]byte{0, 0, byte(len(class) >> 8), byte(len(class))}, class...)
}

func TestParseClass(t *testing.T) {
	const m = "org.apache.cassandra.db.marshal."
	cases := []struct {
		class string
		want  *Type
	}{
		{m + "Int32Type", tInt},
		{m + "ReversedType(" + m + "UTF8Type)", tText},
		{m + "FrozenType(" + m + "ListType(" + m + "TimeUUIDType))", NewList(tTimeUUID)},
		{m + "MapType(" + m + "UTF8Type," + m + "SetType(" + m + "LongType))", NewMap(tText, NewSet(tBigint))},
		{m + "TupleType(" + m + "Int32Type, " + m + "DoubleType)", NewTuple(tInt, tDouble)},
		{m + "UserType(ks,61646472,737472656574:" + m + "UTF8Type,7a6970:" + m + "Int32Type)",
			NewUDT("ks", "addr", Field{"street", tText}, Field{"zip", tInt})},
		{m + "VectorType(" + m + "VectorType(" + m + "FloatType, 2), 4)", NewVector(NewVector(tFloat, 2), 4)},
		{"com.example.Thing", &Type{Kind: KindCustom, Custom: "com.example.Thing"}},
		{"com.example.Param(x, y)", &Type{Kind: KindCustom, Custom: "com.example.Param(x, y)"}},
	}
	for _, c := range cases {
		got, err := ParseClass(c.class)
		if err != nil {
			t.Errorf("%s: %v", c.class, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.class, diff)
		}
		// Class() is the inverse (FrozenType/ReversedType aside).
		if c.want.Kind != KindCustom {
			again, err := ParseClass(got.Class())
			if err != nil || !cmp.Equal(got, again) {
				t.Errorf("ParseClass(Class()) of %s: %v %v", got, again, err)
			}
		}
	}
	for _, bad := range []string{"", m + "ListType(", m + "MapType(" + m + "Int32Type)", m + "VectorType(" + m + "FloatType, 0)",
		m + "UserType(ks,zz)", m + "Int32Type trailing)", "x.Y(a", m + "UserType(ks,61,nocolon)"} {
		if _, err := ParseClass(bad); !errors.Is(err, ErrMalformedClass) {
			t.Errorf("%q: error %v does not wrap ErrMalformedClass", bad, err)
		}
	}
}

func TestUUIDText(t *testing.T) {
	want := UUID{0x55, 0x0e, 0x84, 0x00, 0xe2, 0x9b, 0x41, 0xd4, 0xa7, 0x16, 0x44, 0x66, 0x55, 0x44, 0x00, 0x00}
	for _, s := range []string{"550e8400-e29b-41d4-a716-446655440000", "550E8400-E29B-41D4-A716-446655440000",
		"{550e8400-e29b-41d4-a716-446655440000}", "550e8400e29b41d4a716446655440000"} {
		u, err := ParseUUID(s)
		if err != nil || u != want {
			t.Errorf("ParseUUID(%q) = %s, %v", s, u, err)
		}
	}
	for _, s := range []string{"", "550e8400-e29b-41d4-a716-44665544000", "550e8400-e29b-41d4-a716-4466554400000",
		"550e8400e-29b-41d4-a716-446655440000", "g50e8400-e29b-41d4-a716-446655440000", "550e8400-e29b-41d4-a716-44665544000-"} {
		if _, err := ParseUUID(s); !errors.Is(err, ErrBadUUID) {
			t.Errorf("ParseUUID(%q): %v", s, err)
		}
	}
	text, _ := want.MarshalText()
	var back UUID
	if err := back.UnmarshalText(text); err != nil || back != want {
		t.Errorf("text round trip: %s %v", back, err)
	}
	r, err := NewRandomUUID()
	if err != nil || r.Version() != 4 || r[8]&0xC0 != 0x80 {
		t.Errorf("NewRandomUUID: %s %v", r, err)
	}
	a, err1 := NewTimeUUID()
	b, err2 := NewTimeUUID()
	if err1 != nil || err2 != nil || a.Version() != 1 || a == b || a.Node()[0]&1 != 1 {
		t.Errorf("NewTimeUUID: %s %s %v %v", a, b, err1, err2)
	}
	if _, ok := r.Timestamp(); ok || !r.Time().IsZero() {
		t.Error("a random UUID has no time")
	}
}

func TestValueStrings(t *testing.T) {
	cases := []struct {
		v    interface{ String() string }
		want string
	}{
		{NewDecimal(-12345, 2), "-123.45"},
		{NewDecimal(5, 3), "0.005"},
		{NewDecimal(12, -3), "12000"},
		{NewDecimal(0, 0), "0"},
		{Decimal{}, "0"},
		{NewDecimal(12, -40), "1.2E+41"},
		{NewDecimal(-12, 50), "-1.2E-49"},
		{Duration{}, "0s"},
		{Duration{Months: 14, Days: 3, Nanoseconds: 3723004005006}, "1y2mo3d1h2m3s4ms5us6ns"},
		{Duration{Days: -2}, "-2d"},
		{Date(0), "1970-01-01"},
		{Date(-1), "1969-12-31"},
		{Date(-719742), "-0001-06-01"},
	}
	for _, c := range cases {
		if got := c.v.String(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b Decimal
		want int
	}{
		{NewDecimal(10, 1), NewDecimal(1, 0), 0},
		{NewDecimal(11, 1), NewDecimal(1, 0), 1},
		{NewDecimal(-1, 0), NewDecimal(1, 5), -1},
		{NewDecimal(0, 7), Decimal{Scale: -3}, 0},
		{NewDecimal(-15, 1), NewDecimal(-2, 0), 1},
		{NewDecimal(-25, 1), NewDecimal(-2, 0), -1},
		{NewDecimal(999, 3), NewDecimal(1, 0), -1},
		{NewDecimal(1, math.MinInt32), NewDecimal(1, math.MaxInt32), 1}, // 10^2147483648 vs 10^-2147483647, no huge powers
		{NewDecimal(-1, math.MinInt32), NewDecimal(-1, math.MaxInt32), -1},
		{NewDecimal(12345, 2), NewDecimal(1234500, 4), 0},
	} {
		if got := c.a.Cmp(c.b); got != c.want {
			t.Errorf("%v.Cmp(%v) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := c.b.Cmp(c.a); got != -c.want {
			t.Errorf("%v.Cmp(%v) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	if !strings.Contains(Kind(0x20).String(), "list") {
		t.Error(Kind(0x20).String())
	}
}

func TestParseCQL(t *testing.T) {
	cases := []struct {
		in   string
		want *Type
	}{
		{"int", tInt},
		{" TEXT ", tText},
		{"varchar", tText},
		{"map<text, frozen<list<int>>>", NewMap(tText, NewList(tInt))},
		{"frozen<map<text,text>>", NewMap(tText, tText)},
		{"set<frozen<tuple<int, text, blob>>>", NewSet(NewTuple(tInt, tText, tBlob))},
		{"vector<float, 768>", NewVector(tFloat, 768)},
		{"vector<frozen<list<text>>,2>", NewVector(NewList(tText), 2)},
		{"frozen<addr>", &Type{Kind: KindUDT, Name: "addr"}},
		{`ks."Addr""X"`, &Type{Kind: KindUDT, Keyspace: "ks", Name: `Addr"X`}},
		{`"int"`, &Type{Kind: KindUDT, Name: "int"}},
		{"'org.example.My''Type'", &Type{Kind: KindCustom, Custom: "org.example.My'Type"}},
		{"'org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.Int32Type, 2)'", NewVector(tInt, 2)},
	}
	for _, c := range cases {
		got, err := ParseCQL(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("%q: got %#v, want %#v", c.in, got, c.want)
		}
	}
	// String output parses back to the same type (UDTs aside, which print by name).
	for _, typ := range sampleTypes() {
		if strings.Contains(typ.String(), "addr") || strings.Contains(typ.String(), "empty") || typ.String() == "tuple<>" {
			continue
		}
		back, err := ParseCQL(typ.String())
		if err != nil || !back.Equal(typ) {
			t.Errorf("ParseCQL(%q) = %v, %v", typ.String(), back, err)
		}
	}
	for _, bad := range []string{"", "list<int", "map<int>", "vector<float, 0>", "vector<float>", "tuple<>", "int int",
		"'unterminated", `"unterminated`, "list<<int>>", strings.Repeat("list<", 100) + "int" + strings.Repeat(">", 100)} {
		if _, err := ParseCQL(bad); !errors.Is(err, ErrMalformedCQLType) {
			t.Errorf("%q: error %v does not wrap ErrMalformedCQLType", bad, err)
		}
	}
}

func TestTypeEqual(t *testing.T) {
	types := sampleTypes()
	for i, a := range types {
		for j, b := range types {
			if got := a.Equal(b); got != (i == j) {
				t.Errorf("%s.Equal(%s) = %v", a, b, got)
			}
		}
		// A copy made through the wire format is equal.
		c, _, err := ParseOption(a.AppendOption(nil))
		if err != nil || !a.Equal(c) {
			t.Errorf("%s not equal to its parsed copy: %v", a, err)
		}
	}
	var nilType *Type
	if !nilType.Equal(nil) || nilType.Equal(tInt) || tInt.Equal(nil) {
		t.Error("nil handling")
	}
	if NewUDT("a", "u", Field{"x", tInt}).Equal(NewUDT("a", "u", Field{"y", tInt})) {
		t.Error("field names ignored")
	}
}
