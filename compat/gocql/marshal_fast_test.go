package gocql

import (
	"bytes"
	"math"
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
		{"int", math.MaxInt32 + 1, false},
		{"int", math.MinInt32 - 1, false},
		{"int", int32(-7), true},
		{"int", int64(math.MaxInt32), true},
		{"int", int64(math.MaxInt32) + 1, false},
		{"int", int16(1), false},
		{"int", uint32(1), false},
		{"int", "12", false},
		{"int", myInt(1), false},
		{"int", nil, false},
		{"bigint", 1 << 40, true},
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
