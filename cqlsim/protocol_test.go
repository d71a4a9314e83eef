package cqlsim_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

func TestOptionsSupported(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.send(primitive.ProtocolVersion4, 7, &message.Options{})
	f := rc.read()
	s, ok := f.Body.Message.(*message.Supported)
	if !ok {
		t.Fatalf("OPTIONS answered with %v, want SUPPORTED", f.Body.Message)
	}
	if f.Header.StreamId != 7 || f.Header.Version != primitive.ProtocolVersion4 {
		t.Errorf("SUPPORTED header = %+v, want stream 7 version 4", f.Header)
	}
	want := map[string][]string{
		"CQL_VERSION":       {"3.4.7"},
		"COMPRESSION":       {"lz4", "snappy"},
		"PROTOCOL_VERSIONS": {"3/v3", "4/v4"},
	}
	for k, v := range want {
		if !slices.Equal(s.Options[k], v) {
			t.Errorf("SUPPORTED[%s] = %v, want %v", k, s.Options[k], v)
		}
	}
	// OPTIONS keeps working after STARTUP, as a heartbeat.
	rc.startup(nil)
	rc.send(primitive.ProtocolVersion4, 8, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported || f.Header.StreamId != 8 {
		t.Fatalf("heartbeat OPTIONS answered with %v on stream %d", f.Body.Message, f.Header.StreamId)
	}
}

func TestUnsupportedProtocolVersions(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	for _, v := range []byte{5, 6, 0x41, 0x42, 0x7f} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.write(rawFrame(v, 0, 0x1234, 0x05, nil))
			f := rc.read()
			if f.Header.Version != primitive.ProtocolVersion4 || f.Header.StreamId != 0x1234 {
				t.Fatalf("error header = version %d stream %#x, want version 4 stream 0x1234", f.Header.Version, f.Header.StreamId)
			}
			e, ok := f.Body.Message.(*message.ProtocolError)
			if !ok {
				t.Fatalf("got %v, want PROTOCOL_ERROR", f.Body.Message)
			}
			want := fmt.Sprintf("Invalid or unsupported protocol version (%d); supported versions are (3/v3, 4/v4)", v) // Cassandra 5.0's words
			if e.ErrorMessage != want {
				t.Errorf("message = %q, want %q", e.ErrorMessage, want)
			}
			// The connection survives: the client may go on in a supported version.
			rc.startup(nil)
		})
	}
	for _, v := range []byte{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			// v1/v2 header: version, flags, 1-byte stream, opcode, length.
			rc.write([]byte{v, 0, 9, 0x05, 0, 0, 0, 0})
			hdr := rc.readRaw(8)
			if hdr[0] != 0x80|v || hdr[2] != 9 || hdr[3] != 0 {
				t.Fatalf("v%d error header = % x, want version %#x stream 9 opcode ERROR", v, hdr, 0x80|v)
			}
			body := rc.readRaw(int(binary.BigEndian.Uint32(hdr[4:])))
			if code := binary.BigEndian.Uint32(body); code != 0x0A {
				t.Fatalf("error code %#x, want 0x0A", code)
			}
			if msg := string(body[6:]); !strings.Contains(msg, fmt.Sprintf("unsupported protocol version (%d)", v)) {
				t.Errorf("message %q does not name version %d", msg, v)
			}
		})
	}
}

func TestMaxProtocolVersion3(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 3})
	rc := dialRaw(t, c.Addrs()[0])
	rc.write(rawFrame(4, 0, 3, 0x05, nil))
	f := rc.read()
	e, ok := f.Body.Message.(*message.ProtocolError)
	if !ok || f.Header.Version != primitive.ProtocolVersion3 {
		t.Fatalf("v4 against a v3 server: got %v in version %d, want PROTOCOL_ERROR in v3", f.Body.Message, f.Header.Version)
	}
	if !strings.HasSuffix(e.ErrorMessage, "; supported versions are (3/v3)") {
		t.Errorf("message %q", e.ErrorMessage)
	}
	if _, err := cqlsim.Start(cqlsim.Options{MaxProtocolVersion: 6}); err == nil {
		t.Error("Start with MaxProtocolVersion 6 succeeded, want an error")
	}
}

