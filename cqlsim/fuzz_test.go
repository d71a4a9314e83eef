package cqlsim_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// FuzzServerFrames sends arbitrary bytes to a cqlsim node as the whole client side of a
// connection, then half-closes it. Whatever the input, the server must answer only with
// well-formed response frames and close the connection once the input ends: a panic, a hang
// (no close within the deadline) or a garbled frame fails the target. The seed corpus in
// testdata/fuzz/FuzzServerFrames holds handshakes followed by each request type, compressed
// frames and unsupported versions.
//
//	go test ./cqlsim -run '^$' -fuzz FuzzServerFrames -fuzztime 20s
func FuzzServerFrames(f *testing.F) {
	c := cqlsim.StartT(f, cqlsim.Options{MaxFrameLength: 1 << 20})
	addr := c.Addrs()[0]
	f.Fuzz(func(t *testing.T, data []byte) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer nc.Close()
		tc := nc.(*net.TCPConn)
		writeErr := make(chan error, 1)
		go func() {
			_, err := tc.Write(data)
			if err == nil {
				err = tc.CloseWrite()
			}
			writeErr <- err
		}()
		_ = nc.SetReadDeadline(time.Now().Add(20 * time.Second))
		out, err := io.ReadAll(nc)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("server did not close the connection within 20s (input %d bytes, %d bytes answered)", len(data), len(out))
		}
		<-writeErr // the server may close before reading everything; a write error is fine
		if err == nil {
			checkResponseFrames(t, out)
		}
	})
}

// checkResponseFrames checks that b is a sequence of complete response frames.
func checkResponseFrames(t *testing.T, b []byte) {
	t.Helper()
	for len(b) > 0 {
		if b[0]&0x80 == 0 {
			t.Fatalf("frame without the response bit: % x", b[:min(len(b), 9)])
		}
		version := b[0] & 0x7f
		hl, opAt := 9, 4
		if version < 3 {
			hl, opAt = 8, 3
		}
		if len(b) < hl {
			t.Fatalf("truncated response header: % x", b)
		}
		op := b[opAt]
		if op != 0x00 && op != 0x02 && op != 0x03 && op != 0x06 && op != 0x08 && op != 0x0C && op != 0x0E && op != 0x10 {
			t.Fatalf("response with request opcode 0x%02x", op)
		}
		n := int(binary.BigEndian.Uint32(b[hl-4 : hl]))
		if len(b) < hl+n {
			t.Fatalf("truncated response body: header says %d bytes, %d remain", n, len(b)-hl)
		}
		b = b[hl+n:]
	}
}
