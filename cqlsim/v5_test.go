package cqlsim_test

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// v5Conn speaks protocol v5's segment framing after the handshake.
type v5Conn struct {
	*rawConn
	codec   segment.Codec
	pending []byte // payload bytes not yet consumed as frames
}

// handshakeV5 runs OPTIONS and STARTUP in the legacy framing and switches to segments.
func handshakeV5(t *testing.T, addr string, compression string) *v5Conn {
	t.Helper()
	rc := dialRaw(t, addr)
	rc.send(primitive.ProtocolVersion5, 1, &message.Options{})
	s, ok := rc.read().Body.Message.(*message.Supported)
	if !ok || !slices.Contains(s.Options["PROTOCOL_VERSIONS"], "5/v5") {
		t.Fatalf("SUPPORTED of a v5 server: %v", s)
	}
	opts := map[string]string{"CQL_VERSION": "3.0.0"}
	codec := segment.NewCodec()
	if compression != "" {
		opts["COMPRESSION"] = compression
		codec = segment.NewCodecWithCompression(lz4.Compressor{})
	}
	rc.send(primitive.ProtocolVersion5, 2, &message.Startup{Options: opts})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady || f.Header.Version != primitive.ProtocolVersion5 {
		t.Fatalf("v5 STARTUP answered with %v in v%d", f.Body.Message, f.Header.Version)
	}
	return &v5Conn{rawConn: rc, codec: codec}
}

// sendFrames encodes msgs as v5 frames, all in one segment when they fit, else each frame split
// over as many segments as it needs.
func (c *v5Conn) sendFrames(first int16, msgs ...message.Message) {
	c.t.Helper()
	var payload bytes.Buffer
	for i, m := range msgs {
		if err := frame.NewCodec().EncodeFrame(frame.NewFrame(primitive.ProtocolVersion5, first+int16(i), m), &payload); err != nil {
			c.t.Fatal(err)
		}
	}
	var out bytes.Buffer
	data := payload.Bytes()
	self := len(data) <= segment.MaxPayloadLength
	for len(data) > 0 {
		n := min(len(data), segment.MaxPayloadLength)
		if err := c.codec.EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: self}, Payload: &segment.Payload{UncompressedData: data[:n]}}, &out); err != nil {
			c.t.Fatal(err)
		}
		data = data[n:]
	}
	c.write(out.Bytes())
}

// Read makes v5Conn an io.Reader of the concatenated segment payloads.
func (c *v5Conn) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		s, err := c.codec.DecodeSegment(c.br)
		if err != nil {
			return 0, err
		}
		c.pending = s.Payload.UncompressedData
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *v5Conn) readFrame() *frame.Frame {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	f, err := frame.NewCodec().DecodeFrame(io.Reader(c))
	if err != nil {
		c.t.Fatalf("reading a v5 frame: %v", err)
	}
	return f
}

func (c *v5Conn) query(stream int16, q string, values ...*primitive.Value) *frame.Frame {
	c.t.Helper()
	c.sendFrames(stream, &message.Query{Query: q, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: values}})
	f := c.readFrame()
	if f.Header.StreamId != stream {
		c.t.Fatalf("%s: answer on stream %d, want %d", q, f.Header.StreamId, stream)
	}
	if e, ok := f.Body.Message.(message.Error); ok {
		c.t.Fatalf("%s: %s", q, e.GetErrorMessage())
	}
	return f
}

func TestProtocolV5(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5})
	for _, compression := range []string{"", "lz4"} {
		t.Run("compression="+compression, func(t *testing.T) {
			vc := handshakeV5(t, c.Addrs()[0], compression)
			ks := "v5ks" + compression
			vc.query(3, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			vc.query(4, "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v blob)")

			// Several frames in one self-contained segment, answered individually.
			vc.sendFrames(10, &message.Options{}, &message.Options{}, &message.Options{})
			seen := map[int16]bool{}
			for range 3 {
				f := vc.readFrame()
				if f.Header.OpCode != primitive.OpCodeSupported {
					t.Fatalf("OPTIONS in a segment answered with %v", f.Body.Message)
				}
				seen[f.Header.StreamId] = true
			}
			if len(seen) != 3 {
				t.Fatalf("answers on streams %v, want 10, 11, 12", seen)
			}

			// A request and a response larger than one segment (multi-segment frames).
			big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320,000 bytes
			vc.query(20, "INSERT INTO "+ks+".t (k, v) VALUES (1, ?)", primitive.NewValue(big))
			f := vc.query(21, "SELECT v FROM "+ks+".t WHERE k = 1")
			rows, ok := f.Body.Message.(*message.RowsResult)
			if !ok || len(rows.Data) != 1 || !bytes.Equal(rows.Data[0][0], big) {
				t.Fatalf("reading back a %d-byte blob over v5: %v", len(big), f.Body.Message)
			}

			// PREPARE carries a result metadata id in v5; EXECUTE sends it back.
			vc.sendFrames(30, &message.Prepare{Query: "SELECT k FROM " + ks + ".t WHERE k = ?"})
			p, ok := vc.readFrame().Body.Message.(*message.PreparedResult)
			if !ok || len(p.ResultMetadataId) == 0 {
				t.Fatalf("v5 PREPARE: %v", p)
			}
			vc.sendFrames(31, &message.Execute{QueryId: p.PreparedQueryId, ResultMetadataId: p.ResultMetadataId,
				Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{primitive.NewValue([]byte{0, 0, 0, 1})}}})
			if rows, ok := vc.readFrame().Body.Message.(*message.RowsResult); !ok || len(rows.Data) != 1 {
				t.Fatalf("v5 EXECUTE: %v", rows)
			}

			// The per-query keyspace of v5.
			vc.sendFrames(40, &message.Query{Query: "SELECT k FROM t WHERE k = 1", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, Keyspace: ks}})
			if rows, ok := vc.readFrame().Body.Message.(*message.RowsResult); !ok || len(rows.Data) != 1 {
				t.Fatalf("v5 query with its own keyspace: %v", rows)
			}
		})
	}
}

