package cqlsim_test

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// queryBody returns the body of a QUERY of exactly size bytes at protocol version v: a SELECT
// of system.local padded with a string literal, at consistency ONE, without values.
func queryBody(t *testing.T, v byte, size int) []byte {
	t.Helper()
	const prefix, suffix = "SELECT key FROM system.local WHERE key = '", "' ALLOW FILTERING"
	flags := 1
	if v >= 5 {
		flags = 4
	}
	pad := size - (4 + len(prefix) + len(suffix) + 2 + flags)
	if pad < 0 {
		t.Fatalf("a QUERY body of %d bytes is too small", size)
	}
	b := longString(prefix + strings.Repeat("k", pad) + suffix)
	b = binary.BigEndian.AppendUint16(b, uint16(primitive.ConsistencyLevelOne))
	return append(b, make([]byte, flags)...)
}

// noise returns n random bytes, which no compressor shrinks.
func noise(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// expectTooBig checks that f is Cassandra 5.0's answer to a request over the frame limit.
func expectTooBig(t *testing.T, f *frame.Frame, stream int16, msg string) {
	t.Helper()
	inv, ok := f.Body.Message.(*message.Invalid)
	if !ok || f.Header.StreamId != stream || inv.ErrorMessage != msg {
		t.Fatalf("got %v on stream %d, want INVALID %q on stream %d", f.Body.Message, f.Header.StreamId, msg, stream)
	}
}

// TestOversizedFrameRefusedLikeCassandra: a request frame over Options.MaxFrameLength gets
// the answer Cassandra 5.0.9 gives (checked with a raw socket on a node): an INVALID error on
// the request's stream, "Request is too big: length N exceeds maximum allowed length M." in
// the legacy framing (N the whole frame as sent, header included, compressed or not), "CQL
// Message of size N bytes exceeds allowed maximum of M bytes" for a v5 frame in segments (N
// its body), and the connection goes on: a request written with it, in the same write, is
// answered. cqlsim answered with a PROTOCOL_ERROR and closed the connection.
func TestOversizedFrameRefusedLikeCassandra(t *testing.T) {
	const limit = 200 << 10
	c := cqlsim.StartT(t, cqlsim.Options{MaxFrameLength: limit, MaxProtocolVersion: 5})
	tooBig := func(total int) string {
		return fmt.Sprintf("Request is too big: length %d exceeds maximum allowed length %d.", total, limit)
	}
	// sendPair writes frame big on stream 5 and an OPTIONS on stream 7 in one write, and
	// checks the answers to both.
	sendPair := func(t *testing.T, rc *rawConn, v byte, big []byte, want string) {
		t.Helper()
		rc.write(append(big, rawFrame(v, 0, 7, 0x05, nil)...))
		expectTooBig(t, rc.read(), 5, want)
		if f := rc.read(); f.Header.StreamId != 7 || f.Header.OpCode != primitive.OpCodeSupported {
			t.Fatalf("the OPTIONS written after the frame got %v on stream %d", f.Body.Message, f.Header.StreamId)
		}
	}
	for _, v := range []byte{3, 4} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.send(primitive.ProtocolVersion(v), 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
			if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady {
				t.Fatalf("STARTUP: %v", f.Body.Message)
			}
			// The limit counts the 9-byte header: a frame of exactly limit bytes runs.
			rc.write(rawFrame(v, 0, 5, 0x07, queryBody(t, v, limit-9)))
			if f := rc.read(); f.Header.StreamId != 5 || f.Header.OpCode != primitive.OpCodeResult {
				t.Fatalf("a frame of %d bytes got %v", limit, f.Body.Message)
			}
			sendPair(t, rc, v, rawFrame(v, 0, 5, 0x07, queryBody(t, v, limit-8)), tooBig(limit+1))
			sendPair(t, rc, v, rawFrame(v, 0, 5, 0x07, noise(3*limit)), tooBig(3*limit+9))
		})
	}
	for _, tc := range []struct {
		name string
		comp compression.Compressor
	}{{"lz4", lz4.Compressor{}}, {"snappy", snappy.Compressor{}}} {
		t.Run("v4 "+tc.name, func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.startup(map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": tc.name})
			// The compressed size counts: random bytes over the limit are refused unread...
			sendPair(t, rc, 4, rawFrame(4, 0x01, 5, 0x07, noise(limit)), tooBig(limit+9))
			// ...and a body compressed under the limit runs, however far it inflates.
			f := frame.NewFrame(primitive.ProtocolVersion4, 6, &message.Query{
				Query:   "SELECT key FROM system.local WHERE key = '" + strings.Repeat("k", 2*limit) + "' ALLOW FILTERING",
				Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne},
			})
			f.Header.Flags = f.Header.Flags.Add(primitive.HeaderFlagCompressed)
			var buf bytes.Buffer
			if err := frame.NewCodecWithCompression(tc.comp).EncodeFrame(f, &buf); err != nil {
				t.Fatal(err)
			}
			if buf.Len() >= limit {
				t.Fatalf("the compressed frame has %d bytes, not under the limit", buf.Len())
			}
			rc.write(buf.Bytes())
			if f := rc.read(); f.Header.StreamId != 6 || f.Header.OpCode != primitive.OpCodeResult {
				t.Fatalf("a compressed frame inflating to %d bytes got %v", 2*limit, f.Body.Message)
			}
		})
	}
	for _, comp := range []string{"", "lz4"} {
		t.Run("v5 segments "+comp, func(t *testing.T) {
			v5 := handshakeV5(t, c.Addrs()[0], comp)
			// segments wraps frames as a v5 client does: a frame larger than a segment alone
			// in segments that are not self-contained, the others in a self-contained one.
			segments := func(frames ...[]byte) []byte {
				var out bytes.Buffer
				for _, f := range frames {
					self := len(f) <= segment.MaxPayloadLength
					for len(f) > 0 {
						n := min(len(f), segment.MaxPayloadLength)
						if err := v5.codec.EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: self}, Payload: &segment.Payload{UncompressedData: f[:n]}}, &out); err != nil {
							t.Fatal(err)
						}
						f = f[n:]
					}
				}
				return out.Bytes()
			}
			options := rawFrame(5, 0, 7, 0x05, nil)
			// A v5 frame in segments is measured by its body: limit bytes run.
			// bothAnswers reads the answers to stream 5 and to the OPTIONS on stream 7, in
			// whichever order they come (a statement runs apart from the reader).
			bothAnswers := func() *frame.Frame {
				t.Helper()
				var five *frame.Frame
				for range 2 {
					switch f := v5.readFrame(); {
					case f.Header.StreamId == 5 && five == nil:
						five = f
					case f.Header.StreamId != 7 || f.Header.OpCode != primitive.OpCodeSupported:
						t.Fatalf("got %v on stream %d, want SUPPORTED on stream 7", f.Body.Message, f.Header.StreamId)
					}
				}
				if five == nil {
					t.Fatal("no answer on stream 5")
				}
				return five
			}
			// A v5 frame in segments is measured by its body: limit bytes run.
			v5.write(segments(rawFrame(5, 0, 5, 0x07, queryBody(t, 5, limit)), options))
			if f := bothAnswers(); f.Header.OpCode != primitive.OpCodeResult {
				t.Fatalf("a body of %d bytes got %v", limit, f.Body.Message)
			}
			for _, size := range []int{limit + 1, 3 * limit} {
				v5.write(segments(rawFrame(5, 0, 5, 0x07, queryBody(t, 5, size)), options))
				expectTooBig(t, bothAnswers(), 5, fmt.Sprintf("CQL Message of size %d bytes exceeds allowed maximum of %d bytes", size, limit))
			}
		})
	}
}
