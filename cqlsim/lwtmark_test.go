package cqlsim_test

import (
	"encoding/binary"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// preparedFlags prepares query on c and returns the bind metadata flags of the PREPARED answer,
// read from its raw bytes (v4: header, result kind, [short bytes] id, then the flags).
func preparedFlags(t *testing.T, c *rawConn, stream int16, query string) uint32 {
	t.Helper()
	c.send(primitive.ProtocolVersion4, stream, &message.Prepare{Query: query})
	head := c.readRaw(9)
	body := c.readRaw(int(binary.BigEndian.Uint32(head[5:9])))
	if head[4] != byte(primitive.OpCodeResult) || binary.BigEndian.Uint32(body) != 4 {
		t.Fatalf("PREPARE %q: opcode %#x, body % x", query, head[4], body[:min(len(body), 20)])
	}
	idLen := int(binary.BigEndian.Uint16(body[4:]))
	return binary.BigEndian.Uint32(body[6+idLen:])
}

// A sharded (ScyllaDB-like) node offers the LWT mark; a client that echoes it in STARTUP gets
// bit 31 of the bind metadata flags set in PREPARED for conditional statements only. Without
// the echo, or on a node that is not sharded, no statement is marked.
func TestLWTMark(t *testing.T) {
	const mark = "LWT_OPTIMIZATION_META_BIT_MASK=2147483648"
	statements := map[string]bool{
		"INSERT INTO lm.t (k, v) VALUES (?, ?) IF NOT EXISTS": true,
		"UPDATE lm.t SET v = ? WHERE k = ? IF v = ?":          true,
		"DELETE FROM lm.t WHERE k = ? IF EXISTS":              true,
		"INSERT INTO lm.t (k, v) VALUES (?, ?)":               false,
		"SELECT v FROM lm.t WHERE k = ?":                      false,
	}
	for _, tc := range []struct {
		name        string
		shards      int
		echo, marks bool
	}{
		{"sharded, echoed", 2, true, true},
		{"sharded, not echoed", 2, false, false},
		{"not sharded, echoed", 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := cqlsim.StartT(t, cqlsim.Options{Shards: tc.shards})
			c := dialRaw(t, cl.Addrs()[0])
			c.send(primitive.ProtocolVersion4, 0, &message.Options{})
			sup := c.read().Body.Message.(*message.Supported)
			if got := sup.Options["SCYLLA_LWT_ADD_METADATA_MARK"]; (tc.shards > 0) != (len(got) == 1 && got[0] == mark) {
				t.Fatalf("SUPPORTED SCYLLA_LWT_ADD_METADATA_MARK = %v with %d shards", got, tc.shards)
			}
			opts := map[string]string{"CQL_VERSION": "3.0.0"}
			if tc.echo {
				opts["SCYLLA_LWT_ADD_METADATA_MARK"] = mark
			}
			c.startup(opts)
			c.send(primitive.ProtocolVersion4, 2, &message.Query{Query: "CREATE KEYSPACE lm WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"})
			c.read()
			c.send(primitive.ProtocolVersion4, 3, &message.Query{Query: "CREATE TABLE lm.t (k int PRIMARY KEY, v int)"})
			c.read()
			for q, lwt := range statements {
				flags := preparedFlags(t, c, 4, q)
				if want := tc.marks && lwt; (flags&0x80000000 != 0) != want {
					t.Errorf("%q: flags %#x, want the LWT bit %v", q, flags, want)
				}
				if flags&^0x80000000 > 1 {
					t.Errorf("%q: flags %#x besides the LWT bit", q, flags)
				}
			}
		})
	}
}

// A sharded node sends an injected RateLimitReached with the code it offers and its fields to a
// client that opted in, and as a CONFIG_ERROR to one that did not.
func TestRateLimitReached(t *testing.T) {
	for _, optIn := range []bool{true, false} {
		cl := cqlsim.StartT(t, cqlsim.Options{Shards: 2})
		if err := cl.InjectFault(0, cqlsim.Fault{Match: "system.local", Error: &cqlsim.RateLimitReached{ErrorMessage: "too fast", OpType: 1, RejectedByCoordinator: true}}); err != nil {
			t.Fatal(err)
		}
		c := dialRaw(t, cl.Addrs()[0])
		opts := map[string]string{"CQL_VERSION": "3.0.0"}
		if optIn {
			opts["SCYLLA_RATE_LIMIT_ERROR"] = ""
		}
		c.startup(opts)
		c.send(primitive.ProtocolVersion4, 2, &message.Query{Query: "SELECT key FROM system.local"})
		head := c.readRaw(9)
		body := c.readRaw(int(binary.BigEndian.Uint32(head[5:9])))
		code := binary.BigEndian.Uint32(body)
		msgLen := int(binary.BigEndian.Uint16(body[4:]))
		rest := body[6+msgLen:]
		switch {
		case head[4] != byte(primitive.OpCodeError) || string(body[6:6+msgLen]) != "too fast":
			t.Fatalf("opt-in %v: opcode %#x, body % x", optIn, head[4], body)
		case optIn && (code != 0xF000 || len(rest) != 2 || rest[0] != 1 || rest[1] != 1):
			t.Errorf("opted in: code %#x, fields % x; want 0xf000 and 01 01", code, rest)
		case !optIn && (code != 0x2300 || len(rest) != 0):
			t.Errorf("not opted in: code %#x, fields % x; want CONFIG_ERROR 0x2300 alone", code, rest)
		}
	}
}