// TestVersionChangeOnConnection checks what Cassandra 5.0 answers to a frame in another
// version than the connection's (the version of its STARTUP): a PROTOCOL_ERROR in the
// connection's version, and the connection goes on.
func TestVersionChangeOnConnection(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	rc.write(rawFrame(3, 0, 2, 0x05, nil))
	f := rc.read()
	e, ok := f.Body.Message.(*message.ProtocolError)
	if !ok || f.Header.Version != primitive.ProtocolVersion4 || f.Header.StreamId != 2 {
		t.Fatalf("got %v in v%d on stream %d, want PROTOCOL_ERROR in v4 on stream 2", f.Body.Message, f.Header.Version, f.Header.StreamId)
	}
	if want := "Invalid message version. Got 3/v3 but previous messages on this connection had version 4/v4"; e.ErrorMessage != want {
		t.Errorf("message %q, want %q", e.ErrorMessage, want)
	}
	rc.send(primitive.ProtocolVersion4, 3, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported || f.Header.StreamId != 3 {
		t.Fatalf("after the version error: %v on stream %d, want SUPPORTED on 3", f.Body.Message, f.Header.StreamId)
	}
}

// TestVersionPinnedByStartup checks that, as on Cassandra 5.0, the frames before STARTUP
// (OPTIONS) may use any supported version: STARTUP sets the connection's version, failed
// or not.
func TestVersionPinnedByStartup(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.send(primitive.ProtocolVersion4, 1, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported || f.Header.Version != primitive.ProtocolVersion4 {
		t.Fatalf("OPTIONS v4: %v in v%d", f.Body.Message, f.Header.Version)
	}
	rc.send(primitive.ProtocolVersion3, 2, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported || f.Header.Version != primitive.ProtocolVersion3 {
		t.Fatalf("OPTIONS v3 after OPTIONS v4: %v in v%d, want SUPPORTED in v3", f.Body.Message, f.Header.Version)
	}
	// A STARTUP that fails sets the version all the same.
	rc.send(primitive.ProtocolVersion3, 3, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "zz"}})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeError || f.Header.Version != primitive.ProtocolVersion3 {
		t.Fatalf("STARTUP v3 with an unknown compression: %v in v%d, want an ERROR in v3", f.Body.Message, f.Header.Version)
	}
	rc.send(primitive.ProtocolVersion4, 4, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	f := rc.read()
	e, ok := f.Body.Message.(*message.ProtocolError)
	if !ok || f.Header.Version != primitive.ProtocolVersion3 || e.ErrorMessage != "Invalid message version. Got 4/v4 but previous messages on this connection had version 3/v3" {
		t.Fatalf("STARTUP v4 after STARTUP v3: %v in v%d, want Cassandra's PROTOCOL_ERROR in v3", f.Body.Message, f.Header.Version)
	}
	rc.send(primitive.ProtocolVersion3, 5, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady || f.Header.Version != primitive.ProtocolVersion3 {
		t.Fatalf("STARTUP v3: %v in v%d, want READY in v3", f.Body.Message, f.Header.Version)
	}
}

// TestStatementBeforeStartup checks Cassandra 5.0's answer to a request other than STARTUP or
// OPTIONS on a new connection: a PROTOCOL_ERROR, after which the connection is closed.
func TestStatementBeforeStartup(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	for name, msg := range map[string]message.Message{
		"QUERY":         &message.Query{Query: "SELECT * FROM system.local", Options: &message.QueryOptions{}},
		"REGISTER":      &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}},
		"AUTH_RESPONSE": &message.AuthResponse{Token: []byte("\x00a\x00b")},
	} {
		rc := dialRaw(t, c.Addrs()[0])
		rc.send(primitive.ProtocolVersion4, 4, msg)
		f := rc.read()
		want := fmt.Sprintf("Unexpected message %s, expecting STARTUP or OPTIONS", name)
		if e, ok := f.Body.Message.(*message.ProtocolError); !ok || e.ErrorMessage != want || f.Header.StreamId != 4 {
			t.Fatalf("%v before STARTUP: %v on stream %d, want PROTOCOL_ERROR %q on 4", msg, f.Body.Message, f.Header.StreamId, want)
		}
		rc.expectClosed()
	}
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	rc.send(primitive.ProtocolVersion4, 5, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if _, ok := rc.read().Body.Message.(*message.ProtocolError); !ok {
		t.Fatal("a second STARTUP was accepted")
	}
}

func TestStartupValidation(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	for name, opts := range map[string]map[string]string{
		"no CQL_VERSION":      {},
		"unknown compression": {"CQL_VERSION": "3.0.0", "COMPRESSION": "zstd"},
		"CQL version 2":       {"CQL_VERSION": "2.0.0"},
	} {
		t.Run(name, func(t *testing.T) {
			rc := dialRaw(t, c.Addrs()[0])
			rc.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: opts})
			if f := rc.read(); f.Header.OpCode != primitive.OpCodeError {
				t.Fatalf("STARTUP %v answered with %v, want an error", opts, f.Body.Message)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	rc.send(primitive.ProtocolVersion4, 2, &message.Register{EventTypes: []primitive.EventType{
		primitive.EventTypeTopologyChange, primitive.EventTypeStatusChange, primitive.EventTypeSchemaChange}})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady || f.Header.StreamId != 2 {
		t.Fatalf("REGISTER answered with %v on stream %d, want READY on 2", f.Body.Message, f.Header.StreamId)
	}
	body := append([]byte{0, 1, 0, 13}, "NO_SUCH_EVENT"...)
	rc.write(rawFrame(4, 0, 3, 0x0B, body))
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeError {
		t.Fatalf("REGISTER of an unknown event answered with %v", f.Body.Message)
	}
}

func TestExecuteUnknownIDIsUnprepared(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	id := []byte{0xde, 0xad, 0xbe, 0xef}
	rc.send(primitive.ProtocolVersion4, 11, &message.Execute{QueryId: id, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	f := rc.read()
	u, ok := f.Body.Message.(*message.Unprepared)
	if !ok || f.Header.StreamId != 11 {
		t.Fatalf("got %v on stream %d, want UNPREPARED on 11", f.Body.Message, f.Header.StreamId)
	}
	if !slices.Equal(u.Id, id) {
		t.Errorf("UNPREPARED id = %x, want %x", u.Id, id)
	}
	// Also inside a BATCH.
	rc.send(primitive.ProtocolVersion4, 12, &message.Batch{Type: primitive.BatchTypeLogged, Consistency: primitive.ConsistencyLevelOne,
		Children: []*message.BatchChild{{Id: id}}})
	if u, ok := rc.read().Body.Message.(*message.Unprepared); !ok || !slices.Equal(u.Id, id) {
		t.Fatalf("BATCH with an unknown id: got %v, want UNPREPARED %x", u, id)
	}
}

// TestPipelinedRequests sends many statements before reading any answer: every stream id gets
// exactly one response, whatever order the concurrent workers finish in.
func TestPipelinedRequests(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	const n = 500
	for s := 1; s <= n; s++ {
		rc.send(primitive.ProtocolVersion4, int16(s), &message.Query{Query: "SELECT release_version FROM system.local",
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	}
	seen := map[int16]bool{}
	for range n {
		f := rc.read()
		if _, ok := f.Body.Message.(*message.RowsResult); !ok {
			t.Fatalf("stream %d: %v", f.Header.StreamId, f.Body.Message)
		}
		if seen[f.Header.StreamId] || f.Header.StreamId < 1 || f.Header.StreamId > n {
			t.Fatalf("unexpected or duplicate response on stream %d", f.Header.StreamId)
		}
		seen[f.Header.StreamId] = true
	}
}

// TestStartupCQLVersion checks STARTUP's CQL_VERSION as a Cassandra 5.0.9 node checks it: any
// version it can parse from 2.99.0 on is accepted, others refused with its messages.
func TestStartupCQLVersion(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	for _, tc := range []struct {
		version string
		want    string // "" for READY, else the PROTOCOL_ERROR's message
	}{
		{"3.0.0", ""},
		{"3.4.7", ""},
		{"4.0.0", ""},
		{"3.0", ""},
		{"2.99.0", ""},
		{"2.99.0+b", ""},
		{"3.0.0-beta", ""},
		{"3.0.0.1.2", ""},
		{"3.0.0.", ""},
		{"2.99.0-beta", "CQL version 2.99.0-beta is not supported by the binary protocol (supported version are >= 3.0.0)"},
		{"2.0.0", "CQL version 2.0.0 is not supported by the binary protocol (supported version are >= 3.0.0)"},
		{"3", "Invalid version value: 3"},
		{"", "Invalid version value: "},
		{"abc", "Invalid version value: abc"},
		{"3.x.0", "Invalid version value: 3.x.0"},
		{"3.0.0.x", "Invalid version value: 3.0.0.x"},
		{"3.0.0-", "Invalid version value: 3.0.0-"},
		{"99999999999.0.0", "Invalid version value: 99999999999.0.0"},
		{"３.0.0", "Invalid version value: ３.0.0"},
	} {
		rc := dialRaw(t, c.Addrs()[0])
		rc.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": tc.version}})
		f := rc.read()
		switch m := f.Body.Message.(type) {
		case *message.Ready:
			if tc.want != "" {
				t.Errorf("CQL_VERSION %q: READY, want %q", tc.version, tc.want)
			}
		case *message.ProtocolError:
			if m.ErrorMessage != tc.want {
				t.Errorf("CQL_VERSION %q: %q, want %q", tc.version, m.ErrorMessage, tc.want)
			}
		default:
			t.Errorf("CQL_VERSION %q: %v", tc.version, m)
		}
	}
}

// TestStartupEmptyCompression checks that an empty COMPRESSION in STARTUP is refused as
// Cassandra 5.0.9 refuses it (it is no algorithm; only an absent COMPRESSION means none).
func TestStartupEmptyCompression(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": ""}})
	f := rc.read()
	if e, ok := f.Body.Message.(*message.ProtocolError); !ok || e.ErrorMessage != "Unknown compression algorithm: " {
		t.Fatalf("STARTUP with COMPRESSION \"\": %v, want PROTOCOL_ERROR \"Unknown compression algorithm: \"", f.Body.Message)
	}
}
