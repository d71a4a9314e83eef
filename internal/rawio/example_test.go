package rawio_test

import (
	"fmt"
	"io"
	"net"

	"github.com/cqlbridge/cqlbridge/internal/rawio"
)

// Example reads a peer's message through raw system calls where the platform allows, and
// through the net.Conn elsewhere.
func Example() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write([]byte("hello"))
		c.Close()
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	defer nc.Close()
	var r io.Reader = nc
	if raw := rawio.New(nc); raw != nil {
		r = raw
	}
	msg, err := io.ReadAll(r)
	fmt.Printf("%s %v\n", msg, err)
	// Output: hello <nil>
}