func TestProtocolV5Negotiation(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5})
	rc := dialRaw(t, c.Addrs()[0])
	rc.write(rawFrame(6, 0, 3, 0x05, nil))
	f := rc.read()
	e, ok := f.Body.Message.(*message.ProtocolError)
	if !ok || f.Header.Version != primitive.ProtocolVersion5 || e.ErrorMessage != "Invalid or unsupported protocol version (6); supported versions are (3/v3, 4/v4, 5/v5)" {
		t.Fatalf("v6 against a v5 server: %v in v%d", f.Body.Message, f.Header.Version)
	}
	// snappy has no v5 segment format.
	rc.send(primitive.ProtocolVersion5, 4, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "snappy"}})
	if _, ok := rc.read().Body.Message.(*message.ProtocolError); !ok {
		t.Fatal("v5 STARTUP with snappy was accepted")
	}
	// The default server does not speak v5.
	d := cqlsim.StartT(t, cqlsim.Options{})
	rd := dialRaw(t, d.Addrs()[0])
	rd.send(primitive.ProtocolVersion5, 5, &message.Options{})
	if f := rd.read(); f.Header.Version != primitive.ProtocolVersion4 || f.Header.OpCode != primitive.OpCodeError {
		t.Fatalf("v5 OPTIONS against the default server: %v in v%d", f.Body.Message, f.Header.Version)
	}
}

// sendSegment sends payload as one self-contained segment.
func (c *v5Conn) sendSegment(payload []byte) {
	c.t.Helper()
	var out bytes.Buffer
	if err := c.codec.EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: true}, Payload: &segment.Payload{UncompressedData: payload}}, &out); err != nil {
		c.t.Fatal(err)
	}
	c.write(out.Bytes())
}

// TestProtocolV5VersionChange checks Cassandra 5.0's answer to a v4 frame in the segments of a
// v5 connection: a PROTOCOL_ERROR in v5 (worded as its v5 handler words it), and the
// connection goes on.
func TestProtocolV5VersionChange(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5})
	vc := handshakeV5(t, c.Addrs()[0], "")
	vc.sendSegment(rawFrame(4, 0, 3, 0x05, nil))
	f := vc.readFrame()
	e, ok := f.Body.Message.(*message.ProtocolError)
	if !ok || f.Header.Version != primitive.ProtocolVersion5 || f.Header.StreamId != 3 {
		t.Fatalf("v4 frame in segments: %v in v%d on stream %d, want PROTOCOL_ERROR in v5 on 3", f.Body.Message, f.Header.Version, f.Header.StreamId)
	}
	if want := "Invalid message version. Got 4/v4 but previousmessages on this connection had version 5/v5"; e.ErrorMessage != want {
		t.Errorf("message %q, want %q", e.ErrorMessage, want)
	}
	vc.query(4, "SELECT key FROM system.local")
}

// TestProtocolV5CRCMismatch checks Cassandra 5.0's answer to a v5 segment whose header or
// payload fails its CRC check: a PROTOCOL_ERROR on stream 0, in a segment, naming the CRC read
// and the one computed, and the connection is closed.
func TestProtocolV5CRCMismatch(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5})
	for _, tc := range []struct {
		name        string
		compression string
		corrupt     func(seg []byte) // seg: the encoded segment of an OPTIONS frame
		want        string
	}{
		{"payload", "", func(seg []byte) { seg[len(seg)-1] ^= 0xff }, `invalid, unrecoverable CRC mismatch detected in frame body. Read -?\d+, Computed -?\d+$`},
		{"header", "", func(seg []byte) { seg[4] ^= 0xff }, `invalid, unrecoverable CRC mismatch detected in frame header. Read \d+, Computed \d+$`},
		{"lz4 payload", "lz4", func(seg []byte) { seg[len(seg)-1] ^= 0xff }, `invalid, unrecoverable CRC mismatch detected in frame body. Read -?\d+, Computed -?\d+$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vc := handshakeV5(t, c.Addrs()[0], tc.compression)
			var seg bytes.Buffer
			if err := vc.codec.EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: true}, Payload: &segment.Payload{UncompressedData: rawFrame(5, 0, 3, 0x05, nil)}}, &seg); err != nil {
				t.Fatal(err)
			}
			b := seg.Bytes()
			tc.corrupt(b)
			vc.write(b)
			f := vc.readFrame()
			e, ok := f.Body.Message.(*message.ProtocolError)
			if !ok || f.Header.StreamId != 0 || f.Header.Version != primitive.ProtocolVersion5 {
				t.Fatalf("corrupt segment: %v in v%d on stream %d, want PROTOCOL_ERROR in v5 on stream 0", f.Body.Message, f.Header.Version, f.Header.StreamId)
			}
			if !regexp.MustCompile(`^[0-9a-f]{8} ` + tc.want).MatchString(e.ErrorMessage) {
				t.Errorf("message %q does not match %q", e.ErrorMessage, tc.want)
			}
			vc.expectClosed()
		})
	}
}
