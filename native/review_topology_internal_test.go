package native

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// fakePeer is one row of the fake node's system.peers; nil fields are NULL.
type fakePeer struct {
	peer, rpc   []byte
	hostID      []byte
	dc, rack    []byte
	tokens      []string // nil: NULL
	emptyTokens bool     // an empty set rather than NULL
	schema      []byte   // schema_version; nil: NULL
}

// fakeSchemaVersion is the fake node's own schema_version.
var fakeSchemaVersion = []byte{0x5C, 0x4E, 0x3A, 0x00, 0x00, 0x00, 0x40, 0x00, 0x80, 0x00, 0, 0, 0, 0, 0, 1}

func inet4(s string) []byte { return net.ParseIP(s).To4() }

func textSet(ts []string) []byte {
	var b bytes.Buffer
	_ = primitive.WriteInt(int32(len(ts)), &b)
	for _, t := range ts {
		_ = primitive.WriteInt(int32(len(t)), &b)
		b.WriteString(t)
	}
	return b.Bytes()
}

// fakeNode is a CQL server on 127.0.0.1 answering the system table queries of the control
// connection: system.local (this node, one token), system.peers (peers; peers_v2 is an
// unconfigured table) and an empty system_schema.keyspaces. It can change its peers, fail
// the next system.peers reads and push TOPOLOGY_CHANGE events to the connections that
// registered.
type fakeNode struct {
	addr      string
	mu        sync.Mutex
	peers     []fakePeer
	failPeers int // how many of the next system.peers reads fail
	events    []*fakeNodeConn
	accepted  int // connections accepted
}

type fakeNodeConn struct {
	nc net.Conn
	mu sync.Mutex // serialises writes
}

func (n *fakeNode) setPeers(peers []fakePeer, fail int) {
	n.mu.Lock()
	n.peers, n.failPeers = peers, fail
	n.mu.Unlock()
}

// pushTopologyChange sends a TOPOLOGY_CHANGE event to every registered connection.
func (n *fakeNode) pushTopologyChange(t *testing.T, change primitive.TopologyChangeType, ip string, port int) {
	n.push(t, &message.TopologyChangeEvent{ChangeType: change, Address: &primitive.Inet{Addr: net.ParseIP(ip).To4(), Port: int32(port)}})
}

// pushStatusChange sends a STATUS_CHANGE event to every registered connection.
func (n *fakeNode) pushStatusChange(t *testing.T, change primitive.StatusChangeType, ip string, port int) {
	n.push(t, &message.StatusChangeEvent{ChangeType: change, Address: &primitive.Inet{Addr: net.ParseIP(ip).To4(), Port: int32(port)}})
}

func (n *fakeNode) push(t *testing.T, msg message.Message) {
	n.mu.Lock()
	conns := append([]*fakeNodeConn(nil), n.events...)
	n.mu.Unlock()
	if len(conns) == 0 {
		t.Fatal("no connection registered for events")
	}
	ev := frame.NewFrame(primitive.ProtocolVersion4, -1, msg)
	for _, c := range conns {
		c.mu.Lock()
		_ = frame.NewCodec().EncodeFrame(ev, c.nc)
		c.mu.Unlock()
	}
}

