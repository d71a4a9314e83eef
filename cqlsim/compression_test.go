package cqlsim_test

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// sendCompressed encodes msg with the COMPRESSED flag using comp.
func (c *rawConn) sendCompressed(comp compression.Compressor, stream int16, msg message.Message) {
	c.t.Helper()
	f := frame.NewFrame(primitive.ProtocolVersion4, stream, msg)
	f.Header.Flags = f.Header.Flags.Add(primitive.HeaderFlagCompressed)
	var buf bytes.Buffer
	if err := frame.NewCodecWithCompression(comp).EncodeFrame(f, &buf); err != nil {
		c.t.Fatalf("encode: %v", err)
	}
	c.write(buf.Bytes())
}

func TestCompressedRequests(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	for _, tc := range []struct {
		name string // as sent in STARTUP: drivers send lower case, case must not matter
		comp compression.Compressor
	}{{"lz4", lz4.Compressor{}}, {"LZ4", lz4.Compressor{}}, {"snappy", snappy.Compressor{}}, {"Snappy", snappy.Compressor{}}} {
		t.Run(tc.name, func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.startup(map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": tc.name})
			rc.sendCompressed(tc.comp, 2, &message.Options{})
			if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported || f.Header.StreamId != 2 {
				t.Fatalf("compressed OPTIONS answered with %v", f.Body.Message)
			}
			id := []byte("compressed-id")
			rc.sendCompressed(tc.comp, 3, &message.Execute{QueryId: id, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelQuorum}})
			if u, ok := rc.read().Body.Message.(*message.Unprepared); !ok || !slices.Equal(u.Id, id) {
				t.Fatalf("compressed EXECUTE: got %v, want UNPREPARED %q", u, id)
			}
			// A body that is not valid compressed data gets a protocol error, and the
			// connection keeps working.
			rc.write(rawFrame(4, 0x01, 4, 0x05, []byte{0, 0, 0, 9, 0xff, 0xff}))
			if _, ok := rc.read().Body.Message.(*message.ProtocolError); !ok {
				t.Fatal("corrupt compressed body was not refused")
			}
			rc.sendCompressed(tc.comp, 5, &message.Options{})
			if f := rc.read(); f.Header.StreamId != 5 || f.Header.OpCode != primitive.OpCodeSupported {
				t.Fatalf("after a corrupt frame: got %v", f.Body.Message)
			}
		})
	}
}

// TestCompressedWithoutNegotiation checks that, as on Cassandra 5.0, the COMPRESSED flag of a
// frame is ignored when the connection has no frame compression: before STARTUP, after a
// STARTUP without compression, and in v5 segments (compressed as a whole, never frame by
// frame). The body is read as it is.
func TestCompressedWithoutNegotiation(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5})
	rc := dialRaw(t, c.Addrs()[0])
	startup := []byte{0, 1, 0, 11, 'C', 'Q', 'L', '_', 'V', 'E', 'R', 'S', 'I', 'O', 'N', 0, 5, '3', '.', '0', '.', '0'}
	rc.write(rawFrame(4, 0x01, 1, 0x01, startup))
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady || f.Header.StreamId != 1 {
		t.Fatalf("STARTUP flagged COMPRESSED: %v, want READY", f.Body.Message)
	}
	rc.write(rawFrame(4, 0x01, 2, 0x05, nil))
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported || f.Header.StreamId != 2 {
		t.Fatalf("OPTIONS flagged COMPRESSED on an uncompressed connection: %v, want SUPPORTED", f.Body.Message)
	}
	for _, comp := range []string{"", "lz4"} {
		vc := handshakeV5(t, c.Addrs()[0], comp)
		vc.sendSegment(rawFrame(5, 0x01, 3, 0x05, nil))
		if f := vc.readFrame(); f.Header.OpCode != primitive.OpCodeSupported || f.Header.StreamId != 3 {
			t.Fatalf("v5 (compression %q): OPTIONS flagged COMPRESSED: %v, want SUPPORTED", comp, f.Body.Message)
		}
	}
}

func TestDecompressionBombRefused(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxFrameLength: 1 << 20})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "lz4"})
	body := binary.BigEndian.AppendUint32(nil, 1<<30) // claims 1 GiB uncompressed
	body = append(body, 0x00)
	rc.write(rawFrame(4, 0x01, 6, 0x07, body))
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeError || f.Header.StreamId != 6 {
		t.Fatalf("lz4 bomb answered with %v", f.Body.Message)
	}
}

// TestDecompressionBombUnderTheLimit sends compressed bodies of a few bytes that announce
// 200 MiB, below the default frame limit: the server must refuse them from their compressed
// size instead of allocating what they announce (it allocated 200 MiB per frame).
func TestDecompressionBombUnderTheLimit(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	const claimed = 200 << 20
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"lz4", append(binary.BigEndian.AppendUint32(nil, claimed), 0x00)},
		{"snappy", append(binary.AppendUvarint(nil, claimed), 0x00)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.startup(map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": tc.name})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rc.write(rawFrame(4, 0x01, 6, 0x05, tc.body))
			f := rc.read()
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > claimed/2 {
				t.Errorf("refusing the %s bomb allocated %d bytes", tc.name, n)
			}
			pe, ok := f.Body.Message.(*message.ProtocolError)
			if !ok || f.Header.StreamId != 6 || !strings.Contains(pe.ErrorMessage, "cannot inflate") {
				t.Fatalf("%s bomb answered with %v", tc.name, f.Body.Message)
			}
			// The connection keeps working.
			rc.write(rawFrame(4, 0x00, 7, 0x05, nil))
			if f := rc.read(); f.Header.StreamId != 7 || f.Header.OpCode != primitive.OpCodeSupported {
				t.Fatalf("after the bomb: got %v", f.Body.Message)
			}
		})
	}
}
