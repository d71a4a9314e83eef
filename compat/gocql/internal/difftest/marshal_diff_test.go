package difftest

import (
	"fmt"
	"testing"

	compat "github.com/cqlbridge/cqlbridge/compat/gocql"
	legacy "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"
)

func describeValue(v interface{}) string {
	return fmt.Sprintf("%T(%#v)", v, v)
}

// TestMarshalNativeTypes marshals every scalar value into every native
// TypeInfo with both implementations.
func TestMarshalNativeTypes(t *testing.T) {
	n := 0
	for _, info := range nativeInfos() {
		for _, v := range scalarValues() {
			c, l := marshalBoth(info, v)
			checkMarshal(t, fmt.Sprintf("Marshal(%s v%d, %s)", info, info.Version(), describeValue(v)), c, l)
			n++
		}
	}
	t.Logf("%d native Marshal cases compared", n)
}

func TestMarshalWithoutProtocolVersionIsAnError(t *testing.T) {
	c, l := marshalBoth(compat.NewNativeType(0, compat.TypeInt, ""), 1)
	if l.panicked == nil {
		t.Fatalf("gocql no longer panics for protocol version 0: %v", l)
	}
	checkMarshal(t, "Marshal(proto 0)", c, l)
}

func list(proto byte, typ compat.Type, elem compat.TypeInfo) compat.CollectionType {
	return compat.CollectionType{NativeType: compat.NewNativeType(proto, typ, ""), Elem: elem}
}

func mapOf(proto byte, key, elem compat.TypeInfo) compat.CollectionType {
	return compat.CollectionType{NativeType: compat.NewNativeType(proto, compat.TypeMap, ""), Key: key, Elem: elem}
}

func collectionInfos() []compat.TypeInfo {
	return []compat.TypeInfo{
		list(4, compat.TypeList, native(compat.TypeInt)),
		list(4, compat.TypeSet, native(compat.TypeText)),
		list(2, compat.TypeList, compat.NewNativeType(2, compat.TypeBlob, "")),
		list(4, compat.TypeList, native(compat.TypeUUID)),
		list(4, compat.TypeSet, native(compat.TypeBigInt)),
		list(4, compat.TypeList, list(4, compat.TypeList, native(compat.TypeText))),
		mapOf(4, native(compat.TypeText), native(compat.TypeInt)),
		mapOf(2, compat.NewNativeType(2, compat.TypeInt, ""), compat.NewNativeType(2, compat.TypeText, "")),
		mapOf(4, native(compat.TypeInt), list(4, compat.TypeList, native(compat.TypeText))),
		mapOf(4, native(compat.TypeUUID), native(compat.TypeDuration)),
		native(compat.TypeList), // a list TypeInfo that is not a CollectionType
	}
}

