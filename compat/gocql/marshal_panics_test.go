package gocql_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// The cases below are the inputs for which gocql v1.7.0's Marshal or
// Unmarshal panics (docs/deviations.md, G24). Each runs through compat,
// which must return an error, and through gocql v1.7.0, which must still
// panic: a case gocql no longer panics for is no longer a deviation.

// codecCase is one Marshal (marshal set) or Unmarshal (of data) call.
// value returns the value to marshal or the destination, built from
// compat's types (legacy false) or gocql's (legacy true).
type codecCase struct {
	name    string
	info    gocql.TypeInfo
	marshal bool
	data    []byte
	value   func(legacy bool) interface{}
}

// same returns a value constructor that ignores which side it builds for.
func same(v func() interface{}) func(bool) interface{} {
	return func(bool) interface{} { return v() }
}

//lint:ignore ST1008 the recovered panic comes after the error it replaces
func (c codecCase) runCompat() (err error, panicked interface{}) {
	defer func() { panicked = recover() }()
	if c.marshal {
		_, err = gocql.Marshal(c.info, c.value(false))
		return err, nil
	}
	return gocql.Unmarshal(c.info, c.data, c.value(false)), nil
}

//lint:ignore ST1008 the recovered panic comes after the error it replaces
func (c codecCase) runLegacy() (err error, panicked interface{}) {
	defer func() { panicked = recover() }()
	if c.marshal {
		_, err = gocqlv1.Marshal(legacyInfo(c.info), c.value(true))
		return err, nil
	}
	return gocqlv1.Unmarshal(legacyInfo(c.info), c.data, c.value(true)), nil
}

// legacyInfo builds gocql v1.7.0's TypeInfo for a compat TypeInfo.
func legacyInfo(info gocql.TypeInfo) gocqlv1.TypeInfo {
	if info == nil {
		return nil
	}
	native := gocqlv1.NewNativeType(info.Version(), gocqlv1.Type(info.Type()), info.Custom())
	switch t := info.(type) {
	case gocql.CollectionType:
		return gocqlv1.CollectionType{NativeType: native, Key: legacyInfo(t.Key), Elem: legacyInfo(t.Elem)}
	case gocql.TupleTypeInfo:
		elems := make([]gocqlv1.TypeInfo, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = legacyInfo(e)
		}
		return gocqlv1.TupleTypeInfo{NativeType: native, Elems: elems}
	case gocql.UDTTypeInfo:
		fields := make([]gocqlv1.UDTField, len(t.Elements))
		for i, e := range t.Elements {
			fields[i] = gocqlv1.UDTField{Name: e.Name, Type: legacyInfo(e.Type)}
		}
		return gocqlv1.UDTTypeInfo{NativeType: native, KeySpace: t.KeySpace, Name: t.Name, Elements: fields}
	}
	return native
}

func nativeInfo(t gocql.Type) gocql.TypeInfo { return gocql.NewNativeType(4, t, "") }

func listOf(elem gocql.TypeInfo) gocql.TypeInfo {
	return gocql.CollectionType{NativeType: gocql.NewNativeType(4, gocql.TypeList, ""), Elem: elem}
}

func mapOf(key, elem gocql.TypeInfo) gocql.TypeInfo {
	return gocql.CollectionType{NativeType: gocql.NewNativeType(4, gocql.TypeMap, ""), Key: key, Elem: elem}
}

func tupleOf(elems ...gocql.TypeInfo) gocql.TypeInfo {
	return gocql.TupleTypeInfo{NativeType: gocql.NewNativeType(4, gocql.TypeTuple, ""), Elems: elems}
}

// udtOf builds a user-defined type from name, type pairs.
func udtOf(fields ...interface{}) gocql.TypeInfo {
	u := gocql.UDTTypeInfo{NativeType: gocql.NewNativeType(4, gocql.TypeUDT, ""), KeySpace: "ks", Name: "u"}
	for i := 0; i < len(fields); i += 2 {
		info, _ := fields[i+1].(gocql.TypeInfo)
		u.Elements = append(u.Elements, gocql.UDTField{Name: fields[i].(string), Type: info})
	}
	return u
}

