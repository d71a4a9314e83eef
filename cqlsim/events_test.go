package cqlsim_test

import (
	"net"
	"strconv"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestSchemaChangeEvents checks that a DDL statement on one node pushes SCHEMA_CHANGE on stream
// -1 to connections registered for it on every node, in each connection's protocol version, and
// not to connections that did not register.
func TestSchemaChangeEvents(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	register := func(addr string, v primitive.ProtocolVersion, types ...primitive.EventType) *rawConn {
		rc := dialRaw(t, addr)
		rc.send(v, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
		if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady {
			t.Fatalf("STARTUP: %v", f.Body.Message)
		}
		rc.send(v, 2, &message.Register{EventTypes: types})
		if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady {
			t.Fatalf("REGISTER: %v", f.Body.Message)
		}
		return rc
	}
	schema4 := register(c.Addrs()[1], primitive.ProtocolVersion4, primitive.EventTypeSchemaChange)
	schema3 := register(c.Addrs()[0], primitive.ProtocolVersion3, primitive.EventTypeSchemaChange, primitive.EventTypeStatusChange)
	topologyOnly := register(c.Addrs()[0], primitive.ProtocolVersion4, primitive.EventTypeTopologyChange)

	ddl := dialRaw(t, c.Addrs()[0])
	ddl.startup(nil)
	ddl.send(primitive.ProtocolVersion4, 3, &message.Query{Query: "CREATE KEYSPACE evks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	if r, ok := ddl.read().Body.Message.(*message.SchemaChangeResult); !ok || r.Keyspace != "evks" {
		t.Fatalf("CREATE KEYSPACE answered with %v", r)
	}
	// The DDL connection did not register: its next answer is the next response, not an event.
	ddl.send(primitive.ProtocolVersion4, 4, &message.Options{})
	if f := ddl.read(); f.Header.StreamId != 4 {
		t.Fatalf("unregistered connection received %v on stream %d", f.Body.Message, f.Header.StreamId)
	}

	for name, rc := range map[string]*rawConn{"v4": schema4, "v3": schema3} {
		f := rc.read()
		ev, ok := f.Body.Message.(*message.SchemaChangeEvent)
		if !ok || f.Header.StreamId != -1 {
			t.Fatalf("%s: got %v on stream %d, want SCHEMA_CHANGE on -1", name, f.Body.Message, f.Header.StreamId)
		}
		if ev.ChangeType != primitive.SchemaChangeTypeCreated || ev.Target != primitive.SchemaChangeTargetKeyspace || ev.Keyspace != "evks" {
			t.Errorf("%s: event %v, want CREATED KEYSPACE evks", name, ev)
		}
		if name == "v3" && f.Header.Version != primitive.ProtocolVersion3 {
			t.Errorf("v3 connection got the event in version %d", f.Header.Version)
		}
	}
	topologyOnly.send(primitive.ProtocolVersion4, 5, &message.Options{})
	if f := topologyOnly.read(); f.Header.StreamId != 5 {
		t.Fatalf("connection registered for TOPOLOGY_CHANGE only received %v on stream %d", f.Body.Message, f.Header.StreamId)
	}
}

func TestStopAndStartNode(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	watcher := dialRaw(t, c.Addrs()[0])
	watcher.startup(nil)
	watcher.send(primitive.ProtocolVersion4, 2, &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeStatusChange}})
	if f := watcher.read(); f.Header.OpCode != primitive.OpCodeReady {
		t.Fatalf("REGISTER: %v", f.Body.Message)
	}
	victim := dialRaw(t, c.Addrs()[1])
	victim.startup(nil)

	if err := c.StopNode(1); err != nil {
		t.Fatalf("StopNode: %v", err)
	}
	victim.expectClosed()
	if nc, err := net.Dial("tcp", c.Addrs()[1]); err == nil {
		nc.Close()
		t.Fatalf("stopped node %s still accepts connections", c.Addrs()[1])
	}
	expectStatus := func(want primitive.StatusChangeType) {
		t.Helper()
		f := watcher.read()
		ev, ok := f.Body.Message.(*message.StatusChangeEvent)
		if !ok || f.Header.StreamId != -1 {
			t.Fatalf("got %v on stream %d, want STATUS_CHANGE on -1", f.Body.Message, f.Header.StreamId)
		}
		got := net.JoinHostPort(ev.Address.Addr.String(), strconv.Itoa(int(ev.Address.Port)))
		if ev.ChangeType != want || got != c.Addrs()[1] {
			t.Fatalf("event %s %s, want %s %s", ev.ChangeType, got, want, c.Addrs()[1])
		}
	}
	expectStatus(primitive.StatusChangeTypeDown)
	if err := c.StopNode(1); err != nil {
		t.Fatalf("second StopNode: %v", err)
	}

	if err := c.StartNode(1); err != nil {
		t.Fatalf("StartNode: %v", err)
	}
	expectStatus(primitive.StatusChangeTypeUp)
	back := dialRaw(t, c.Addrs()[1])
	back.startup(nil)
	back.send(primitive.ProtocolVersion4, 3, &message.Query{Query: "SELECT release_version FROM system.local",
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	if _, ok := back.read().Body.Message.(*message.RowsResult); !ok {
		t.Fatal("restarted node does not answer queries")
	}
	if err := c.StopNode(2); err == nil {
		t.Error("StopNode(2) of a two-node cluster succeeded")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.StartNode(1); err == nil {
		t.Error("StartNode after Close succeeded")
	}
}