func collectionValues() []interface{} {
	return []interface{}{
		nil, compat.UnsetValue, 5, "not a collection",
		[]int{1, 2}, []int(nil), []int{}, [2]int{3, 4}, []int32{-1}, []myInt{7}, []int64{1 << 40},
		[]string{"a", ""}, []string{"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}, []myString{"m"},
		[]*int{nil, fiveP}, []interface{}{1, nil, "x"}, []interface{}{"1"},
		[][]byte{nil, {}, {1}}, [][]string{{"a"}, nil}, []compat.UUID{sampleUUID},
		map[string]struct{}{"a": {}}, map[int]struct{}{1: {}}, map[string]bool{"a": true},
		map[string]int{"k": 1}, map[string]*int{"k": nil}, map[string]int(nil), map[string]int{},
		map[int][]string{1: {"a"}}, map[int]string{1: "one"}, map[string]string{"k": "v"},
		map[compat.UUID]compat.Duration{sampleUUID: {Days: 1}}, map[string]compat.Duration{"x": {}},
		&[]int{9}, []interface{}{compatMarshaler{"f"}},
	}
}

func TestMarshalCollections(t *testing.T) {
	for _, info := range collectionInfos() {
		for _, v := range collectionValues() {
			c, l := marshalBoth(info, v)
			checkMarshal(t, fmt.Sprintf("Marshal(%s v%d, %s)", info, info.Version(), describeValue(v)), c, l)
		}
	}
}

// TestMarshalMultiEntryMaps compares maps and sets with several entries,
// whose byte order follows Go's random map iteration: both encodings must
// decode (with gocql) to the same value.
func TestMarshalMultiEntryMaps(t *testing.T) {
	cases := []struct {
		info compat.TypeInfo
		v    interface{}
		dest func() interface{}
	}{
		{mapOf(4, native(compat.TypeText), native(compat.TypeInt)), map[string]int{"a": 1, "b": 2, "c": 3}, func() interface{} { return new(map[string]int) }},
		{mapOf(2, compat.NewNativeType(2, compat.TypeInt, ""), compat.NewNativeType(2, compat.TypeText, "")), map[int]string{1: "x", 2: "y"}, func() interface{} { return new(map[int]string) }},
		{list(4, compat.TypeSet, native(compat.TypeText)), map[string]struct{}{"a": {}, "b": {}, "c": {}}, func() interface{} { return new(map[string]struct{}) }},
	}
	for _, tc := range cases {
		c, l := marshalBoth(tc.info, tc.v)
		if c.failed() || l.failed() {
			t.Fatalf("%s: compat %v, gocql %v", tc.info, c, l)
		}
		if len(c.data) != len(l.data) {
			t.Fatalf("%s: %d bytes from compat, %d from gocql", tc.info, len(c.data), len(l.data))
		}
		if tc.info.Type() == compat.TypeSet {
			var fromCompat, fromLegacy []string
			if err := legacy.Unmarshal(legacyInfo(tc.info), c.data, &fromCompat); err != nil {
				t.Fatal(err)
			}
			if err := legacy.Unmarshal(legacyInfo(tc.info), l.data, &fromLegacy); err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(toSet(fromCompat), toSet(fromLegacy)) {
				t.Errorf("%s: sets differ: %v vs %v", tc.info, fromCompat, fromLegacy)
			}
			continue
		}
		fromCompat, fromLegacy := tc.dest(), tc.dest()
		if err := legacy.Unmarshal(legacyInfo(tc.info), c.data, fromCompat); err != nil {
			t.Fatal(err)
		}
		if err := legacy.Unmarshal(legacyInfo(tc.info), l.data, fromLegacy); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromLegacy, fromCompat); diff != "" {
			t.Errorf("%s: decoded maps differ:\n%s", tc.info, diff)
		}
	}
}

func toSet(s []string) map[string]bool {
	m := map[string]bool{}
	for _, e := range s {
		m[e] = true
	}
	return m
}

func tuple(elems ...compat.TypeInfo) compat.TupleTypeInfo {
	return compat.TupleTypeInfo{NativeType: native(compat.TypeTuple), Elems: elems}
}

type tuplePair struct {
	A int
	B string
}

type tuplePtrPair struct {
	A *int
	B *string
}

type tupleWide struct {
	A int32
	B string
}

type tupleUnexported struct {
	a int
	b string
}

type compatTupleWithUUID struct {
	A int
	B string
	C compat.UUID
}

func (v compatTupleWithUUID) legacyValue() interface{} {
	return legacyTupleWithUUID{v.A, v.B, legacy.UUID(v.C)}
}

type legacyTupleWithUUID struct {
	A int
	B string
	C legacy.UUID
}

func tupleValues() []interface{} {
	return []interface{}{
		nil, compat.UnsetValue, 5, map[string]int{},
		[]interface{}{1, "a"}, []interface{}{nil, "a"}, []interface{}{1}, []interface{}{(*int)(nil), "a"},
		[]interface{}{"7", "a"}, []interface{}{1, 2},
		tuplePair{1, "b"}, &tuplePair{2, "c"}, tuplePtrPair{nil, &word}, tupleWide{1, "x"},
		struct{ A int }{1}, tupleUnexported{1, "x"},
		[2]interface{}{1, "x"}, []string{"1", "x"}, []string{"1"}, [2]string{"x", "y"},
		compatTupleWithUUID{1, "u", sampleUUID}, []interface{}{3, "t", sampleUUID},
		compatMarshaler{"tuple"},
	}
}

