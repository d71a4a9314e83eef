package wire_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// Decode a QUERY frame: the header first, then the body it delimits.
func Example() {
	frame := []byte{
		0x04, 0x00, 0x00, 0x05, 0x07, 0x00, 0x00, 0x00, 0x0f, // v4 request, stream 5, QUERY, 15 bytes
		0x00, 0x00, 0x00, 0x08, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', // [long string]
		0x00, 0x01, // consistency ONE
		0x00, // no flags
	}
	h, err := wire.ParseHeader(frame)
	if err != nil {
		fmt.Println(err)
		return
	}
	req, err := wire.DecodeRequest(h, frame[wire.HeaderLen(h.Version):])
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s on stream %d: %q at consistency %d\n", wire.OpcodeName(h.Opcode), h.Stream, req.Query.Query, req.Query.Params.Consistency)
	// Output:
	// QUERY on stream 5: "SELECT 1" at consistency 1
}
