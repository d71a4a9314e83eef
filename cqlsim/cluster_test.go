package cqlsim_test

import (
	"context"
	"maps"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

func TestMultiNodeSharesOnePort(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	addrs := c.Addrs()
	if len(addrs) != 3 {
		t.Fatalf("Addrs = %v, want 3", addrs)
	}
	var port string
	for i, a := range addrs {
		host, p, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatal(err)
		}
		if want := "127.0.0." + string(rune('1'+i)); host != want {
			t.Errorf("node %d host = %s, want %s", i, host, want)
		}
		if port == "" {
			port = p
		} else if p != port {
			t.Errorf("node %d port %s differs from node 0's %s", i, p, port)
		}
		// Every node accepts connections and answers the handshake.
		rc := dialRaw(t, a)
		rc.send(primitive.ProtocolVersion4, 1, &message.Options{})
		if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported {
			t.Errorf("node %s: OPTIONS answered with %v", a, f.Body.Message)
		}
	}
}

func TestFixedPortAndCloseReleasesIt(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	addr := c.Addrs()[0]
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// The port is free again: a new cluster can listen on exactly that address.
	c2, err := cqlsim.Start(cqlsim.Options{Listen: addr})
	if err != nil {
		t.Fatalf("restarting on %s: %v", addr, err)
	}
	defer c2.Close()
	if c2.Addrs()[0] != addr {
		t.Errorf("Addrs = %v, want %s", c2.Addrs(), addr)
	}
	// A port already taken is an error, not a silent move to another port.
	if c3, err := cqlsim.Start(cqlsim.Options{Listen: addr}); err == nil {
		c3.Close()
		t.Fatalf("second cluster on %s started", addr)
	}
}

func TestStartRejectsBadOptions(t *testing.T) {
	for _, opts := range []cqlsim.Options{
		{Listen: "localhost"},
		{Listen: "localhost:0"},
		{Listen: "[::1]:0"},
		{Listen: "127.0.0.1:99999"},
		{MaxProtocolVersion: 2},
		{Listen: "127.255.255.255:0", Nodes: 2},
		{Nodes: 2, NodeDataCenters: []string{"dc1", "dc2", "dc3"}},
		{NodeRacks: []string{"r1", "r2"}},
		{Nodes: 2, NodeTokens: [][]string{{"1"}}},
		{Nodes: 2, NodeTokens: [][]string{{"1"}, {}}},
		{Nodes: 2, NodeTokens: [][]string{{"1"}, {"x"}}},
		{Nodes: 2, NodeTokens: [][]string{{"1", "2"}, {"2"}}},
		{Shards: -1},
		{Shards: 1 << 20},
		{ShardAwarePort: true},
	} {
		c, err := cqlsim.Start(opts)
		if err == nil {
			c.Close()
			t.Errorf("Start(%+v) succeeded, want an error", opts)
		} else if !strings.HasPrefix(err.Error(), "cqlsim: ") {
			t.Errorf("Start(%+v) error %q does not say it comes from cqlsim", opts, err)
		}
	}
}

