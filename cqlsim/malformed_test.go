package cqlsim_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// longString encodes a [long string].
func longString(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

func TestMalformedBodiesGetProtocolErrors(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	cases := []struct {
		name   string
		opcode byte
		body   []byte
		want   string // substring of the error message
	}{
		{"query string longer than body", 0x07, []byte{0x7f, 0xff, 0xff, 0xff, 'S'}, "query string"},
		{"negative query length", 0x07, []byte{0xff, 0xff, 0xff, 0xf0}, "negative length"},
		{"missing query parameters", 0x07, longString("SELECT 1"), "consistency"},
		{"unknown consistency", 0x07, append(longString("SELECT 1"), 0x00, 0x42, 0x00), "Unknown code 66 for a consistency level"}, // Cassandra's words
		{"value count beyond body", 0x07, append(longString("SELECT 1"), 0x00, 0x01, 0x01, 0xff, 0xff), "values claimed"},
		{"value longer than body", 0x07, append(longString("SELECT 1"), 0x00, 0x01, 0x01, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00), "value needs"},
		{"invalid value length", 0x07, append(longString("SELECT 1"), 0x00, 0x01, 0x01, 0x00, 0x01, 0xff, 0xff, 0xff, 0xf0), "invalid length"},
		{"unknown query flag", 0x07, append(longString("SELECT 1"), 0x00, 0x01, 0x80), "unknown query flags"},
		{"execute id beyond body", 0x0A, []byte{0x00, 0x20, 1, 2}, "prepared id"},
		{"unknown batch type", 0x0D, []byte{0x07, 0x00, 0x00, 0x00, 0x01, 0x00}, "unknown batch type"},
		{"unknown batch statement kind", 0x0D, []byte{0x00, 0x00, 0x01, 0x05, 0, 0, 0, 0, 0, 0, 0, 0}, "statement kind"},
		{"batch with named values", 0x0D, []byte{0x00, 0x00, 0x00, 0x00, 0x01, 0x40}, "named values"},
		{"response opcode", 0x08, nil, "Wrong protocol direction"},
		{"unknown opcode", 0x3f, nil, "Unknown opcode 63"},
		{"empty prepare", 0x09, nil, "query string"},
	}
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stream := int16(100 + i)
			rc.write(rawFrame(4, 0, stream, tc.opcode, tc.body))
			f := rc.read()
			e, ok := f.Body.Message.(*message.ProtocolError)
			if !ok {
				t.Fatalf("got %v, want PROTOCOL_ERROR", f.Body.Message)
			}
			if f.Header.StreamId != stream {
				t.Errorf("error on stream %d, want %d", f.Header.StreamId, stream)
			}
			if !strings.Contains(e.ErrorMessage, tc.want) {
				t.Errorf("message %q does not mention %q", e.ErrorMessage, tc.want)
			}
		})
	}
	// The connection survived all of them.
	rc.send(primitive.ProtocolVersion4, 99, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported {
		t.Fatalf("after malformed frames: %v", f.Body.Message)
	}
}

func TestUnframeableInputClosesConnection(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxFrameLength: 1 << 20})
	cases := []struct {
		name  string
		frame []byte
	}{
		{"negative body length", []byte{4, 0, 0, 1, 0x05, 0xff, 0xff, 0xff, 0xff}},
		{"response bit", rawFrame(0x84, 0, 1, 0x05, nil)},
		{"not CQL at all", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.write(tc.frame)
			f := rc.read()
			if _, ok := f.Body.Message.(*message.ProtocolError); !ok {
				t.Fatalf("got %v, want PROTOCOL_ERROR", f.Body.Message)
			}
			if f.Header.Version != primitive.ProtocolVersion4 {
				t.Errorf("error in version %d, want 4", f.Header.Version)
			}
			rc.expectClosed()
		})
	}
}

func TestTruncatedFrameDoesNotHangClose(t *testing.T) {
	c, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc := dialRaw(t, c.Addrs()[0])
	// A header announcing 100 bytes, then only 3 of them: the server waits for the rest.
	rc.write(append(rawFrame(4, 0, 1, 0x07, nil)[:5], 0, 0, 0, 100, 1, 2, 3))
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rc.expectClosed()
}

// TestProtocolErrorsWordedLikeCassandra checks the PROTOCOL_ERRORs of frames that are no
// request, of an unknown event type and of snappy in v5 against the words of Cassandra 5.0.9.
func TestProtocolErrorsWordedLikeCassandra(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	for i, tc := range []struct {
		opcode byte
		body   []byte
		want   string
	}{
		{0x3f, nil, "Unknown opcode 63"},
		{0x11, nil, "Unknown opcode 17"},
		{0x00, nil, "Wrong protocol direction (expected RESPONSE, got REQUEST) for opcode 0 (ERROR)"},
		{0x08, nil, "Wrong protocol direction (expected RESPONSE, got REQUEST) for opcode 8 (RESULT)"},
		{0x04, nil, "Unsupported message"}, // CREDENTIALS, protocol v1's
		{0x0b, []byte{0, 1, 0, 3, 'F', 'O', 'O'}, "Invalid value 'FOO' for Type"},
	} {
		stream := int16(10 + i)
		rc.write(rawFrame(4, 0, stream, tc.opcode, tc.body))
		f := rc.read()
		e, ok := f.Body.Message.(*message.ProtocolError)
		if !ok || f.Header.StreamId != stream {
			t.Fatalf("opcode %#x: %v on stream %d, want PROTOCOL_ERROR on %d", tc.opcode, f.Body.Message, f.Header.StreamId, stream)
		}
		if e.ErrorMessage != tc.want {
			t.Errorf("opcode %#x: message %q, want %q", tc.opcode, e.ErrorMessage, tc.want)
		}
	}
	rc.send(primitive.ProtocolVersion4, 30, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported {
		t.Fatalf("after the errors: %v", f.Body.Message)
	}

	// A request flagged as a response closes the connection.
	rc = dialRaw(t, c.Addrs()[0])
	rc.write(rawFrame(0x84, 0, 1, 0x05, nil))
	f := rc.read()
	if e, ok := f.Body.Message.(*message.ProtocolError); !ok || e.ErrorMessage != "Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode 5 (OPTIONS)" {
		t.Errorf("OPTIONS flagged as a response: %v", f.Body.Message)
	}
	rc.expectClosed()

	rc = dialRaw(t, c.Addrs()[0])
	rc.send(primitive.ProtocolVersion5, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "snappy"}})
	f = rc.read()
	if e, ok := f.Body.Message.(*message.ProtocolError); !ok || e.ErrorMessage != "Snappy compression is not supported in protocol V5" {
		t.Errorf("v5 STARTUP with snappy: %v", f.Body.Message)
	}
}
