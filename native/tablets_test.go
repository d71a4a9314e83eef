package native_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// tabletPass writes and reads keys 0..n-1 of tb.one (single-column partition key) and tb.two
// (composite key) and returns what cqlsim counted meanwhile: requests that reached a replica of
// their tablet on its shard, the others, the tablet descriptions sent, and the requests that
// reached another shard than their partition's.
func tabletPass(t *testing.T, cl *cqlsim.Cluster, s *native.Session, stmts [4]*native.Prepared, n int) (cqlsim.TabletStats, int64) {
	t.Helper()
	before, shBefore := cl.TabletStats(), cl.ShardStats()
	for k := range n {
		b := fmt.Sprint("b", k*7919)
		for _, st := range []native.Statement{stmts[0].Bind(k, k), stmts[1].Bind(k), stmts[2].Bind(k, b, 1, k), stmts[3].Bind(k, b)} {
			if _, err := s.Execute(ctxT(t), st); err != nil {
				t.Fatalf("key %d: %v", k, err)
			}
		}
	}
	after, shAfter := cl.TabletStats(), cl.ShardStats()
	return cqlsim.TabletStats{
		OnReplica:  after.OnReplica - before.OnReplica,
		OffReplica: after.OffReplica - before.OffReplica,
		Payloads:   after.Payloads - before.Payloads,
	}, shAfter.OffShard - shBefore.OffShard
}

func tabletStatements(t *testing.T, s *native.Session) [4]*native.Prepared {
	t.Helper()
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS tb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS tb.one (k int PRIMARY KEY, v int)")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS tb.two (a int, b text, c int, v int, PRIMARY KEY ((a, b), c))")
	var out [4]*native.Prepared
	for i, cql := range []string{
		"INSERT INTO tb.one (k, v) VALUES (?, ?)", "SELECT v FROM tb.one WHERE k = ?",
		"INSERT INTO tb.two (a, b, c, v) VALUES (?, ?, ?, ?)", "SELECT v FROM tb.two WHERE a = ? AND b = ?",
	} {
		p, err := s.Prepare(ctxT(t), cql)
		if err != nil {
			t.Fatalf("prepare %q: %v", cql, err)
		}
		out[i] = p
	}
	return out
}

// With tablets, the token ring does not say where a partition lives: the session learns each
// tablet from the node that got a request for it without holding a replica (or on another
// shard), and from then on sends the tablet's requests to its replicas, on their shard.
func TestTabletRouting(t *testing.T) {
	const tablets, keys = 8, 200
	cl, s := simClusterSession(t, cqlsim.Options{Nodes: 3, Shards: 4, ShardAwarePort: true, Tablets: tablets})
	stmts := tabletStatements(t, s)

	// Two tables of 8 tablets each: at most one misrouted request per tablet, as requests
	// run one at a time.
	first, _ := tabletPass(t, cl, s, stmts, keys)
	t.Logf("first pass: %+v", first)
	if first.OnReplica+first.OffReplica != 4*keys {
		t.Fatalf("cqlsim counted %d requests on tablet tables, want %d", first.OnReplica+first.OffReplica, 4*keys)
	}
	if first.OffReplica > 2*tablets || first.Payloads != first.OffReplica {
		t.Errorf("first pass: %d requests missed their tablet's replicas (%d descriptions sent), want at most one per tablet (%d)", first.OffReplica, first.Payloads, 2*tablets)
	}
	second, offShard := tabletPass(t, cl, s, stmts, keys)
	if second.OffReplica != 0 || second.Payloads != 0 || offShard != 0 {
		t.Errorf("once every tablet is known: %+v and %d requests on another shard, want every request on a replica's shard", second, offShard)
	}

	// The session lists a known tablet's replicas; the coordinator is one of them.
	for k := range 20 {
		key := binary.BigEndian.AppendUint32(nil, uint32(k))
		addrs := s.AppendTabletReplicas(nil, "tb", "one", key)
		res, err := s.Execute(ctxT(t), stmts[1].Bind(k))
		if err != nil {
			t.Fatal(err)
		}
		if len(addrs) != 2 || !slices.Contains(addrs, res.Host()) {
			t.Errorf("key %d: AppendTabletReplicas = %v, want the tablet's 2 replicas, one of them %s (the coordinator)", k, addrs, res.Host())
		}
	}
	if addrs := s.AppendTabletReplicas(nil, "tb", "nosuch", []byte{0, 0, 0, 1}); addrs != nil {
		t.Errorf("AppendTabletReplicas on a table without known tablets = %v, want nothing", addrs)
	}

	// The tablets move (every replica to the next node and shard): the session learns them again.
	cl.MoveTablets()
	moved, _ := tabletPass(t, cl, s, stmts, keys)
	t.Logf("after the move: %+v", moved)
	if moved.OffReplica == 0 || moved.OffReplica > 2*tablets {
		t.Errorf("after the move: %d requests missed their tablet's replicas, want between 1 and one per tablet (%d)", moved.OffReplica, 2*tablets)
	}
	again, offShard := tabletPass(t, cl, s, stmts, keys)
	if again.OffReplica != 0 || offShard != 0 {
		t.Errorf("once the moved tablets are known: %+v and %d requests on another shard, want every request on a replica's shard", again, offShard)
	}

	// A table dropped and made again has tablets of its own: the session forgets the old ones
	// (on the schema change event, which reaches it a moment after the DROP returns).
	mustExec(t, s, "DROP TABLE tb.one")
	mustExec(t, s, "CREATE TABLE tb.one (k int PRIMARY KEY, v int)")
	stmts = tabletStatements(t, s)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, _ := tabletPass(t, cl, s, stmts, 40)
		if p.Payloads > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("after the table was dropped and made again, the session still routes by the old table's tablets")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A node that offers no tablets routing (Cassandra, or cqlsim without Tablets) sends no
// tablet description, and the session routes by the token ring; with Tablets, the answer to a
// misrouted request still reaches the application whole, with the description in its custom
// payload.
func TestTabletDescriptionInResult(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{Nodes: 3, Shards: 2, Tablets: 4}, func(c *native.Config) { c.Routing = native.RoundRobin })
	stmts := tabletStatements(t, s)
	if _, err := s.Execute(ctxT(t), stmts[0].Bind(1, 10)); err != nil {
		t.Fatal(err)
	}
	before := cl.TabletStats().Payloads
	seen := 0
	for range 12 { // round-robin over three nodes: some reach no replica
		res, err := s.Execute(ctxT(t), stmts[1].Bind(1))
		if err != nil {
			t.Fatal(err)
		}
		var v int
		row, ok := res.First()
		if !ok || row.Scan(&v) != nil || v != 10 {
			t.Fatalf("SELECT answered %d rows (v %d), want the row with 10", res.Len(), v)
		}
		if b, ok := res.CustomPayload()[proto.TabletsRoutingPayload]; ok {
			seen++
			tab, err := proto.DecodeTablet(b)
			if err != nil || len(tab.Replicas) != 2 {
				t.Errorf("tablet description %x: %+v, %v; want a tablet with 2 replicas", b, tab, err)
			}
		}
	}
	if sent := cl.TabletStats().Payloads - before; seen == 0 || int64(seen) != sent {
		t.Errorf("%d results carried a tablet description, cqlsim sent %d; want the same, above 0", seen, sent)
	}
}