func startFakeNode(t *testing.T, peers []fakePeer) *fakeNode {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &fakeNode{addr: ln.Addr().String(), peers: peers}
	col := func(table, name string, typ datatype.DataType) *message.ColumnMetadata {
		return &message.ColumnMetadata{Keyspace: "system", Table: table, Name: name, Type: typ}
	}
	rows := func(req *frame.Frame, cols []*message.ColumnMetadata, data message.RowSet) *frame.Frame {
		return frame.NewFrame(req.Header.Version, req.Header.StreamId, &message.RowsResult{
			Metadata: &message.RowsMetadata{ColumnCount: int32(len(cols)), Columns: cols}, Data: data})
	}
	hostID := []byte{0xC0, 0xD1, 0xD2, 0x1E, 0xBB, 0x01, 0x41, 0x96, 0x86, 0xDB, 0xBC, 0x31, 0x7B, 0xC1, 0x79, 0x6A}
	tokens := datatype.NewSet(datatype.Varchar)
	queries := func(req *frame.Frame) *frame.Frame {
		q := req.Body.Message.(*message.Query)
		text := strings.ToLower(q.Query)
		switch {
		case strings.Contains(text, "from system.local"):
			return rows(req, []*message.ColumnMetadata{
				col("local", "key", datatype.Varchar), col("local", "rpc_address", datatype.Inet),
				col("local", "host_id", datatype.Uuid), col("local", "data_center", datatype.Varchar),
				col("local", "rack", datatype.Varchar), col("local", "partitioner", datatype.Varchar),
				col("local", "release_version", datatype.Varchar), col("local", "tokens", tokens),
				col("local", "schema_version", datatype.Uuid),
			}, message.RowSet{{[]byte("local"), inet4("127.0.0.1"), hostID, []byte("dc1"), []byte("rack1"),
				[]byte("org.apache.cassandra.dht.Murmur3Partitioner"), []byte("3.11.2"), textSet([]string{"0"}),
				fakeSchemaVersion}})
		case strings.Contains(text, "system.peers_v2"):
			return frame.NewFrame(req.Header.Version, req.Header.StreamId, &message.Invalid{ErrorMessage: "unconfigured table peers_v2"})
		case strings.Contains(text, "from system.peers"):
			n.mu.Lock()
			peers, fail := n.peers, n.failPeers > 0
			if fail {
				n.failPeers--
			}
			n.mu.Unlock()
			if fail {
				return frame.NewFrame(req.Header.Version, req.Header.StreamId, &message.ServerError{ErrorMessage: "injected failure"})
			}
			var data message.RowSet
			for _, p := range peers {
				var ts []byte
				if p.tokens != nil || p.emptyTokens {
					ts = textSet(p.tokens)
				}
				data = append(data, message.Row{p.peer, p.rpc, p.hostID, p.dc, p.rack, []byte("3.11.2"), ts, p.schema})
			}
			return rows(req, []*message.ColumnMetadata{
				col("peers", "peer", datatype.Inet), col("peers", "rpc_address", datatype.Inet),
				col("peers", "host_id", datatype.Uuid), col("peers", "data_center", datatype.Varchar),
				col("peers", "rack", datatype.Varchar), col("peers", "release_version", datatype.Varchar),
				col("peers", "tokens", tokens), col("peers", "schema_version", datatype.Uuid),
			}, data)
		case strings.Contains(text, "system_schema.keyspaces"):
			return rows(req, []*message.ColumnMetadata{
				{Keyspace: "system_schema", Table: "keyspaces", Name: "keyspace_name", Type: datatype.Varchar},
				{Keyspace: "system_schema", Table: "keyspaces", Name: "replication", Type: datatype.NewMap(datatype.Varchar, datatype.Varchar)},
			}, nil)
		}
		return rows(req, []*message.ColumnMetadata{col("local", "key", datatype.Varchar)}, nil)
	}
	var wg sync.WaitGroup
	var open []net.Conn // guarded by n.mu
	t.Cleanup(func() {
		_ = ln.Close()
		n.mu.Lock()
		for _, nc := range open {
			_ = nc.Close()
		}
		n.mu.Unlock()
		wg.Wait()
	})
	codec := frame.NewCodec()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			fc := &fakeNodeConn{nc: nc}
			n.mu.Lock()
			open = append(open, nc)
			n.accepted++
			n.mu.Unlock()
			wg.Add(1)
			go func() { // one request at a time: read it, answer it
				defer wg.Done()
				defer nc.Close()
				for {
					req, err := codec.DecodeFrame(nc)
					if err != nil {
						return
					}
					var resp *frame.Frame
					switch req.Body.Message.(type) {
					case *message.Options:
						resp = frame.NewFrame(req.Header.Version, req.Header.StreamId, &message.Supported{})
					case *message.Query:
						resp = queries(req)
					case *message.Register:
						n.mu.Lock()
						n.events = append(n.events, fc)
						n.mu.Unlock()
						resp = frame.NewFrame(req.Header.Version, req.Header.StreamId, &message.Ready{})
					default: // STARTUP
						resp = frame.NewFrame(req.Header.Version, req.Header.StreamId, &message.Ready{})
					}
					fc.mu.Lock()
					err = codec.EncodeFrame(resp, nc)
					fc.mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return n
}

// connectFakeNode connects a session to a fake node (see startFakeNode), closed when the test
// ends; connsPerHost 0 keeps the default.
func connectFakeNode(t *testing.T, addr string, connsPerHost int) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Connect(ctx, Config{Hosts: []string{addr}, ConnsPerHost: connsPerHost, Timeout: 5 * time.Second, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A system.peers row left half-written (a "ghost" peer after a node replacement, or a node
// still bootstrapping: no host_id, no tokens) is not a node of the cluster: gocql and the
// Python driver skip such rows. Taking it in made the session dial it forever and, the ring
// missing its tokens, turned token-aware routing off for the whole cluster.
func TestReviewInvalidPeerRowsAreSkipped(t *testing.T) {
	id := func(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }
	good := fakePeer{peer: inet4("127.0.0.2"), rpc: inet4("127.0.0.2"), hostID: id(2), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{"100"}}
	cases := map[string]fakePeer{
		"null host_id, rpc_address and tokens": {peer: inet4("127.0.0.3")},
		"null tokens":                          {peer: inet4("127.0.0.3"), rpc: inet4("127.0.0.3"), hostID: id(3), dc: []byte("dc1"), rack: []byte("rack1")},
		"empty tokens":                         {peer: inet4("127.0.0.3"), rpc: inet4("127.0.0.3"), hostID: id(3), dc: []byte("dc1"), rack: []byte("rack1"), emptyTokens: true},
		"null host_id":                         {peer: inet4("127.0.0.3"), rpc: inet4("127.0.0.3"), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{"200"}},
		"null peer and rpc_address":            {hostID: id(3), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{"200"}},
		"the contact point listing itself":     {peer: inet4("127.0.0.1"), rpc: inet4("127.0.0.1"), hostID: id(3), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{"200"}},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			addr := startFakeNode(t, []fakePeer{good, bad}).addr
			s := connectFakeNode(t, addr, 0)
			hosts := s.Hosts()
			var addrs []string
			for _, h := range hosts {
				addrs = append(addrs, h.Addr)
			}
			if len(hosts) != 2 {
				t.Errorf("hosts %v: want the contact point and the one valid peer", addrs)
			}
			if !s.state.Load().snap.TokenAware() {
				t.Errorf("token-aware routing is off with hosts %v", addrs)
			}
		})
	}
}

// When the topology refresh an event asked for fails (here the system.peers read, three times
// in a row), the control connection tries again: a node that joined is not left out until
// another event happens to come.
func TestReviewFailedRefreshIsRetried(t *testing.T) {
	id := func(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }
	peer := func(ip string, b byte, token string) fakePeer {
		return fakePeer{peer: inet4(ip), rpc: inet4(ip), hostID: id(b), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{token}}
	}
	n := startFakeNode(t, []fakePeer{peer("127.0.0.2", 2, "100")})
	s := connectFakeNode(t, n.addr, 0)
	if h := s.Hosts(); len(h) != 2 {
		t.Fatalf("%d hosts at first, want 2", len(h))
	}
	n.setPeers([]fakePeer{peer("127.0.0.2", 2, "100"), peer("127.0.0.3", 3, "200")}, 3)
	n.pushTopologyChange(t, primitive.TopologyChangeTypeNewNode, "127.0.0.3", portOf(n.addr))
	deadline := time.Now().Add(20 * time.Second)
	for len(s.Hosts()) != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the node that joined is still unknown 20s after its NEW_NODE event: %d hosts", len(s.Hosts()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A DOWN event for a node the session still reaches does not stop the session from using it:
// the connections say whether a node is up, not gossip. (Regression coverage: passed before
// the review.)
func TestReviewDownEventForAReachableNode(t *testing.T) {
	id := func(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }
	n := startFakeNode(t, nil)
	s := connectFakeNode(t, n.addr, 0)
	n.pushStatusChange(t, primitive.StatusChangeTypeDown, "127.0.0.1", portOf(n.addr))
	// A later event's refresh shows the DOWN event was handled before.
	n.setPeers([]fakePeer{{peer: inet4("127.0.0.2"), rpc: inet4("127.0.0.2"), hostID: id(2), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{"100"}}}, 0)
	n.pushTopologyChange(t, primitive.TopologyChangeTypeNewNode, "127.0.0.2", portOf(n.addr))
	deadline := time.Now().Add(20 * time.Second)
	for len(s.Hosts()) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the NEW_NODE event was not handled in 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, h := range s.Hosts() {
		if h.Addr == n.addr && !h.Up {
			t.Errorf("the node is reported down after a DOWN event, though its connections are open")
		}
	}
	for i := range 10 {
		res, err := s.Execute(context.Background(), Query("SELECT key FROM system.local"))
		if err != nil || res.Host() != n.addr {
			t.Fatalf("request %d after a DOWN event for the reachable node: %v", i, err)
		}
	}
}

// A system.peers row that is no node (no host_id or no tokens: a ghost left by a replaced
// node, or one still joining) does not take part in schema agreement either: its stale
// schema_version made AwaitSchemaAgreement wait until its context ended.
func TestSchemaAgreementIgnoresInvalidPeerRows(t *testing.T) {
	id := func(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }
	stale := bytes.Repeat([]byte{0x77}, 16)
	good := fakePeer{peer: inet4("127.0.0.2"), rpc: inet4("127.0.0.2"), hostID: id(2), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{"100"}, schema: fakeSchemaVersion}
	for name, ghost := range map[string]fakePeer{
		"null host_id": {peer: inet4("127.0.0.3"), rpc: inet4("127.0.0.3"), dc: []byte("dc1"), rack: []byte("rack1"), tokens: []string{"200"}, schema: stale},
		"null tokens":  {peer: inet4("127.0.0.3"), rpc: inet4("127.0.0.3"), hostID: id(3), dc: []byte("dc1"), rack: []byte("rack1"), schema: stale},
	} {
		t.Run(name, func(t *testing.T) {
			addr := startFakeNode(t, []fakePeer{good, ghost}).addr
			s := connectFakeNode(t, addr, 0)
			wait, cancelWait := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancelWait()
			if err := s.AwaitSchemaAgreement(wait); err != nil {
				t.Fatalf("AwaitSchemaAgreement with a %s peer row of another schema version: %v", name, err)
			}
		})
	}
}

// Connect opens ConnsPerHost connections per node plus the control connection, no more: the
// first topology snapshot used to start background refills that dialled alongside Connect's
// own, and the extra connection was closed at once.
func TestConnectDialsNoExtraConnections(t *testing.T) {
	for _, per := range []int{1, 2, 4} {
		n := startFakeNode(t, nil)
		s := connectFakeNode(t, n.addr, per)
		// A background dial would have started during Connect; give it time to arrive.
		time.Sleep(500 * time.Millisecond)
		n.mu.Lock()
		got := n.accepted
		n.mu.Unlock()
		s.Close()
		if got != per+1 {
			t.Errorf("ConnsPerHost %d: the node accepted %d connections, want %d (the pool's and the control connection)", per, got, per+1)
		}
	}
}