func TestMarshalTuples(t *testing.T) {
	infos := []compat.TypeInfo{
		tuple(native(compat.TypeInt), native(compat.TypeText)),
		tuple(native(compat.TypeInt), native(compat.TypeText), native(compat.TypeUUID)),
		tuple(),
	}
	for _, info := range infos {
		for _, v := range tupleValues() {
			c, l := marshalBoth(info, v)
			checkMarshal(t, fmt.Sprintf("Marshal(%s, %s)", info, describeValue(v)), c, l)
		}
	}
}

func udt(proto byte, fields ...compat.UDTField) compat.UDTTypeInfo {
	return compat.UDTTypeInfo{NativeType: compat.NewNativeType(proto, compat.TypeUDT, ""), KeySpace: "ks", Name: "person", Elements: fields}
}

func personUDT() compat.UDTTypeInfo {
	return udt(4,
		compat.UDTField{Name: "name", Type: native(compat.TypeText)},
		compat.UDTField{Name: "age", Type: native(compat.TypeInt)},
		compat.UDTField{Name: "tags", Type: list(4, compat.TypeSet, native(compat.TypeText))},
	)
}

type personTagged struct {
	Name string   `cql:"name"`
	Age  int      `cql:"age"`
	Tags []string `cql:"tags"`
}

type personByName struct {
	name string
	age  int
}

type personExact struct {
	Name string `cql:"name"`
	age  int
}

type personBase struct {
	Name string `cql:"name"`
}

type personEmbedded struct {
	personBase
	Age int `cql:"age"`
}

type personPtrEmbedded struct {
	*personBase
	Age int `cql:"age"`
}

type personWrongType struct {
	Name int `cql:"name"`
}

// compatUDTMarshaler and legacyUDTMarshaler marshal each field as its name.
type compatUDTMarshaler struct{ Prefix string }

func (m compatUDTMarshaler) MarshalUDT(name string, info compat.TypeInfo) ([]byte, error) {
	if name == "tags" {
		return nil, nil
	}
	return compat.Marshal(info, m.Prefix+name)
}

func (m compatUDTMarshaler) legacyValue() interface{} { return legacyUDTMarshaler(m) }

type legacyUDTMarshaler struct{ Prefix string }

func (m legacyUDTMarshaler) MarshalUDT(name string, info legacy.TypeInfo) ([]byte, error) {
	if name == "tags" {
		return nil, nil
	}
	return legacy.Marshal(info, m.Prefix+name)
}

func udtValues() []interface{} {
	return []interface{}{
		nil, compat.UnsetValue, 5, "x",
		map[string]interface{}{"name": "ann", "age": 42, "tags": []string{"a"}},
		map[string]interface{}{"name": "bob"}, map[string]interface{}{}, map[string]interface{}(nil),
		map[string]interface{}{"age": "not a number"}, map[string]string{"name": "x"},
		personTagged{"cy", 7, nil}, &personTagged{"di", 8, []string{"t"}}, personByName{"e", 1},
		personExact{"f", 2}, personEmbedded{personBase{"g"}, 3}, personPtrEmbedded{nil, 4},
		personPtrEmbedded{&personBase{"h"}, 5}, personWrongType{1}, struct{}{},
		compatUDTMarshaler{"p-"}, compatMarshaler{"udt"},
	}
}

func TestMarshalUDTs(t *testing.T) {
	infos := []compat.TypeInfo{
		personUDT(),
		udt(4),
		compat.NewNativeType(2, compat.TypeCustom, "org.apache.cassandra.db.marshal.UserType(ks,706572736f6e)"),
	}
	for _, info := range infos {
		for _, v := range udtValues() {
			c, l := marshalBoth(info, v)
			checkMarshal(t, fmt.Sprintf("Marshal(%s, %s)", info, describeValue(v)), c, l)
		}
	}
}
