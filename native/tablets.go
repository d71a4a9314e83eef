package native

// Tablet-aware routing for ScyllaDB (the TABLETS_ROUTING_V1 extension). A table in a keyspace
// that uses tablets has no replicas on the token ring: each tablet (a token range) has
// replicas of its own, each on a node and a shard, and moves between nodes as the cluster
// balances itself. A node does not publish the tablets; it describes one, in the custom
// payload of a RESULT, when a request for a partition of the tablet reached a node or shard
// holding no replica of it. The session keeps what it learns per table and sends the next
// requests for the tablet's partitions to its replicas, on their shard.

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cqlbridge/cqlbridge/native/internal/ring"
	"github.com/cqlbridge/cqlbridge/native/internal/topology"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// tabletKey names a table.
type tabletKey struct{ keyspace, table string }

// tabletMap holds the tablets the session learnt, by table. A table's entry is made when a
// statement on it is prepared on a node offering tablet routing, and kept for the session's
// life (an entry without tablets costs a few words); prepared statements hold their table's
// entry, so that a request finds its tablets without a map lookup. The map itself is
// immutable, swapped whole when an entry is added, so that lookup takes no lock.
type tabletMap struct {
	mu     sync.Mutex // orders the swaps
	tables atomic.Pointer[map[tabletKey]*tabletTable]
}

