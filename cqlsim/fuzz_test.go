package cqlsim_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// FuzzServerFrames sends arbitrary bytes to a cqlsim node as the whole client side of a
// connection, then half-closes it. Whatever the input, the server must answer only with
// well-formed response frames and close the connection once the input ends: a panic, a hang
// (no close within the deadline) or a garbled frame fails the target. The seed corpus in
// testdata/fuzz/FuzzServerFrames holds handshakes followed by each request type, compressed
// frames, v5 segments (plain and LZ4) and unsupported versions.
//
//	go test ./cqlsim -run '^$' -fuzz FuzzServerFrames -fuzztime 20s
func FuzzServerFrames(f *testing.F) {
	// v5 enabled: the server then also reads v5 segments after a v5 handshake (v3/v4 as usual).
	c := cqlsim.StartT(f, cqlsim.Options{MaxFrameLength: 1 << 20, MaxProtocolVersion: 5})
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

// checkResponseFrames checks that b is a sequence of complete response frames. After a v5 READY
// or AUTHENTICATE the rest must be v5 segments (plain or LZ4) whose payloads are such frames.
func checkResponseFrames(t *testing.T, b []byte) {
	t.Helper()
	rest := checkFrames(t, b, true)
	if len(rest) == 0 {
		return
	}
	var errs []error
	for _, codec := range []segment.Codec{segment.NewCodec(), segment.NewCodecWithCompression(lz4.Compressor{})} {
		payload, err := segmentPayloads(codec, rest)
		if err == nil {
			if left := checkFrames(t, payload, false); len(left) != 0 {
				t.Fatalf("%d bytes after the last frame in segments", len(left))
			}
			return
		}
		errs = append(errs, err)
	}
	t.Fatalf("output after the v5 handshake is not segments: %v", errs)
}

// segmentPayloads decodes all of b as segments and concatenates their payloads.
func segmentPayloads(codec segment.Codec, b []byte) ([]byte, error) {
	r := bytes.NewReader(b)
	var out []byte
	for r.Len() > 0 {
		s, err := codec.DecodeSegment(r)
		if err != nil {
			return nil, err
		}
		out = append(out, s.Payload.UncompressedData...)
	}
	return out, nil
}

// checkFrames walks complete response frames in b. With legacy set it stops after a v5 READY or
// AUTHENTICATE and returns the bytes after it (the segments); otherwise it returns nil.
func checkFrames(t *testing.T, b []byte, legacy bool) []byte {
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
		if legacy && version == 5 && (op == 0x02 || op == 0x03) {
			return b
		}
	}
	return nil
}