// TestPreparedStatementsAreKnownPerNode: as on Cassandra, each node has its own prepared
// statement cache. A statement prepared on node 1 is UNPREPARED on node 2 until it is prepared
// there too (with the same id), and a node remembers it across a restart.
func TestPreparedStatementsAreKnownPerNode(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	addrs := c.Addrs()
	one, two := dialRaw(t, addrs[0]), dialRaw(t, addrs[1])
	one.startup(nil)
	two.startup(nil)
	prepare := func(rc *rawConn, stream int16) []byte {
		t.Helper()
		rc.send(primitive.ProtocolVersion4, stream, &message.Prepare{Query: "SELECT release_version FROM system.local"})
		p, ok := rc.read().Body.Message.(*message.PreparedResult)
		if !ok {
			t.Fatal("PREPARE was not answered with PREPARED")
		}
		return p.PreparedQueryId
	}
	execute := func(rc *rawConn, stream int16, id []byte) message.Message {
		t.Helper()
		rc.send(primitive.ProtocolVersion4, stream, &message.Execute{QueryId: id, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
		return rc.read().Body.Message
	}
	batch := func(rc *rawConn, stream int16, id []byte) message.Message {
		t.Helper()
		rc.send(primitive.ProtocolVersion4, stream, &message.Batch{Type: primitive.BatchTypeLogged, Consistency: primitive.ConsistencyLevelOne,
			Children: []*message.BatchChild{{Id: id}}})
		return rc.read().Body.Message
	}

	id := prepare(one, 1)
	if !c.KnowsPrepared(0, id) || c.KnowsPrepared(1, id) || c.KnowsPrepared(2, id) {
		t.Errorf("KnowsPrepared after preparing on node 1 = %v, %v, %v; want true, false, false",
			c.KnowsPrepared(0, id), c.KnowsPrepared(1, id), c.KnowsPrepared(2, id))
	}
	if m, ok := execute(one, 2, id).(*message.RowsResult); !ok {
		t.Fatalf("EXECUTE on the node that prepared: got %v, want rows", m)
	}
	if u, ok := execute(two, 3, id).(*message.Unprepared); !ok || !slices.Equal(u.Id, id) {
		t.Fatalf("EXECUTE on another node: got %v, want UNPREPARED %x", u, id)
	}
	if u, ok := batch(two, 4, id).(*message.Unprepared); !ok || !slices.Equal(u.Id, id) {
		t.Fatalf("BATCH on another node: got %v, want UNPREPARED %x", u, id)
	}
	if id2 := prepare(two, 5); !slices.Equal(id2, id) {
		t.Fatalf("the same text prepared on node 2 has id %x, on node 1 %x", id2, id)
	}
	if m, ok := execute(two, 6, id).(*message.RowsResult); !ok {
		t.Fatalf("EXECUTE after preparing on node 2: got %v, want rows", m)
	}
	if !c.KnowsPrepared(1, id) {
		t.Error("KnowsPrepared(1) is false after preparing on node 2")
	}

	// A restart keeps what the node knew.
	if err := c.StopNode(1); err != nil {
		t.Fatal(err)
	}
	if err := c.StartNode(1); err != nil {
		t.Fatal(err)
	}
	again := dialRaw(t, addrs[1])
	again.startup(nil)
	if m, ok := execute(again, 7, id).(*message.RowsResult); !ok {
		t.Fatalf("EXECUTE after node 2 restarted: got %v, want rows", m)
	}
}

// TestNodeDataCenters: each node reports its own data center, rack and tokens, in system.local
// and in the others' system.peers, as a multi-data-center cluster does; a node the lists leave
// out gets DataCenter and Rack.
func TestNodeDataCenters(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, DataCenter: "dc0", Rack: "r0",
		NodeDataCenters: []string{"dc1", "dc2"}, NodeRacks: []string{"", "r2"},
		NodeTokens: [][]string{{"-100", "100"}, {"0"}, {"200"}}})
	want := map[string]string{}
	for i, where := range []string{"dc1/r0/-100,100", "dc2/r2/0", "dc0/r0/200"} {
		host, _, _ := net.SplitHostPort(c.Addrs()[i])
		want[host] = where
	}
	ctx := context.Background()
	for _, node := range c.Addrs() {
		host, _, _ := net.SplitHostPort(node)
		s, err := native.Connect(ctx, native.Config{Hosts: []string{node}, DisablePeerDiscovery: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := map[string]string{}
		for _, q := range []string{"SELECT broadcast_address, data_center, rack, tokens FROM system.local", "SELECT peer, data_center, rack, tokens FROM system.peers"} {
			res, err := s.Execute(ctx, native.Query(q))
			if err != nil {
				t.Fatalf("%s on %s: %v", q, node, err)
			}
			for row, err := range res.All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				var addr net.IP
				var dc, rack string
				var tokens []string
				if err := row.Scan(&addr, &dc, &rack, &tokens); err != nil {
					t.Fatal(err)
				}
				slices.Sort(tokens)
				got[addr.String()] = dc + "/" + rack + "/" + strings.Join(tokens, ",")
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("node %s reports %v, want %v", host, got, want)
		}
	}
}