// table returns the entry of keyspace.table, made on first use.
func (m *tabletMap) table(keyspace, table string) *tabletTable {
	k := tabletKey{keyspace, table}
	if t := m.lookup(k); t != nil {
		return t
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var old map[tabletKey]*tabletTable
	if p := m.tables.Load(); p != nil {
		old = *p
	}
	if t := old[k]; t != nil {
		return t
	}
	tables := make(map[tabletKey]*tabletTable, len(old)+1)
	maps.Copy(tables, old)
	t := &tabletTable{}
	tables[k] = t
	m.tables.Store(&tables)
	return t
}

// lookup returns the entry of k, or nil when there is none.
func (m *tabletMap) lookup(k tabletKey) *tabletTable {
	if p := m.tables.Load(); p != nil {
		return (*p)[k]
	}
	return nil
}

// forget drops the tablets learnt for keyspace.table, for every table of keyspace when table
// is "" (the table was dropped or made again, or the keyspace's replication changed), or for
// every table when both are "".
func (m *tabletMap) forget(keyspace, table string) {
	p := m.tables.Load()
	if p == nil {
		return
	}
	for k, t := range *p {
		if (keyspace == "" || k.keyspace == keyspace) && (table == "" || k.table == table) {
			t.reset()
		}
	}
}

// tabletTable holds one table's tablets: non-overlapping, sorted by last token, in an
// immutable slice swapped whole, so that requests read it without a lock.
type tabletTable struct {
	mu   sync.Mutex // orders learn and reset
	list atomic.Pointer[[]*tablet]
}

// tablet is a learnt tablet, with its replicas resolved to the nodes of a topology snapshot.
type tablet struct {
	proto.Tablet
	nodes atomic.Pointer[tabletNodes] // resolved for the snapshot it names; replaced when stale
}

// tabletNodes are a tablet's replicas as nodes of snap: nodes[i] is a node index, shards[i]
// the shard holding the tablet on it. Replicas whose host id snap does not know are left out.
type tabletNodes struct {
	snap   *topology.Snapshot
	nodes  []int32
	shards []int
}

// find returns the tablet holding token, or nil when none is known.
func (t *tabletTable) find(token int64) *tablet {
	p := t.list.Load()
	if p == nil {
		return nil
	}
	list := *p
	i, _ := slices.BinarySearchFunc(list, token, func(tb *tablet, token int64) int {
		switch {
		case tb.LastToken < token:
			return -1
		case tb.LastToken > token:
			return 1
		}
		return 0
	})
	if i < len(list) && list[i].Contains(token) {
		return list[i]
	}
	return nil
}

// learn records nt, dropping the tablets whose range overlaps its own (those the node's
// tablets were split, merged or moved from). A tablet known already, as nt describes it,
// changes nothing: nodes describe a tablet again with every request that misses its replicas
// (round-robin routing, WithHost, a replica outside the local data center, the shim's
// policies), and the list is not rebuilt for those.
func (t *tabletTable) learn(nt proto.Tablet) {
	if known := t.find(nt.LastToken); known != nil && sameTablet(&known.Tablet, &nt) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var old []*tablet
	if p := t.list.Load(); p != nil {
		old = *p
	}
	list := make([]*tablet, 0, len(old)+1)
	added := false
	for _, tb := range old {
		if tb.FirstToken < nt.LastToken && nt.FirstToken < tb.LastToken {
			continue // overlaps
		}
		if !added && tb.LastToken > nt.LastToken {
			list = append(list, &tablet{Tablet: nt})
			added = true
		}
		list = append(list, tb)
	}
	if !added {
		list = append(list, &tablet{Tablet: nt})
	}
	t.list.Store(&list)
}

// sameTablet reports whether a and b have the same range and the same replicas, in order.
func sameTablet(a, b *proto.Tablet) bool {
	return a.FirstToken == b.FirstToken && a.LastToken == b.LastToken && slices.Equal(a.Replicas, b.Replicas)
}

// reset drops every tablet of the table.
func (t *tabletTable) reset() {
	t.mu.Lock()
	t.list.Store(nil)
	t.mu.Unlock()
}

// resolve returns tb's replicas as nodes of snap, resolved once per snapshot. It returns nil
// when snap knows none of them.
func (tb *tablet) resolve(snap *topology.Snapshot) *tabletNodes {
	if n := tb.nodes.Load(); n != nil && n.snap == snap {
		if len(n.nodes) == 0 {
			return nil
		}
		return n
	}
	n := &tabletNodes{snap: snap}
	for _, r := range tb.Replicas {
		if i := snap.IndexOfHostID(r.HostID); i >= 0 && !slices.Contains(n.nodes, i) {
			n.nodes = append(n.nodes, i)
			n.shards = append(n.shards, r.Shard)
		}
	}
	tb.nodes.Store(n)
	if len(n.nodes) == 0 {
		return nil
	}
	return n
}

// shardOn returns the shard holding the tablet on node, or -1 when node holds no replica.
func (n *tabletNodes) shardOn(node int) int {
	if n == nil {
		return -1
	}
	for i, x := range n.nodes {
		if int(x) == node {
			return n.shards[i]
		}
	}
	return -1
}

// learnTablet records the tablet a node described in the custom payload of its answer to a
// request on info.tablets' table. A payload the session cannot read changes nothing: the
// answer itself is good, and routing only loses the hint.
func learnTablet(info *reqInfo, payload map[string][]byte) {
	v, ok := payload[proto.TabletsRoutingPayload]
	if !ok {
		return
	}
	t, err := proto.DecodeTablet(v)
	if err != nil {
		return
	}
	info.tablets.learn(t)
}

// schemaChanged drops the tablets a schema change makes stale: those of a table dropped or
// made (again), and every table's of a keyspace dropped, made or whose replication changed.
func (m *tabletMap) schemaChanged(sc proto.SchemaChange) {
	switch {
	case sc.Target == "KEYSPACE":
		m.forget(sc.Keyspace, "")
	case sc.Target == "TABLE" && sc.Change != "UPDATED":
		m.forget(sc.Keyspace, sc.Name)
	}
}

// AppendTabletReplicas appends to dst the addresses (as Host.Addr gives them, and as
// Statement.WithHost takes them) of the replicas of the tablet holding the partition of
// keyspace.table whose routing key (its serialized partition key, as Statement.WithRoutingKey
// takes it) is routingKey, in the order the node that described the tablet gave them, and
// returns the extended slice. It appends nothing when the session knows no such tablet: the table does not use tablets (the
// cluster is not ScyllaDB, or the keyspace uses the token ring), no statement on the table was
// prepared yet, or no node has described the tablet yet (see the package documentation on
// routing). Replicas on nodes the session does not know are left out. It does not allocate
// when dst has room.
func (s *Session) AppendTabletReplicas(dst []string, keyspace, table string, routingKey []byte) []string {
	t := s.tablets.lookup(tabletKey{keyspace, table})
	if t == nil {
		return dst
	}
	tb := t.find(ring.Token(routingKey))
	if tb == nil {
		return dst
	}
	st := s.state.Load()
	n := tb.resolve(st.snap)
	if n == nil {
		return dst
	}
	for _, i := range n.nodes {
		dst = append(dst, st.snap.Nodes[i].Addr)
	}
	return dst
}
