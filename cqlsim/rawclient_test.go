package cqlsim_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// rawConn is a bare TCP connection to cqlsim for protocol-level tests: it writes hand-made frames
// and decodes responses with go-cassandra-native-protocol's codec.
type rawConn struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
	// comp decompresses responses once startup negotiated compression (cqlsim then
	// compresses every response, as Cassandra does).
	comp compression.Compressor
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	return newRawConn(t, nc)
}

// newRawConn wraps a connection to cqlsim, which is closed when the test ends.
func newRawConn(t testing.TB, nc net.Conn) *rawConn {
	t.Cleanup(func() { _ = nc.Close() })
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// rawFrame builds a v3+ request frame (9-byte header) by hand.
func rawFrame(version byte, flags byte, stream int16, opcode byte, body []byte) []byte {
	b := []byte{version, flags, byte(uint16(stream) >> 8), byte(stream), opcode}
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

func (c *rawConn) write(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// send encodes a request message with the library codec.
func (c *rawConn) send(version primitive.ProtocolVersion, stream int16, msg message.Message) {
	c.t.Helper()
	var buf bytes.Buffer
	if err := frame.NewCodec().EncodeFrame(frame.NewFrame(version, stream, msg), &buf); err != nil {
		c.t.Fatalf("encode %v: %v", msg, err)
	}
	c.write(buf.Bytes())
}

// read decodes one response frame; it fails the test on timeout or decode error.
func (c *rawConn) read() *frame.Frame {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	codec := frame.NewCodec()
	if c.comp != nil {
		codec = frame.NewCodecWithCompression(c.comp)
	}
	f, err := codec.DecodeFrame(c.br)
	if err != nil {
		c.t.Fatalf("reading response: %v", err)
	}
	return f
}

// readRaw reads n raw bytes.
func (c *rawConn) readRaw(n int) []byte {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, n)
	if _, err := io.ReadFull(c.br, b); err != nil {
		c.t.Fatalf("reading %d bytes: %v", n, err)
	}
	return b
}

// expectClosed waits for the server to close the connection.
func (c *rawConn) expectClosed() {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c.br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatalf("expected the server to close the connection, got %v after %d bytes", err, len(b))
	}
	// EOF (ReadAll returns nil) and a reset both mean the server closed the connection.
}

// startup performs STARTUP (no auth) in v4 and expects READY.
func (c *rawConn) startup(opts map[string]string) {
	c.t.Helper()
	if opts == nil {
		opts = map[string]string{"CQL_VERSION": "3.0.0"}
	}
	c.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: opts})
	switch strings.ToLower(opts["COMPRESSION"]) {
	case "lz4":
		c.comp = lz4.Compressor{}
	case "snappy":
		c.comp = snappy.Compressor{}
	}
	if f := c.read(); f.Header.OpCode != primitive.OpCodeReady {
		c.t.Fatalf("STARTUP answered with %v, want READY", f.Body.Message)
	}
}
