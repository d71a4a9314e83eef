package difftest

//lint:file-ignore U1000 unexported fields are cases: the unmarshallers must leave them alone

import (
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	compat "github.com/cqlbridge/cqlbridge/compat/gocql"
	legacy "github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

// dataSamples are encodings of every width, valid and malformed.
func dataSamples() [][]byte {
	return [][]byte{
		nil, {},
		{0}, {1}, {0x7f}, {0x80}, {0xff}, {0xEE},
		{0, 1}, {0x80, 0}, {0xff, 0xfe}, {1, 2, 3},
		{0, 0, 1, 0}, {0x80, 0, 0, 0}, {0x7f, 0xff, 0xff, 0xff}, {0xff, 0xff, 0xff, 0xfe}, {0, 0, 0, 2, 0x30, 0x39},
		{0, 0, 0, 0, 0, 0, 1, 0}, {0x80, 0, 0, 0, 0, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		{0, 0, 0, 1, 0x88, 0x7e, 0x4f, 0x3b}, {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {1, 0, 0, 0, 0, 0, 0, 0, 0},
		sampleUUID[:], sampleUUIDv4[:], append(sampleUUID[:], 0),
		{0x02, 0x03, 0x06}, {0xc0, 0x81, 0x00, 0x01}, {0xff}, {0x02, 0xf0},
		[]byte("hello"), net.IPv4(10, 0, 0, 1).To4(), net.ParseIP("2001:db8::1"),
	}
}

// destinations returns constructors of every destination gocql's Unmarshal
// looks at.
func destinations() []func() interface{} {
	return []func() interface{}{
		func() interface{} { return new(string) }, func() interface{} { return new([]byte) },
		func() interface{} { return new(myString) }, func() interface{} { return new(myBytes) },
		func() interface{} { return new(bool) }, func() interface{} { return new(myBool) },
		func() interface{} { return new(int) }, func() interface{} { return new(int8) },
		func() interface{} { return new(int16) }, func() interface{} { return new(int32) },
		func() interface{} { return new(int64) }, func() interface{} { return new(uint) },
		func() interface{} { return new(uint8) }, func() interface{} { return new(uint16) },
		func() interface{} { return new(uint32) }, func() interface{} { return new(uint64) },
		func() interface{} { return new(myInt) }, func() interface{} { return new(myInt8) },
		func() interface{} { return new(myInt16) }, func() interface{} { return new(myInt32) },
		func() interface{} { return new(myUint) }, func() interface{} { return new(myUint8) },
		func() interface{} { return new(myUint16) }, func() interface{} { return new(myUint32) },
		func() interface{} { return new(myUint64) }, func() interface{} { return new(myInt64) },
		func() interface{} { return new(float32) }, func() interface{} { return new(float64) },
		func() interface{} { return new(myFloat32) }, func() interface{} { return new(myFloat64) },
		func() interface{} { return new(big.Int) }, func() interface{} { return new(inf.Dec) },
		func() interface{} { return new(time.Time) }, func() interface{} { return new(time.Duration) },
		func() interface{} { return new(compat.Duration) }, func() interface{} { return new(compat.UUID) },
		func() interface{} { return new([16]byte) }, func() interface{} { return new(net.IP) },
		func() interface{} { return new(*int) }, func() interface{} { return new(*string) },
		func() interface{} { return new(*compat.UUID) }, func() interface{} { return new(*time.Time) },
		func() interface{} { return new(*inf.Dec) }, func() interface{} { return new(*net.IP) },
		func() interface{} { return new(interface{}) }, func() interface{} { return 0 },
		func() interface{} { return (*int)(nil) }, func() interface{} { return (*string)(nil) },
		func() interface{} { return new([]int) }, func() interface{} { return new(map[string]int) },
		func() interface{} { return new(compatUnmarshaler) }, func() interface{} { return new(*compatUnmarshaler) },
		func() interface{} { return new(struct{ A int }) },
	}
}

func TestUnmarshalNativeTypes(t *testing.T) {
	n := 0
	for _, info := range nativeInfos() {
		for _, data := range dataSamples() {
			for _, newDest := range destinations() {
				c, l, cv, lv := unmarshalBoth(info, data, newDest)
				checkUnmarshal(t, fmt.Sprintf("Unmarshal(%s v%d, %x, %T)", info, info.Version(), data, newDest()), c, l, cv, lv)
				n++
			}
		}
	}
	t.Logf("%d native Unmarshal cases compared", n)
}

// mustMarshal encodes with compat (whose bytes TestMarshal* compare with
// gocql's) to build collection, tuple and UDT data.
func mustMarshal(t *testing.T, info compat.TypeInfo, v interface{}) []byte {
	t.Helper()
	b, err := compat.Marshal(info, v)
	if err != nil {
		t.Fatalf("Marshal(%s, %#v): %v", info, v, err)
	}
	return b
}

func TestUnmarshalCollections(t *testing.T) {
	listInt := list(4, compat.TypeList, native(compat.TypeInt))
	setText := list(4, compat.TypeSet, native(compat.TypeText))
	listUUID := list(4, compat.TypeList, native(compat.TypeUUID))
	oldList := list(2, compat.TypeList, compat.NewNativeType(2, compat.TypeInt, ""))
	textInt := mapOf(4, native(compat.TypeText), native(compat.TypeInt))
	oldMap := mapOf(2, compat.NewNativeType(2, compat.TypeInt, ""), compat.NewNativeType(2, compat.TypeText, ""))
	nested := mapOf(4, native(compat.TypeInt), list(4, compat.TypeList, native(compat.TypeText)))

	data := map[string][]byte{
		"null":           nil,
		"empty":          {},
		"[]":             mustMarshal(t, listInt, []int{}),
		"[1 2]":          mustMarshal(t, listInt, []int{1, 2}),
		"[1 null]":       mustMarshal(t, listInt, []*int{fiveP, nil}),
		"[a b]":          mustMarshal(t, setText, []string{"a", "b"}),
		"[uuid]":         mustMarshal(t, listUUID, []compat.UUID{sampleUUID}),
		"v2 [1 2]":       mustMarshal(t, oldList, []int{1, 2}),
		"{k:1}":          mustMarshal(t, textInt, map[string]int{"k": 1}),
		"{k:null}":       mustMarshal(t, textInt, map[string]*int{"k": nil}),
		"v2 {1:x}":       mustMarshal(t, oldMap, map[int]string{1: "x"}),
		"{1:[a]}":        mustMarshal(t, nested, map[int][]string{1: {"a"}}),
		"negative count": {0xff, 0xff, 0xff, 0xfe},
		// (A count far beyond the data is not compared: gocql allocates
		// it before failing, which exhausts memory. compat's own tests
		// check that it fails without allocating.)
		"count > items":  {0, 0, 0, 3, 0, 0, 0, 1, 1},
		"truncated item": {0, 0, 0, 1, 0, 0, 0, 4, 1},
		"missing item":   {0, 0, 0, 2, 0, 0, 0, 0},
		"short count":    {0, 0},
	}
	infos := []compat.TypeInfo{listInt, setText, listUUID, oldList, textInt, oldMap, nested, native(compat.TypeList)}
	dests := []func() interface{}{
		func() interface{} { return new([]int) }, func() interface{} { return new([2]int) },
		func() interface{} { return new([3]int) }, func() interface{} { return new([]string) },
		func() interface{} { return new([]*int) }, func() interface{} { return new([]interface{}) },
		func() interface{} { return new([]compat.UUID) }, func() interface{} { return new([]string) },
		func() interface{} { return new(map[string]int) }, func() interface{} { return new(map[int]string) },
		func() interface{} { return new(map[string]*int) }, func() interface{} { return new(map[int][]string) },
		func() interface{} { return new(map[string]struct{}) }, func() interface{} { return new(*[]int) },
		func() interface{} { return []int{} }, func() interface{} { return new(string) },
		func() interface{} { return &[]int{7, 8, 9} },
	}
	for _, info := range infos {
		for name, d := range data {
			for _, newDest := range dests {
				c, l, cv, lv := unmarshalBoth(info, d, newDest)
				checkUnmarshal(t, fmt.Sprintf("Unmarshal(%s v%d, %s, %T)", info, info.Version(), name, newDest()), c, l, cv, lv)
			}
		}
	}
}

type tupleOut struct {
	A int
	B string
}

type tupleOutPtr struct {
	A *int
	B *string
}

type tupleOutWrong struct {
	A int32
	B string
}

type tupleOutUnexported struct {
	a int
	b string
}

func TestUnmarshalTuples(t *testing.T) {
	pair := tuple(native(compat.TypeInt), native(compat.TypeText))
	withCustom := tuple(native(compat.TypeInt), compat.NewNativeType(4, compat.TypeCustom, "x.Y"))
	data := map[string][]byte{
		"null":         nil,
		"(1,a)":        mustMarshal(t, pair, []interface{}{1, "a"}),
		"(null,a)":     mustMarshal(t, pair, []interface{}{nil, "a"}),
		"(1,null)":     mustMarshal(t, pair, []interface{}{1, nil}),
		"(1)":          {0, 0, 0, 4, 0, 0, 0, 1},
		"truncated":    {0, 0, 0, 4, 0, 0},
		"overlong len": {0, 0, 0, 9, 0, 0, 0, 1},
		"three bytes":  {0, 0, 0},
	}
	dests := []func() interface{}{
		func() interface{} { return []interface{}{new(int), new(string)} },
		func() interface{} { return []interface{}{new(*int), new(*string)} },
		func() interface{} { return []interface{}{new(int)} },
		func() interface{} { return []interface{}{new(string), new(string)} },
		func() interface{} { return new(tupleOut) }, func() interface{} { return new(tupleOutPtr) },
		func() interface{} { return new(tupleOutWrong) }, func() interface{} { return new(tupleOutUnexported) },
		func() interface{} { return new(struct{ A int }) }, func() interface{} { return new([]interface{}) },
		func() interface{} { return new([2]interface{}) }, func() interface{} { return new([3]interface{}) },
		func() interface{} { return new([]string) }, func() interface{} { return new(*tupleOut) },
		func() interface{} { return tupleOut{} }, func() interface{} { return new(int) },
		func() interface{} { return new(compatUnmarshaler) },
	}
	for _, info := range []compat.TypeInfo{pair, withCustom, native(compat.TypeTuple)} {
		for name, d := range data {
			for _, newDest := range dests {
				c, l, cv, lv := unmarshalBoth(info, d, newDest)
				checkUnmarshal(t, fmt.Sprintf("Unmarshal(%s, %s, %T)", info, name, newDest()), c, l, cv, lv)
			}
		}
	}
}

// compatUDTUnmarshaler and legacyUDTUnmarshaler record the fields they get.
type compatUDTUnmarshaler struct{ Fields []string }

func (u *compatUDTUnmarshaler) UnmarshalUDT(name string, info compat.TypeInfo, data []byte) error {
	u.Fields = append(u.Fields, fmt.Sprintf("%s:%s:%x", name, info.Type(), data))
	return nil
}

func (u compatUDTUnmarshaler) legacyValue() interface{} { return legacyUDTUnmarshaler(u) }

type legacyUDTUnmarshaler struct{ Fields []string }

func (u *legacyUDTUnmarshaler) UnmarshalUDT(name string, info legacy.TypeInfo, data []byte) error {
	u.Fields = append(u.Fields, fmt.Sprintf("%s:%s:%x", name, info.Type(), data))
	return nil
}

type personOut struct {
	Name *string `cql:"name"`
	Age  int     `cql:"age"`
	Tags []string
	tags []string
}

type personOutByName struct {
	name string
	Age  int `cql:"age"`
}

type personOutPtrEmbedded struct {
	*personBase
	Age int `cql:"age"`
}

func TestUnmarshalUDTs(t *testing.T) {
	info := personUDT()
	data := map[string][]byte{
		"null":      nil,
		"empty":     {},
		"full":      mustMarshal(t, info, map[string]interface{}{"name": "ann", "age": 42, "tags": []string{"a"}}),
		"only name": mustMarshal(t, info, map[string]interface{}{"name": "bob"}),
		"prefix":    {0, 0, 0, 1, 'z'},
		"eof":       {0, 0, 0, 1, 'z', 0, 0},
		"overlong":  {0, 0, 0, 7, 'z'},
	}
	dests := []func() interface{}{
		func() interface{} { return new(map[string]interface{}) }, func() interface{} { return new(personTagged) },
		func() interface{} { return new(personOut) }, func() interface{} { return new(personOutByName) },
		func() interface{} { return new(personEmbedded) }, func() interface{} { return new(personOutPtrEmbedded) },
		func() interface{} { return new(personWrongType) }, func() interface{} { return new(*personTagged) },
		func() interface{} { return new(compatUDTUnmarshaler) }, func() interface{} { return new(compatUnmarshaler) },
		func() interface{} { return personTagged{} }, func() interface{} { return new(int) },
		func() interface{} { return new(map[string]string) },
	}
	custom := udt(4, compat.UDTField{Name: "c", Type: compat.NewNativeType(4, compat.TypeCustom, "x.Y")})
	for _, info := range []compat.TypeInfo{info, custom, native(compat.TypeUDT),
		compat.NewNativeType(2, compat.TypeCustom, "org.apache.cassandra.db.marshal.UserType(ks,61)")} {
		for name, d := range data {
			for _, newDest := range dests {
				c, l, cv, lv := unmarshalBoth(info, d, newDest)
				checkUnmarshal(t, fmt.Sprintf("Unmarshal(%s, %s, %T)", info, name, newDest()), c, l, cv, lv)
			}
		}
	}
}

// TestNestedUDTsAndTuples round-trips collections of user-defined types and
// tuples through both implementations.
func TestNestedUDTsAndTuples(t *testing.T) {
	people := list(4, compat.TypeList, personUDT())
	pairs := mapOf(4, native(compat.TypeText), tuple(native(compat.TypeInt), native(compat.TypeText)))
	cases := []struct {
		info  compat.TypeInfo
		value interface{}
		dests []func() interface{}
	}{
		{people, []personTagged{{"a", 1, []string{"x"}}, {"b", 2, nil}}, []func() interface{}{
			func() interface{} { return new([]personTagged) }, func() interface{} { return new([]map[string]interface{}) },
			func() interface{} { return new([]*personOut) }}},
		{people, []map[string]interface{}{{"name": "c"}, nil}, []func() interface{}{
			func() interface{} { return new([]personTagged) }, func() interface{} { return new([]map[string]interface{}) }}},
		{pairs, map[string]tuplePair{"k": {3, "v"}}, []func() interface{}{
			func() interface{} { return new(map[string]tuplePair) }, func() interface{} { return new(map[string][]interface{}) },
			func() interface{} { return new(map[string]tupleOutPtr) }}},
		{pairs, map[string][]interface{}{"k": {nil, "v"}}, []func() interface{}{
			func() interface{} { return new(map[string]tupleOutPtr) }, func() interface{} { return new(map[string]tuplePair) }}},
	}
	for _, tc := range cases {
		c, l := marshalBoth(tc.info, tc.value)
		name := fmt.Sprintf("Marshal(%s, %s)", tc.info, describeValue(tc.value))
		checkMarshal(t, name, c, l)
		if c.failed() {
			t.Errorf("%s: %v, want an encoding", name, c)
			continue
		}
		for _, newDest := range tc.dests {
			cr, lr, cv, lv := unmarshalBoth(tc.info, c.data, newDest)
			checkUnmarshal(t, fmt.Sprintf("Unmarshal(%s, %x, %T)", tc.info, c.data, newDest()), cr, lr, cv, lv)
		}
	}
}
