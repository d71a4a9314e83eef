package proto_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Encode a QUERY request frame with one bound int value and print its bytes.
func ExampleAppendFrame() {
	q := &proto.Query{
		Query: "SELECT v FROM t WHERE k = ?",
		Params: proto.QueryParams{
			Consistency: proto.LocalQuorum,
			Values:      proto.Values{{0, 0, 0, 42}},
		},
	}
	frame, err := proto.AppendFrame(nil, proto.Version4, 1, q, nil)
	if err != nil {
		panic(err)
	}
	h, _ := proto.ParseHeader(frame, 0)
	fmt.Printf("%s stream %d, %d-byte body\n", h.Opcode, h.Stream, h.Length)
	fmt.Printf("header % x\n", frame[:proto.HeaderSize])
	fmt.Printf("params % x\n", frame[proto.HeaderSize+4+len(q.Query):])
	// Output:
	// QUERY stream 1, 44-byte body
	// header 04 00 00 01 07 00 00 00 2c
	// params 00 06 01 00 01 00 00 00 04 00 00 00 2a
}

// Decode a RESULT frame in place and iterate over its rows without copying.
func ExampleRowsResult() {
	// A rows result without metadata: 2 columns, 2 rows.
	body := proto.AppendInt(nil, int32(proto.ResultRows))
	body = proto.AppendInt(body, int32(proto.MetaNoMetadata))
	body = proto.AppendInt(body, 2) // columns
	body = proto.AppendInt(body, 2) // rows
	for _, cell := range [][]byte{[]byte("a"), []byte("x"), []byte("b"), nil} {
		body = proto.AppendBytes(body, cell)
	}
	frame := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Opcode: proto.OpResult, Length: len(body)})
	frame = append(frame, body...)

	h, err := proto.ParseHeader(frame, 0)
	if err != nil {
		panic(err)
	}
	resp := proto.AcquireResponse()
	defer resp.Release()
	if err := resp.Decode(h, frame[proto.HeaderSize:], nil, nil); err != nil {
		panic(err)
	}
	rows := resp.Msg.(*proto.RowsResult)
	for rows.Next() {
		fmt.Printf("%s=%q (null: %t)\n", rows.Cell(0), rows.Cell(1), rows.Cell(1) == nil)
	}
	// Output:
	// a="x" (null: false)
	// b="" (null: true)
}
