package cqlsim_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// readRawFrame reads one v3+ response frame without decoding it: its header flags, opcode,
// stream and body as sent.
func (c *rawConn) readRawFrame() (flags byte, opcode byte, stream int16, body []byte) {
	c.t.Helper()
	h := c.readRaw(9)
	n := int(binary.BigEndian.Uint32(h[5:9]))
	return h[1], h[4], int16(binary.BigEndian.Uint16(h[2:4])), c.readRaw(n)
}

// Like Cassandra (which compresses every response once STARTUP negotiated compression, READY
// included, whether or not compression pays off), cqlsim compresses its responses and the
// events it pushes; otherwise a driver's decompression is never exercised by the embedded
// server. The same event goes uncompressed to a connection that did not ask for compression.
func TestReviewCompressResponsesAndEvents(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	for _, tc := range []struct {
		name string
		comp compression.Compressor
	}{{"lz4", lz4.Compressor{}}, {"snappy", snappy.Compressor{}}} {
		t.Run(tc.name, func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": tc.name}})
			flags, op, _, body := rc.readRawFrame()
			if op != byte(primitive.OpCodeReady) || flags&0x01 == 0 {
				t.Fatalf("STARTUP answered with opcode 0x%02x flags 0x%02x, want a compressed READY", op, flags)
			}
			if out, err := tc.comp.DecompressFrame(body); err != nil || len(out) != 0 {
				t.Fatalf("READY body %x decompresses to %x, %v; want empty", body, out, err)
			}
			rc.comp = tc.comp

			plain := dialRaw(t, c.Addrs()[0])
			plain.startup(nil)
			for i, r := range []*rawConn{rc, plain} {
				r.send(primitive.ProtocolVersion4, 2, &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}})
				flags, op, _, _ := r.readRawFrame()
				if op != byte(primitive.OpCodeReady) || (flags&0x01 != 0) != (i == 0) {
					t.Fatalf("REGISTER on connection %d answered with opcode 0x%02x flags 0x%02x", i, op, flags)
				}
			}

			// A result whose compressed body is larger than the plain one (a few bytes).
			ks := "rcks_" + tc.name
			rc.send(primitive.ProtocolVersion4, 3, &message.Query{Query: "CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
			var gotResult, gotEvent bool
			for !gotResult || !gotEvent {
				flags, op, stream, body := rc.readRawFrame()
				if flags&0x01 == 0 {
					t.Fatalf("uncompressed opcode 0x%02x on stream %d of a %s connection", op, stream, tc.name)
				}
				if _, err := tc.comp.DecompressFrame(body); err != nil {
					t.Fatalf("opcode 0x%02x on stream %d: %v", op, stream, err)
				}
				gotResult = gotResult || stream == 3
				gotEvent = gotEvent || stream == -1
			}
			flags, op, stream, evBody := plain.readRawFrame()
			if stream != -1 || op != byte(primitive.OpCodeEvent) || flags&0x01 != 0 {
				t.Fatalf("uncompressed connection got opcode 0x%02x flags 0x%02x on stream %d, want an uncompressed EVENT", op, flags, stream)
			}
			if !bytes.Contains(evBody, []byte(ks)) {
				t.Fatalf("event body %q does not name %s", evBody, ks)
			}

			// Errors, and a large incompressible result, decode through the compressing codec.
			rc.send(primitive.ProtocolVersion4, 4, &message.Query{Query: "SELEC nothing", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
			if _, ok := rc.read().Body.Message.(*message.SyntaxError); !ok {
				t.Fatal("syntax error not decoded")
			}
			rc.send(primitive.ProtocolVersion4, 5, &message.Query{Query: "CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v blob)", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
			for {
				if f := rc.read(); f.Header.StreamId == 5 {
					break
				}
			}
			big := make([]byte, 3<<20)
			for i := range big {
				big[i] = byte(i*7919 ^ i>>5*31 ^ i>>11)
			}
			rc.send(primitive.ProtocolVersion4, 6, &message.Query{Query: "INSERT INTO " + ks + ".t (k, v) VALUES (1, ?)", Options: &message.QueryOptions{
				Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{primitive.NewValue(big)}}})
			if f := rc.read(); f.Header.StreamId != 6 {
				t.Fatalf("INSERT: %v", f.Body.Message)
			}
			rc.send(primitive.ProtocolVersion4, 7, &message.Query{Query: "SELECT v FROM " + ks + ".t WHERE k = 1", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PageSize: -1}})
			f := rc.read()
			rows, ok := f.Body.Message.(*message.RowsResult)
			if !ok || len(rows.Data) != 1 || !bytes.Equal(rows.Data[0][0], big) {
				t.Fatalf("large result: got %T", f.Body.Message)
			}
		})
	}
}