// Schema events are missed while no control connection listens: when the session has to open
// a new one, it forgets every tablet (a table may have been made again without tablets, which
// no node would then correct) and learns them again from the nodes.
func TestTabletsForgottenWhenControlReconnects(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{Nodes: 3, Shards: 2, ShardAwarePort: true, Tablets: 8})
	stmts := tabletStatements(t, s)
	tabletPass(t, cl, s, stmts, 100)
	if p, _ := tabletPass(t, cl, s, stmts, 100); p.OffReplica != 0 {
		t.Fatalf("with every tablet known: %+v, want every request on a replica", p)
	}
	// Node 0 holds the control connection (the only contact point). Every tablet has a
	// replica on node 1 or 2 (replication factor 2), so the known tablets route around it.
	if err := cl.StopNode(0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		p, _ := tabletPass(t, cl, s, stmts, 40)
		if p.Payloads > 0 {
			break // routed by the token ring again: the tablets were forgotten
		}
		if time.Now().After(deadline) {
			t.Fatal("the control connection moved to another node, and the session still routes by the tablets it knew")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cl.StartNode(0); err != nil {
		t.Fatal(err)
	}
}

// With Config.LocalDC, a tablet's replicas in the local data center come first: once the
// tablets are known, every request goes to the local replica, on its shard.
func TestTabletRoutingLocalDC(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{Nodes: 4, Shards: 2, ShardAwarePort: true, Tablets: 8,
		NodeDataCenters: []string{"dc1", "dc1", "dc2", "dc2"}}, func(c *native.Config) { c.LocalDC = "dc1" })
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS tb WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}")
	stmts := tabletStatements(t, s)
	tabletPass(t, cl, s, stmts, 100)
	p, offShard := tabletPass(t, cl, s, stmts, 100)
	if p.OffReplica != 0 || offShard != 0 {
		t.Errorf("with every tablet known: %+v and %d requests on another shard, want every request on a replica's shard", p, offShard)
	}
	local := map[string]bool{cl.Addrs()[0]: true, cl.Addrs()[1]: true}
	for k := range 50 {
		res, err := s.Execute(ctxT(t), stmts[1].Bind(k))
		if err != nil {
			t.Fatal(err)
		}
		if !local[res.Host()] {
			t.Fatalf("key %d: answered by %s, outside LocalDC dc1 (%v)", k, res.Host(), cl.Addrs()[:2])
		}
	}
}
