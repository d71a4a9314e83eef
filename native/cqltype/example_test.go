package cqltype_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// Encode bound values straight into a frame buffer, then decode a body back.
func Example() {
	userType := cqltype.NewMap(
		cqltype.New(cqltype.KindVarchar),
		cqltype.NewTuple(cqltype.New(cqltype.KindInt), cqltype.New(cqltype.KindTimestamp)),
	)
	fmt.Println(userType)

	var buf []byte
	buf, err := cqltype.Append(buf, userType, map[string][]any{
		"login": {42, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)},
	})
	if err != nil {
		panic(err)
	}
	buf = cqltype.AppendNull(buf)
	buf = cqltype.AppendInt32(buf, 7)
	fmt.Printf("%d bytes, the first value has %d\n", len(buf), binary.BigEndian.Uint32(buf))

	type event struct {
		Count int
		At    time.Time
	}
	var got map[string]event
	if err := cqltype.Decode(userType, buf[4:4+binary.BigEndian.Uint32(buf)], &got); err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", got["login"])

	// A value that does not fit fails with the path to it.
	_, err = cqltype.Append(nil, userType, map[string][]any{"x": {int64(1) << 40, nil}})
	fmt.Println(err)
	// Output:
	// map<text, frozen<tuple<int, timestamp>>>
	// 53 bytes, the first value has 37
	// {Count:42 At:2024-05-01 12:00:00 +0000 UTC}
	// map<text, frozen<tuple<int, timestamp>>>: value["x"].0: cannot encode int64 1099511627776 as int: out of range
}

// Decode into *any to get each type's natural Go representation.
func ExampleDecode_any() {
	t := cqltype.NewList(cqltype.New(cqltype.KindSmallint))
	body, err := cqltype.Marshal(t, []int{1, -2})
	if err != nil {
		panic(err)
	}
	var v any
	if err := cqltype.Decode(t, body, &v); err != nil {
		panic(err)
	}
	fmt.Printf("%T %v\n", v, v)
	// Output: []interface {} [1 -2]
}

// Vectors use the layout of Cassandra 5: float elements packed.
func ExampleNewVector() {
	t := cqltype.NewVector(cqltype.New(cqltype.KindFloat), 3)
	body, err := cqltype.Marshal(t, []float32{1, 0.5, -2})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %x\n", t, body)
	fmt.Println(t.Class())
	// Output:
	// vector<float, 3> 3f8000003f000000c0000000
	// org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)
}

// ParseOption reads the type descriptions of result metadata.
func ExampleParseOption() {
	// list<frozen<set<uuid>>> as the server sends it.
	t, n, err := cqltype.ParseOption([]byte{0x00, 0x20, 0x00, 0x22, 0x00, 0x0C})
	if err != nil {
		panic(err)
	}
	fmt.Println(t, n)
	// Output: list<frozen<set<uuid>>> 6
}

func ExampleTimeUUIDAt() {
	at := time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC)
	u := cqltype.TimeUUIDAt(at, 0x33C8, [6]byte{0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46})
	fmt.Println(u, u.Time())
	// Output: c232ab00-9414-11ec-b3c8-9f6bdeced846 2022-02-22 19:22:22 +0000 UTC
}
