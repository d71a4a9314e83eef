package cqlsim_test

import (
	"encoding/hex"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// schemaVersions returns the schema_version of the node rc is connected to and those its
// system.peers reports, by peer address.
func schemaVersions(t *testing.T, rc *rawConn) (local string, peers map[string]string) {
	t.Helper()
	rows := func(q string) [][][]byte {
		rc.send(primitive.ProtocolVersion4, 2, &message.Query{Query: q, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
		f := rc.read()
		res, ok := f.Body.Message.(*message.RowsResult)
		if !ok {
			t.Fatalf("%s: got %v", q, f.Body.Message)
		}
		return res.Data
	}
	local = hex.EncodeToString(rows("SELECT schema_version FROM system.local")[0][0])
	peers = map[string]string{}
	for _, r := range rows("SELECT peer, schema_version FROM system.peers") {
		peers[hex.EncodeToString(r[0])] = hex.EncodeToString(r[1])
	}
	return local, peers
}

// TestSchemaPropagationDelay checks that after DDL the peers report the previous schema
// version until the delay has passed, and that a stopped node keeps the version it had.
func TestSchemaPropagationDelay(t *testing.T) {
	clock := cqlsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Now: clock.Now, SchemaPropagationDelay: time.Second})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)

	before, peers := schemaVersions(t, rc)
	if len(peers) != 2 {
		t.Fatalf("system.peers has %d rows, want 2", len(peers))
	}
	for p, v := range peers {
		if v != before {
			t.Fatalf("at start peer %s reports %s, local %s: want agreement", p, v, before)
		}
	}

	ddl := func(q string) {
		t.Helper()
		rc.send(primitive.ProtocolVersion4, 3, &message.Query{Query: q, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
		if f := rc.read(); f.Header.OpCode != primitive.OpCodeResult {
			t.Fatalf("%s: %v", q, f.Body.Message)
		}
	}
	ddl("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	after, peers := schemaVersions(t, rc)
	if after == before {
		t.Fatal("the local schema version did not change with the DDL")
	}
	for p, v := range peers {
		if v != before {
			t.Errorf("right after the DDL peer %s reports %s, want the previous version %s", p, v, before)
		}
	}
	// Another node has not heard of the change: it reports the old version for itself and
	// for every other node, the coordinator included.
	other := dialRaw(t, c.Addrs()[1])
	other.startup(nil)
	local1, peers1 := schemaVersions(t, other)
	if local1 != before {
		t.Errorf("node 2 reports %s for itself right after the DDL on node 1, want %s", local1, before)
	}
	for p, v := range peers1 {
		if v != before {
			t.Errorf("node 2 reports %s for peer %s right after the DDL on node 1, want %s", v, p, before)
		}
	}

	clock.Advance(999 * time.Millisecond)
	_, peers = schemaVersions(t, rc)
	for p, v := range peers {
		if v != before {
			t.Errorf("just before the delay has passed peer %s reports %s, want %s", p, v, before)
		}
	}
	clock.Advance(time.Millisecond)
	_, peers = schemaVersions(t, rc)
	for p, v := range peers {
		if v != after {
			t.Errorf("once the delay has passed peer %s reports %s, want %s", p, v, after)
		}
	}
	if local1, _ = schemaVersions(t, other); local1 != after {
		t.Errorf("once the delay has passed node 2 reports %s for itself, want %s", local1, after)
	}

	// Node 2 (127.0.0.3) stops, then the schema changes: its row keeps the old version, even
	// after the delay, until it starts again.
	if err := c.StopNode(2); err != nil {
		t.Fatal(err)
	}
	ddl("CREATE TABLE ks.t (k int PRIMARY KEY)")
	clock.Advance(2 * time.Second)
	latest, peers := schemaVersions(t, rc)
	stopped := hex.EncodeToString([]byte{127, 0, 0, 3})
	for p, v := range peers {
		want := latest
		if p == stopped {
			want = after
		}
		if v != want {
			t.Errorf("with node 3 stopped peer %s reports %s, want %s", p, v, want)
		}
	}
	if err := c.StartNode(2); err != nil {
		t.Fatal(err)
	}
	if _, peers = schemaVersions(t, rc); peers[stopped] != latest {
		t.Errorf("restarted node 3 reports %s, want %s", peers[stopped], latest)
	}
}
