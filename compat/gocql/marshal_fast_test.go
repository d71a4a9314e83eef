package gocql

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// TestBindableAsIsMatchesMarshal checks the values bound without gocql's Marshal: for each,
// the native encoder must produce exactly Marshal's bytes. It also pins which values take the
// fast path, so that the common ones do and the ones needing gocql's rules (range errors, named
// types, pointers, strings into ints, ascii) do not.
func TestBindableAsIsMatchesMarshal(t *testing.T) {
	type myInt int
	type myString string
	s := "x"
	cases := []struct {
		cql   string
		value any
		asIs  bool
	}{
		{"int", 0, true},
		{"int", 10000, true},
		{"int", math.MaxInt32, true},
		{"int", math.MinInt32, true},
		{"int", int32(-7), true},
		{"int", int64(math.MaxInt32), true},
		{"int", int64(math.MaxInt32) + 1, false},
		{"int", int16(1), false},
		{"int", uint32(1), false},
		{"int", "12", false},
		{"int", myInt(1), false},
		{"int", nil, false},
		{"bigint", 1 << min(40, strconv.IntSize-2), true},
		{"bigint", int64(math.MinInt64), true},
		{"bigint", int32(5), true},
		{"bigint", uint64(5), false},
		{"text", "", true},
		{"text", "héllo", true},
		{"text", "\xff not utf-8", true},
		{"varchar", "v", true},
		{"text", []byte("b"), false},
		{"text", myString("n"), false},
		{"text", &s, false},
		{"ascii", "a", false},
		{"blob", "b", false},
		{"boolean", true, true},
		{"boolean", false, true},
		{"double", math.Pi, true},
		{"double", math.NaN(), true},
		{"double", float32(1), false},
		{"float", float32(1.5), true},
		{"float", 1.5, false},
		{"timestamp", int64(1), false},
		{"uuid", "00000000-0000-0000-0000-000000000000", false},
	}
	if strconv.IntSize == 64 {
		// ints outside the int range, which only a 64-bit int holds (variables, so that this
		// compiles where int has 32 bits)
		above, below := int64(math.MaxInt32)+1, int64(math.MinInt32)-1
		c := cases[0]
		c.cql, c.asIs = "int", false
		c.value = int(above)
		cases = append(cases, c)
		c.value = int(below)
		cases = append(cases, c)
	}
	for _, c := range cases {
		nt, err := cqltype.ParseCQL(c.cql)
		if err != nil {
			t.Fatal(err)
		}
		info := typeInfoOf(protoVersion4, nt)
		if got := bindableAsIs(info, c.value); got != c.asIs {
			t.Errorf("bindableAsIs(%s, %T(%v)) = %v, want %v", c.cql, c.value, c.value, got, c.asIs)
			continue
		}
		if !c.asIs {
			continue
		}
		want, err := Marshal(info, c.value)
		if err != nil {
			t.Errorf("Marshal(%s, %T(%v)): %v", c.cql, c.value, c.value, err)
			continue
		}
		got, err := cqltype.Marshal(nt, c.value)
		if err != nil {
			t.Errorf("native encoding of %T(%v) as %s: %v", c.value, c.value, c.cql, err)
			continue
		}
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("%T(%v) as %s: native encodes %x, gocql's Marshal %x", c.value, c.value, c.cql, got, want)
		}
	}
}

// TestBindAsIs checks the whole-statement decision: every value must qualify, and there must
// be a bind marker for each.
func TestBindAsIs(t *testing.T) {
	intT, _ := cqltype.ParseCQL("int")
	textT, _ := cqltype.ParseCQL("text")
	args := []ColumnInfo{{Name: "k", TypeInfo: typeInfoOf(protoVersion4, intT)}, {Name: "v", TypeInfo: typeInfoOf(protoVersion4, textT)}}
	for _, c := range []struct {
		values []any
		want   bool
	}{
		{[]any{1, "a"}, true},
		{[]any{1}, true},
		{[]any{}, true},
		{[]any{1, 2}, false},
		{[]any{1, "a", 3}, false},
		{[]any{NamedValue("k", 1), "a"}, false},
		{[]any{UnsetValue, "a"}, false},
	} {
		if got := bindAsIs(args, c.values); got != c.want {
			t.Errorf("bindAsIs(%v) = %v, want %v", c.values, got, c.want)
		}
	}
}

// TestUnmarshalFastMatchesGeneralRules checks the reflection-free decoding of Unmarshal
// against its general rules (unmarshalByType) for every pair it handles, on well-formed,
// null and malformed cells, and pins the pairs it leaves to the general rules.
func TestUnmarshalFastMatchesGeneralRules(t *testing.T) {
	cells := [][]byte{nil, {}, {0, 0, 0, 7}, {0xff, 0xff, 0xff, 0xfe}, {1, 2, 3, 4, 5, 6, 7, 8}, {0x80, 0, 0, 0, 0, 0, 0, 0}, {1, 2}, []byte("héllo")}
	handled := map[string][]string{
		"*int":    {"int", "bigint", "counter"},
		"*int64":  {"int", "bigint", "counter"},
		"*string": {"text", "varchar", "ascii", "blob"},
	}
	for dest, cqls := range handled {
		for _, cql := range cqls {
			nt, err := cqltype.ParseCQL(cql)
			if err != nil {
				t.Fatal(err)
			}
			info := typeInfoOf(protoVersion4, nt)
			for _, cell := range cells {
				fast, slow := newDest(dest), newDest(dest)
				if !unmarshalFast(info, cell, fast) {
					if err := unmarshalByType(info, cell, slow); err != nil && dest == "*int" && strconv.IntSize == 32 {
						continue // beyond a 32-bit int: left to the general rules' range error
					}
					t.Fatalf("%s %x into %s: not decoded by the fast path", cql, cell, dest)
				}
				if err := unmarshalByType(info, cell, slow); err != nil {
					t.Fatalf("%s %x into %s: the general rules fail (%v) where the fast path succeeds", cql, cell, dest, err)
				}
				if got, want := derefDest(fast), derefDest(slow); got != want {
					t.Fatalf("%s %x into %s: fast path %v, general rules %v", cql, cell, dest, got, want)
				}
			}
		}
	}
	intT, _ := cqltype.ParseCQL("int")
	textT, _ := cqltype.ParseCQL("text")
	var nilInt *int
	var s string
	var i32 int32
	for _, c := range []struct {
		info TypeInfo
		dest any
	}{
		{typeInfoOf(protoVersion4, intT), nilInt},
		{typeInfoOf(protoVersion4, intT), &s},
		{typeInfoOf(protoVersion4, intT), &i32},
		{typeInfoOf(protoVersion4, textT), new(int)},
		{typeInfoOf(protoVersion4, textT), new([]byte)},
	} {
		if unmarshalFast(c.info, []byte{0, 0, 0, 1}, c.dest) {
			t.Errorf("%s into %T was decoded by the fast path", c.info, c.dest)
		}
	}
}

func newDest(kind string) any {
	switch kind {
	case "*int":
		return new(int)
	case "*int64":
		return new(int64)
	}
	return new(string)
}

func derefDest(d any) any {
	switch v := d.(type) {
	case *int:
		return *v
	case *int64:
		return *v
	case *string:
		return *v
	}
	return nil
}
