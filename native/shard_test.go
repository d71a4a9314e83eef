package native_test

import (
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// shardedSim starts a cqlsim cluster of three nodes emulating ScyllaDB with four shards each,
// with a shard-aware port when aware, and connects a session to it.
func shardedSim(t *testing.T, aware bool, mod ...func(*native.Config)) (*cqlsim.Cluster, *native.Session) {
	t.Helper()
	return simClusterSession(t, cqlsim.Options{Nodes: 3, Shards: 4, ShardAwarePort: aware}, mod...)
}

// awaitShardConns waits until the nodes' open connections per shard are want(node) (the
// server notices closed connections a moment later), and fails with the last counts.
func awaitShardConns(t *testing.T, cl *cqlsim.Cluster, want func(node int) []int) {
	t.Helper()
	var got [3][]int
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok := true
		for i := range 3 {
			got[i] = cl.ShardConns(i)
			ok = ok && slices.Equal(got[i], want(i))
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("connections per shard on the three nodes: %v, want %v %v %v", got, want(0), want(1), want(2))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// onePerShard is the connections a sharded node has from one session: one per shard, and on
// the contact point (node 0) the control connection, its first connection, to which its
// ordinary port gave shard 0.
func onePerShard(node int) []int {
	if node == 0 {
		return []int{2, 1, 1, 1}
	}
	return []int{1, 1, 1, 1}
}

// runKeyed writes and reads n rows by partition key, through a single-column and a composite
// partition key, and returns how many of those requests reached the shard owning their
// partition and how many another one.
func runKeyed(t *testing.T, cl *cqlsim.Cluster, s *native.Session, n int) (on, off int64) {
	t.Helper()
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS sh WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS sh.one (k int PRIMARY KEY, v int)")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS sh.two (a int, b text, c int, v int, PRIMARY KEY ((a, b), c))")
	prep := func(cql string) *native.Prepared {
		p, err := s.Prepare(ctxT(t), cql)
		if err != nil {
			t.Fatalf("prepare %q: %v", cql, err)
		}
		return p
	}
	ins1, sel1 := prep("INSERT INTO sh.one (k, v) VALUES (?, ?)"), prep("SELECT v FROM sh.one WHERE k = ?")
	ins2, sel2 := prep("INSERT INTO sh.two (a, b, c, v) VALUES (?, ?, ?, ?)"), prep("SELECT v FROM sh.two WHERE a = ? AND b = ?")
	before := cl.ShardStats()
	for k := range n {
		b := fmt.Sprint("b", k*7919)
		for _, st := range []native.Statement{ins1.Bind(k, k), sel1.Bind(k), ins2.Bind(k, b, 1, k), sel2.Bind(k, b)} {
			if _, err := s.Execute(ctxT(t), st); err != nil {
				t.Fatalf("key %d: %v", k, err)
			}
		}
	}
	after := cl.ShardStats()
	return after.OnShard - before.OnShard, after.OffShard - before.OffShard
}

// On a ScyllaDB node, the session keeps one connection per shard and sends each request
// whose partition it knows to the shard owning it: through the shard-aware port, through the
// node's ordinary port when the node has no shard-aware port or the session may not use it,
// and with a custom Dialer (which cannot choose the local port).
func TestShardAwarePools(t *testing.T) {
	cases := []struct {
		name  string
		aware bool
		mod   func(*native.Config)
	}{
		{"shard-aware port", true, func(*native.Config) {}},
		{"ordinary port", false, func(*native.Config) {}},
		{"shard-aware port disabled", true, func(c *native.Config) { c.DisableShardAwarePort = true }},
		{"custom dialer", true, func(c *native.Config) { c.Dialer = &net.Dialer{} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cl, s := shardedSim(t, tc.aware, tc.mod)
			awaitShardConns(t, cl, onePerShard)
			on, off := runKeyed(t, cl, s, 100)
			if off != 0 || on != 400 {
				t.Errorf("keyed requests: %d on the owning shard, %d on another; want 400 and 0", on, off)
			}
		})
	}
}

// With shard awareness disabled a ScyllaDB node is an ordinary node: ConnsPerHost
// connections, requests on whichever shard serves them (the check above can fail).
func TestShardAwarenessDisabled(t *testing.T) {
	cl, s := shardedSim(t, true, func(c *native.Config) {
		c.DisableShardAwareness = true
		c.ConnsPerHost = 2
	})
	total := func(node int) int {
		n := 0
		for _, c := range cl.ShardConns(node) {
			n += c
		}
		return n
	}
	pollUntil(t, 10*time.Second, "3 connections on node 0 (two and the control connection), 2 on the others", func() bool {
		return total(0) == 3 && total(1) == 2 && total(2) == 2
	})
	on, off := runKeyed(t, cl, s, 100)
	if on+off != 400 || off == 0 {
		t.Errorf("keyed requests: %d on the owning shard, %d on another; want 400 in all, some on another shard", on, off)
	}
}

// A sharded node that restarts gets one connection per shard again, and requests keep
// reaching their shards.
func TestShardAwarePoolAfterRestart(t *testing.T) {
	cl, s := shardedSim(t, true)
	awaitShardConns(t, cl, onePerShard)
	if err := cl.StopNode(2); err != nil {
		t.Fatal(err)
	}
	if err := cl.StartNode(2); err != nil {
		t.Fatal(err)
	}
	awaitShardConns(t, cl, onePerShard)
	// The node counts a connection when it accepts it, the session once its handshake is
	// done: wait for the session too, or the requests of a shard whose connection is still
	// being opened go to another.
	pollUntil(t, 10*time.Second, "the session's pools cover every shard again", func() bool { return native.ShardsCovered(s) })
	on, off := runKeyed(t, cl, s, 50)
	if off != 0 || on != 200 {
		t.Errorf("keyed requests after the restart: %d on the owning shard, %d on another; want 200 and 0", on, off)
	}
}