// cqlBytes concatenates [bytes] values: a 4-byte length and the data, -1
// for nil.
func cqlBytes(items ...[]byte) []byte {
	var out []byte
	for _, it := range items {
		if it == nil {
			out = append(out, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		n := len(it)
		out = append(out, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		out = append(out, it...)
	}
	return out
}

// collection is a protocol v4 list (or, with pairs, map) encoding.
func collection(items ...[]byte) []byte {
	n := len(items)
	out := []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	return append(out, cqlBytes(items...)...)
}

func mapData(pairs ...[]byte) []byte {
	n := len(pairs) / 2
	out := []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	return append(out, cqlBytes(pairs...)...)
}

var int1 = []byte{0, 0, 0, 1}

// Destinations that implement only UDTUnmarshaler (pointer receiver), on
// both sides; udtOnlyInt is one based on an integer kind.
type compatUDTOnly struct{ fields []string }

func (u *compatUDTOnly) UnmarshalUDT(name string, _ gocql.TypeInfo, _ []byte) error {
	if u != nil {
		u.fields = append(u.fields, name)
	}
	return nil
}

type legacyUDTOnly struct{ fields []string }

func (u *legacyUDTOnly) UnmarshalUDT(name string, _ gocqlv1.TypeInfo, _ []byte) error {
	if u != nil {
		u.fields = append(u.fields, name)
	}
	return nil
}

type compatUDTOnlyInt int

func (*compatUDTOnlyInt) UnmarshalUDT(string, gocql.TypeInfo, []byte) error { return nil }

type legacyUDTOnlyInt int

func (*legacyUDTOnlyInt) UnmarshalUDT(string, gocqlv1.TypeInfo, []byte) error { return nil }

// nilUDTOnly returns a nil *compatUDTOnly or *legacyUDTOnly.
func nilUDTOnly(legacy bool) interface{} {
	if legacy {
		return (*legacyUDTOnly)(nil)
	}
	return (*compatUDTOnly)(nil)
}

func nilUDTOnlyInt(legacy bool) interface{} {
	if legacy {
		return (*legacyUDTOnlyInt)(nil)
	}
	return (*compatUDTOnlyInt)(nil)
}

// Unmarshalers with value receivers: calling them through a nil pointer
// panics in the method wrapper Go generates.
type compatUDTByValue struct{}

func (compatUDTByValue) UnmarshalUDT(string, gocql.TypeInfo, []byte) error { return nil }

type legacyUDTByValue struct{}

func (legacyUDTByValue) UnmarshalUDT(string, gocqlv1.TypeInfo, []byte) error { return nil }

type compatCQLByValue struct{}

func (compatCQLByValue) UnmarshalCQL(gocql.TypeInfo, []byte) error { return nil }

type legacyCQLByValue struct{}

func (legacyCQLByValue) UnmarshalCQL(gocqlv1.TypeInfo, []byte) error { return nil }

type embeddedInner struct{ F int }

type withNilEmbedded struct {
	*embeddedInner
	G int
}

// intTypes are the CQL integer types of finding (a).
var intTypes = []gocql.Type{gocql.TypeInt, gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeSmallInt, gocql.TypeTinyInt, gocql.TypeVarint}

// intData returns data of the right width for an integer type.
func intData(t gocql.Type) []byte {
	switch t {
	case gocql.TypeBigInt, gocql.TypeCounter:
		return []byte{0, 0, 0, 0, 0, 0, 0, 7}
	case gocql.TypeSmallInt:
		return []byte{0, 7}
	case gocql.TypeTinyInt, gocql.TypeVarint:
		return []byte{7}
	}
	return []byte{0, 0, 0, 7}
}

func panicCases() []codecCase {
	text, integer, date := nativeInfo(gocql.TypeText), nativeInfo(gocql.TypeInt), nativeInfo(gocql.TypeDate)
	intPair := tupleOf(integer, integer)
	intPairData := cqlBytes(int1, int1)
	var cases []codecCase

	// (a) nil destination implementing only UDTUnmarshaler, for every
	// integer type and any data (null included), and for the other types
	// whose unmarshal path reached through the nil pointer.
	for _, typ := range intTypes {
		for _, data := range [][]byte{intData(typ), nil, {}, {1, 2, 3}} {
			cases = append(cases,
				codecCase{name: fmt.Sprintf("nil UDTUnmarshaler struct, %s %x", typ, data), info: nativeInfo(typ), data: data, value: nilUDTOnly},
				codecCase{name: fmt.Sprintf("nil UDTUnmarshaler int kind, %s %x", typ, data), info: nativeInfo(typ), data: data, value: nilUDTOnlyInt})
		}
	}
	cases = append(cases,
		codecCase{name: "nil UDTUnmarshaler, text", info: text, data: []byte("a"), value: nilUDTOnly},
		codecCase{name: "nil UDTUnmarshaler, map", info: mapOf(text, integer), data: mapData([]byte("a"), int1), value: nilUDTOnly},
		codecCase{name: "nil UDTUnmarshaler, tuple", info: intPair, data: intPairData, value: nilUDTOnly},
		codecCase{name: "nil value-receiver UDTUnmarshaler, udt", info: udtOf("a", integer), data: cqlBytes(int1), value: func(legacy bool) interface{} {
			if legacy {
				return (*legacyUDTByValue)(nil)
			}
			return (*compatUDTByValue)(nil)
		}},
		codecCase{name: "nil value-receiver Unmarshaler, int", info: integer, data: int1, value: func(legacy bool) interface{} {
			if legacy {
				return (*legacyCQLByValue)(nil)
			}
			return (*compatCQLByValue)(nil)
		}},
	)

	// Nil destination pointers of every kind.
	cases = append(cases,
		codecCase{name: "nil *string", info: text, data: []byte("a"), value: same(func() interface{} { return (*string)(nil) })},
		codecCase{name: "nil *int", info: integer, data: int1, value: same(func() interface{} { return (*int)(nil) })},
		codecCase{name: "nil *[]byte", info: nativeInfo(gocql.TypeBlob), data: []byte("a"), value: same(func() interface{} { return (*[]byte)(nil) })},
		codecCase{name: "nil *[]int", info: listOf(integer), data: collection(int1), value: same(func() interface{} { return (*[]int)(nil) })},
		codecCase{name: "nil *[]int, null list", info: listOf(integer), value: same(func() interface{} { return (*[]int)(nil) })},
		codecCase{name: "nil *map", info: mapOf(text, integer), data: mapData([]byte("a"), int1), value: same(func() interface{} { return (*map[string]int)(nil) })},
		codecCase{name: "nil *map, udt", info: udtOf("a", integer), data: cqlBytes(int1), value: same(func() interface{} { return (*map[string]interface{})(nil) })},
		codecCase{name: "nil *struct, tuple", info: intPair, data: intPairData, value: same(func() interface{} { return (*struct{ A, B int })(nil) })},
		codecCase{name: "nil **string", info: text, data: []byte("a"), value: same(func() interface{} { return (**string)(nil) })},
		codecCase{name: "nil **string, null", info: text, value: same(func() interface{} { return (**string)(nil) })},
	)

	// Dates of 1 to 3 bytes.
	for n := 1; n <= 3; n++ {
		short := []byte{1, 2, 3}[:n]
		cases = append(cases,
			codecCase{name: fmt.Sprintf("%d-byte date into *time.Time", n), info: date, data: short, value: same(func() interface{} { return new(time.Time) })},
			codecCase{name: fmt.Sprintf("%d-byte date into *string", n), info: date, data: short, value: same(func() interface{} { return new(string) })},
		)
	}
	cases = append(cases,
		codecCase{name: "2-byte date in a list", info: listOf(date), data: collection([]byte{1, 2}), value: same(func() interface{} { return new([]time.Time) })},
		codecCase{name: "3-byte date as a map value", info: mapOf(text, date), data: mapData([]byte("a"), []byte{1, 2, 3}), value: same(func() interface{} { return new(map[string]string) })},
		codecCase{name: "1-byte date as a map key", info: mapOf(date, integer), data: mapData([]byte{1}, int1), value: same(func() interface{} { return new(map[time.Time]int) })},
	)

	// A list with a negative count.
	cases = append(cases,
		codecCase{name: "list count -2", info: listOf(integer), data: []byte{0xff, 0xff, 0xff, 0xfe}, value: same(func() interface{} { return new([]int) })})

	// Tuple and UDT types whose TypeInfo is not a TupleTypeInfo/UDTTypeInfo.
	cases = append(cases,
		codecCase{name: "Marshal tuple with a NativeType", info: nativeInfo(gocql.TypeTuple), marshal: true, value: same(func() interface{} { return []interface{}{1} })},
		codecCase{name: "Unmarshal tuple with a NativeType", info: nativeInfo(gocql.TypeTuple), data: cqlBytes(int1), value: same(func() interface{} { return new([]interface{}) })},
		codecCase{name: "Marshal udt with a NativeType", info: nativeInfo(gocql.TypeUDT), marshal: true, value: same(func() interface{} { return map[string]interface{}{"a": 1} })},
		codecCase{name: "Unmarshal udt with a NativeType into a map", info: nativeInfo(gocql.TypeUDT), data: cqlBytes(int1), value: same(func() interface{} { return new(map[string]interface{}) })},
		codecCase{name: "Unmarshal udt with a NativeType into a struct", info: nativeInfo(gocql.TypeUDT), data: cqlBytes(int1), value: same(func() interface{} { return new(struct{ A int }) })},
		codecCase{name: "Unmarshal udt with a NativeType into a UDTUnmarshaler", info: nativeInfo(gocql.TypeUDT), data: cqlBytes(int1), value: func(legacy bool) interface{} {
			if legacy {
				return new(legacyUDTOnly)
			}
			return new(compatUDTOnly)
		}},
	)

	// Marshal(tuple, nil).
	cases = append(cases,
		codecCase{name: "Marshal tuple nil", info: intPair, marshal: true, value: same(func() interface{} { return nil })})

	// Nil TypeInfos inside collections, tuples and UDTs.
	cases = append(cases,
		codecCase{name: "Marshal list, nil Elem", info: listOf(nil), marshal: true, value: same(func() interface{} { return []int{1} })},
		codecCase{name: "Unmarshal list, nil Elem", info: listOf(nil), data: collection(int1), value: same(func() interface{} { return new([]int) })},
		codecCase{name: "Marshal map, nil Key", info: mapOf(nil, integer), marshal: true, value: same(func() interface{} { return map[int]int{1: 1} })},
		codecCase{name: "Unmarshal map, nil Key", info: mapOf(nil, integer), data: mapData(int1, int1), value: same(func() interface{} { return new(map[int]int) })},
		codecCase{name: "Marshal map, nil Elem", info: mapOf(integer, nil), marshal: true, value: same(func() interface{} { return map[int]int{1: 1} })},
		codecCase{name: "Unmarshal map, nil Elem", info: mapOf(integer, nil), data: mapData(int1, int1), value: same(func() interface{} { return new(map[int]int) })},
		codecCase{name: "Marshal tuple, nil element", info: tupleOf(nil), marshal: true, value: same(func() interface{} { return []interface{}{1} })},
		codecCase{name: "Unmarshal tuple, nil element, into a struct", info: tupleOf(nil), data: cqlBytes(int1), value: same(func() interface{} { return new(struct{ A int }) })},
		codecCase{name: "Unmarshal tuple, nil element, into []interface{}", info: tupleOf(nil), data: cqlBytes(int1), value: same(func() interface{} { return []interface{}{new(int)} })},
		codecCase{name: "Marshal udt, nil field type", info: udtOf("a", nil), marshal: true, value: same(func() interface{} { return map[string]interface{}{"a": 1} })},
		codecCase{name: "Unmarshal udt, nil field type, into a map", info: udtOf("a", nil), data: cqlBytes(int1), value: same(func() interface{} { return new(map[string]interface{}) })},
		codecCase{name: "Unmarshal udt, nil field type, into a struct", info: udtOf("a", nil), data: cqlBytes(int1), value: same(func() interface{} {
			return new(struct {
				A int `cql:"a"`
			})
		})},
	)

	// Tuple and UDT components longer than the data.
	overlong := []byte{0, 0, 0, 9, 0}
	cases = append(cases,
		codecCase{name: "overlong tuple component into []interface{}", info: intPair, data: overlong, value: same(func() interface{} { return []interface{}{new(int), new(int)} })},
		codecCase{name: "overlong tuple component into a struct", info: intPair, data: overlong, value: same(func() interface{} { return new(struct{ A, B int }) })},
		codecCase{name: "overlong tuple component into a slice", info: intPair, data: overlong, value: same(func() interface{} { return new([]int) })},
		codecCase{name: "overlong udt field into a map", info: udtOf("a", integer), data: overlong, value: same(func() interface{} { return new(map[string]interface{}) })},
		codecCase{name: "overlong udt field into a struct", info: udtOf("a", integer), data: overlong, value: same(func() interface{} {
			return new(struct {
				A int `cql:"a"`
			})
		})},
		codecCase{name: "overlong udt field into a UDTUnmarshaler", info: udtOf("a", integer), data: overlong, value: func(legacy bool) interface{} {
			if legacy {
				return new(legacyUDTOnly)
			}
			return new(compatUDTOnly)
		}},
	)

	// Tuples into destinations that do not fit.
	cases = append(cases,
		codecCase{name: "tuple into a short []interface{}", info: intPair, data: intPairData, value: same(func() interface{} { return []interface{}{new(int)} })},
		codecCase{name: "tuple into struct fields of other types", info: intPair, data: intPairData, value: same(func() interface{} { return new(struct{ A, B int32 }) })},
		codecCase{name: "Marshal tuple from a struct with unexported fields", info: intPair, marshal: true, value: same(func() interface{} { return struct{ a, b int }{1, 2} })},
		codecCase{name: "Unmarshal tuple into a struct with unexported fields", info: intPair, data: intPairData, value: same(func() interface{} { return new(struct{ a, b int }) })},
	)

	// UDT structs whose fields cannot be reached.
	cases = append(cases,
		codecCase{name: "udt into an unexported cql-tagged field", info: udtOf("a", integer), data: cqlBytes(int1), value: same(func() interface{} {
			return new(struct {
				a int `cql:"a"`
			})
		})},
		codecCase{name: "Unmarshal udt into a struct with a nil embedded pointer", info: udtOf("F", integer), data: cqlBytes(int1), value: same(func() interface{} { return new(withNilEmbedded) })},
		codecCase{name: "Marshal udt from a struct with a nil embedded pointer", info: udtOf("F", integer), marshal: true, value: same(func() interface{} { return withNilEmbedded{G: 1} })},
	)
	return cases
}

// TestCodecErrorsWhereGocqlPanics pins G24: for every input that makes gocql
// v1.7.0's Marshal or Unmarshal panic, compat returns an error.
func TestCodecErrorsWhereGocqlPanics(t *testing.T) {
	for _, c := range panicCases() {
		err, panicked := c.runCompat()
		switch {
		case panicked != nil:
			t.Errorf("%s: compat panicked: %v", c.name, panicked)
		case err == nil:
			t.Errorf("%s: compat returned no error", c.name)
		}
		if _, panicked := c.runLegacy(); panicked == nil {
			t.Errorf("%s: gocql v1.7.0 did not panic: the case is not a deviation", c.name)
		}
	}
}

// TestUnmarshalIntoNilBigInt pins that decoding an integer into a nil
// *big.Int succeeds and stores nothing, as in gocql v1.7.0 (which decodes
// into a throwaway big.Int).
func TestUnmarshalIntoNilBigInt(t *testing.T) {
	for _, typ := range intTypes {
		for _, data := range [][]byte{intData(typ), nil, {}, {1, 2, 3}, {0x80, 0, 0, 0, 0, 0, 0, 0, 1}} {
			c := codecCase{info: nativeInfo(typ), data: data, value: same(func() interface{} { return (*big.Int)(nil) })}
			cerr, cp := c.runCompat()
			lerr, lp := c.runLegacy()
			if cp != nil || cerr != nil || lp != nil || lerr != nil {
				t.Errorf("Unmarshal(%s, %x, nil *big.Int): compat %v (panic %v), gocql %v (panic %v); want success on both", typ, data, cerr, cp, lerr, lp)
			}
		}
	}
	// Not an integer type: both sides still refuse the destination type.
	c := codecCase{info: nativeInfo(gocql.TypeText), data: []byte("1"), value: same(func() interface{} { return (*big.Int)(nil) })}
	if err, p := c.runCompat(); err == nil || p != nil {
		t.Errorf("Unmarshal(text, nil *big.Int) = %v (panic %v), want an error", err, p)
	}
}

// TestUnmarshalNullWithNilTypeInfo pins that a null value with a nil
// TypeInfo (a tuple component or UDT field without a type) sets a pointer
// to pointer destination to nil, as gocql v1.7.0 does.
func TestUnmarshalNullWithNilTypeInfo(t *testing.T) {
	s := "old"
	p := &s
	if err := gocql.Unmarshal(nil, nil, &p); err != nil || p != nil {
		t.Errorf("Unmarshal(nil TypeInfo, null, **string) = %v, pointer %v; want nil, nil", err, p)
	}
	if err := gocql.Unmarshal(nil, []byte("x"), &p); err == nil {
		t.Error("Unmarshal(nil TypeInfo, data, **string) succeeded")
	}
	if err := gocql.Unmarshal(nil, nil, new(string)); err == nil {
		t.Error("Unmarshal(nil TypeInfo, null, *string) succeeded")
	}

	type withPtr struct {
		A *string `cql:"a"`
		B int     `cql:"b"`
	}
	tuple := tupleOf(nil, nativeInfo(gocql.TypeInt))
	udt := udtOf("a", nil, "b", nativeInfo(gocql.TypeInt))
	data := cqlBytes(nil, int1)
	cases := []struct {
		name  string
		info  gocql.TypeInfo
		value func() (dest interface{}, check func() bool)
	}{
		{"tuple into []interface{}", tuple, func() (interface{}, func() bool) {
			a, b := &s, 0
			return []interface{}{&a, &b}, func() bool { return a == nil && b == 1 }
		}},
		{"udt into a struct", udt, func() (interface{}, func() bool) {
			v := &withPtr{A: &s}
			return v, func() bool { return v.A == nil && v.B == 1 }
		}},
	}
	for _, c := range cases {
		dest, check := c.value()
		if err := gocql.Unmarshal(c.info, data, dest); err != nil || !check() {
			t.Errorf("compat: Unmarshal(%s, %s) = %v, value %v", c.name, c.info, err, dest)
		}
		ldest, lcheck := c.value()
		if err := gocqlv1.Unmarshal(legacyInfo(c.info), data, ldest); err != nil || !lcheck() {
			t.Errorf("gocql v1.7.0: Unmarshal(%s, %s) = %v, value %v (the case no longer matches gocql)", c.name, c.info, err, ldest)
		}
	}
}

// TestNilDestinationsOfEveryType sweeps nil destination pointers (of a type
// implementing only UDTUnmarshaler, with a pointer or a value receiver, and
// of the usual destination types) over every CQL type: compat never panics;
// where gocql v1.7.0 panics compat returns an error, and otherwise both
// sides succeed, or fail with the same message.
func TestNilDestinationsOfEveryType(t *testing.T) {
	integer, text := nativeInfo(gocql.TypeInt), nativeInfo(gocql.TypeText)
	infos := []gocql.TypeInfo{
		gocql.NewNativeType(4, gocql.TypeCustom, "x.Y"),
		gocql.NewNativeType(2, gocql.TypeCustom, "org.apache.cassandra.db.marshal.UserType(ks,75)"),
		listOf(integer), gocql.CollectionType{NativeType: gocql.NewNativeType(4, gocql.TypeSet, ""), Elem: integer},
		mapOf(text, integer), tupleOf(integer, integer), udtOf("a", integer), nativeInfo(gocql.TypeUDT),
		nativeInfo(gocql.TypeList), nativeInfo(gocql.TypeMap), nativeInfo(gocql.TypeTuple),
	}
	for typ := gocql.TypeAscii; typ <= gocql.TypeDuration; typ++ {
		infos = append(infos, nativeInfo(typ))
	}
	data := [][]byte{nil, {}, {7}, {0, 7}, {0, 0, 0, 7}, {0, 0, 0, 0, 0, 0, 0, 7}, make([]byte, 16),
		collection(int1), mapData([]byte("a"), int1), cqlBytes(int1, int1)}
	dests := []func(bool) interface{}{
		nilUDTOnly, nilUDTOnlyInt,
		func(legacy bool) interface{} {
			if legacy {
				return (*legacyUDTByValue)(nil)
			}
			return (*compatUDTByValue)(nil)
		},
		same(func() interface{} { return (*big.Int)(nil) }),
		same(func() interface{} { return (*string)(nil) }),
		same(func() interface{} { return (*int)(nil) }),
		same(func() interface{} { return (*int8)(nil) }),
		same(func() interface{} { return (*uint16)(nil) }),
		same(func() interface{} { return (*bool)(nil) }),
		same(func() interface{} { return (*float32)(nil) }),
		same(func() interface{} { return (*float64)(nil) }),
		same(func() interface{} { return (*time.Time)(nil) }),
		same(func() interface{} { return (*time.Duration)(nil) }),
		same(func() interface{} { return (*[]byte)(nil) }),
		same(func() interface{} { return (*[]int)(nil) }),
		same(func() interface{} { return (*[2]int)(nil) }),
		same(func() interface{} { return (*map[string]int)(nil) }),
		same(func() interface{} { return (*map[string]interface{})(nil) }),
		same(func() interface{} { return (*struct{ A, B int })(nil) }),
		same(func() interface{} { return (*[]interface{})(nil) }),
		same(func() interface{} { return (*interface{})(nil) }),
	}
	for _, info := range infos {
		for _, d := range data {
			for _, dest := range dests {
				c := codecCase{info: info, data: d, value: dest}
				cerr, cp := c.runCompat()
				lerr, lp := c.runLegacy()
				name := fmt.Sprintf("Unmarshal(%s, %x, %T)", info, d, dest(false))
				switch {
				case cp != nil:
					t.Errorf("%s: compat panicked: %v", name, cp)
				case lp != nil:
					if cerr == nil {
						t.Errorf("%s: gocql panics (%v), compat returned no error", name, lp)
					}
				case (cerr == nil) != (lerr == nil):
					t.Errorf("%s: compat %v, gocql %v", name, cerr, lerr)
				case cerr != nil && cerr.Error() != strings.ReplaceAll(lerr.Error(), "legacy", "compat"):
					t.Errorf("%s: error messages differ:\n compat: %v\n  gocql: %v", name, cerr, lerr)
				}
			}
		}
	}
}
