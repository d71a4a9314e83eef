package cqlsim

// ScyllaDB tablets routing emulation (Options.Tablets): the tablet layout of tablet tables,
// their replicas, the TABLETS_ROUTING_V1 extension that tells an opted-in driver where a
// partition lives, and the accounting behind Cluster.TabletStats.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

const (
	// tabletsOption is ScyllaDB's tablets routing extension, offered in SUPPORTED with the
	// value "" and opted in to by a STARTUP option of that name.
	tabletsOption = "TABLETS_ROUTING_V1"
	// tabletsPayloadKey is the custom payload entry that carries a tablet's routing
	// information.
	tabletsPayloadKey = "tablets-routing-v1"
	// maxTablets bounds Options.Tablets.
	maxTablets = 65536
	// stackDCs is how many data centers' replica counts a request's tablet lookup keeps on
	// the stack; a cluster of more data centers allocates them.
	stackDCs = 8
)

// TabletStats counts EXECUTEs of statements on tablet tables (Options.Tablets) whose whole
// partition key is bound: they are counted when they arrive, as in ShardStats, whether the
// statement then succeeds or fails, and so are those of clients that did not opt in to
// tablets routing. EXECUTEs answered UNPREPARED and those with an unset or null
// partition-key value are not counted, nor are statements on tables of the system keyspaces.
type TabletStats struct {
	// OnReplica counts those that reached a replica of the partition's tablet on a
	// connection of that replica's shard.
	OnReplica int64
	// OffReplica counts the others: those that reached a node holding no replica of the
	// tablet, or a replica on a connection of another shard.
	OffReplica int64
	// Payloads counts the tablets-routing-v1 custom payloads attached to results: one per
	// successful OffReplica EXECUTE of a client that opted in, at protocol v4 or later.
	Payloads int64
}

// tabletRing is the tablet layout shared by every tablet table (Options.Tablets > 0) and its
// accounting.
type tabletRing struct {
	count   uint64     // tablets per table
	shards  uint64     // Options.Shards
	hostIDs [][16]byte // host id of each node, by index
	dcs     []string   // the cluster's data centers, sorted
	dcNodes [][]int    // dcNodes[d]: the nodes of data center dcs[d], in index order
	nodeDC  []int      // nodeDC[i]: node i's data center, an index into dcs
	nodePos []int      // nodePos[i]: node i's position in dcNodes[nodeDC[i]]
	gen     atomic.Uint64

	onReplica, offReplica, payloads atomic.Int64
}

// tablet is one tablet of a table, at one generation, for a keyspace's replication.
//
// With perDC nil (SimpleStrategy, and the fallback to one replica), replica j (j < rf) is node
// (base+j) % nodes. Otherwise (NetworkTopologyStrategy) the replicas are perDC[d] nodes of
// each data center dcs[d] in turn, d ascending: the j-th of data center d is its node
// dcNodes[d][(base+j) % len(dcNodes[d])], and rf is the sum of perDC. Either way the replica
// at position p of that list (0-based) is on shard (base+p) % shards.
type tablet struct {
	index uint64
	base  uint64 // index + generation
	rf    int    // replicas, at least 1
	perDC []int  // replicas in each data center (NetworkTopologyStrategy), each at most its nodes; else nil
}

// checkTablets checks Options.Tablets.
func checkTablets(o Options) error {
	if o.Tablets < 0 || o.Tablets > maxTablets {
		return fmt.Errorf("cqlsim: Tablets %d is out of range (0 for no tablets, at most %d)", o.Tablets, maxTablets)
	}
	if o.Tablets > 0 && o.Shards == 0 {
		return fmt.Errorf("cqlsim: Tablets needs Shards > 0 (tablet replicas are shards of nodes)")
	}
	return nil
}

// newTabletRing returns the tablet layout of o for the nodes with the given host ids and data
// centers, or nil without Options.Tablets.
func newTabletRing(o Options, hostIDs [][16]byte, dcOf []string) *tabletRing {
	if o.Tablets == 0 {
		return nil
	}
	r := &tabletRing{count: uint64(o.Tablets), shards: uint64(o.Shards), hostIDs: hostIDs,
		nodeDC: make([]int, len(dcOf)), nodePos: make([]int, len(dcOf))}
	r.dcs = slices.Clone(dcOf)
	slices.Sort(r.dcs)
	r.dcs = slices.Compact(r.dcs)
	r.dcNodes = make([][]int, len(r.dcs))
	for i, dc := range dcOf {
		d, _ := slices.BinarySearch(r.dcs, dc)
		r.nodeDC[i], r.nodePos[i] = d, len(r.dcNodes[d])
		r.dcNodes[d] = append(r.dcNodes[d], i)
	}
	return r
}

// usesTablets reports whether the tables of keyspace ks use tablets (when the cluster has
// them): those of every keyspace but the system ones.
func usesTablets(ks string) bool {
	return !strings.HasPrefix(ks, "system")
}

// tabletBound returns the biased token (token + 2^63, as an unsigned number) where tablet t
// of count starts, which is where tablet t-1 ends: floor(t * (2^64-1) / count). Tablet t
// covers the biased tokens (bound(t), bound(t+1)]; bound(0) is 0 (math.MinInt64) and
// bound(count) is 2^64-1 (math.MaxInt64).
func tabletBound(t, count uint64) uint64 {
	hi, lo := bits.Mul64(t, math.MaxUint64)
	q, _ := bits.Div64(hi, lo, count) // hi < count since t <= count
	return q
}

// tabletIndex returns the tablet of count that holds token: the t with
// bound(t) < biased token <= bound(t+1), that is ceil(biased * count / (2^64-1)) - 1.
// math.MinInt64, which no partition has (Murmur3 maps it to math.MaxInt64), is given to
// tablet 0.
func tabletIndex(token int64, count uint64) uint64 {
	u := uint64(token) ^ 1<<63
	if u == 0 {
		return 0
	}
	hi, lo := bits.Mul64(u, count)
	q, r := bits.Div64(hi, lo, math.MaxUint64) // hi < count <= maxTablets
	if r == 0 {
		return q - 1 // q >= 1: u > 0
	}
	return q
}

// tabletRange returns the tokens (first, last] that tablet t of count covers.
func tabletRange(t, count uint64) (first, last int64) {
	return int64(tabletBound(t, count) ^ 1<<63), int64(tabletBound(t+1, count) ^ 1<<63)
}

// locate returns the tablet holding token, now, for keyspace ks as the engine describes its
// replication now, and false when there is no such keyspace. Under NetworkTopologyStrategy,
// the tablet's perDC is buf (or a new slice when the cluster has more data centers than buf
// holds) and holds, for each data center of the cluster, the keyspace's factor for it capped
// by its nodes; when that leaves no replica, or under another strategy, perDC is nil and rf
// the keyspace's replication factor brought within 1 and the number of nodes.
func (r *tabletRing) locate(e *engine.Engine, ks string, token int64, buf []int) (tablet, bool) {
	var perDC []int
	if len(r.dcs) <= cap(buf) {
		perDC = buf[:len(r.dcs)]
	} else {
		perDC = make([]int, len(r.dcs))
	}
	rf, nts, ok := e.Replication(ks, r.dcs, perDC)
	if !ok {
		return tablet{}, false
	}
	t := tabletIndex(token, r.count)
	tb := tablet{index: t, base: t + r.gen.Load()}
	if nts {
		total := 0
		for d, f := range perDC {
			perDC[d] = min(f, len(r.dcNodes[d]))
			total += perDC[d]
		}
		if total > 0 {
			tb.rf, tb.perDC = total, perDC
			return tb, true
		}
		rf = 1 // no replica in the cluster's data centers: one, as for SimpleStrategy
	}
	tb.rf = min(max(rf, 1), len(r.hostIDs))
	return tb, true
}

// shardOn returns the shard of tb's replica on node i, and false when node i holds no
// replica of tb.
func (r *tabletRing) shardOn(tb tablet, i int) (int, bool) {
	if tb.perDC == nil {
		nodes := uint64(len(r.hostIDs))
		j := (uint64(i) + nodes - tb.base%nodes) % nodes // the replica node i would be
		if j >= uint64(tb.rf) {
			return 0, false
		}
		return int((tb.base + j) % r.shards), true
	}
	d := r.nodeDC[i]
	nodes := uint64(len(r.dcNodes[d]))
	j := (uint64(r.nodePos[i]) + nodes - tb.base%nodes) % nodes // the replica of its data center node i would be
	if j >= uint64(tb.perDC[d]) {
		return 0, false
	}
	p := j // its position among all the replicas
	for _, f := range tb.perDC[:d] {
		p += uint64(f)
	}
	return int((tb.base + p) % r.shards), true
}

// replicaNode returns the node of tb's replica at position p (0-based, p < tb.rf).
func (r *tabletRing) replicaNode(tb tablet, p int) int {
	if tb.perDC == nil {
		return int((tb.base + uint64(p)) % uint64(len(r.hostIDs)))
	}
	d := 0
	for p >= tb.perDC[d] {
		p -= tb.perDC[d]
		d++
	}
	dcNodes := r.dcNodes[d]
	return dcNodes[(tb.base+uint64(p))%uint64(len(dcNodes))]
}

// appendPayload appends the custom payload ([bytes map]) that routes a client to tb: one
// entry, tabletsPayloadKey, whose value is the CQL encoding of
// tuple<bigint, bigint, list<tuple<uuid, int>>>: the tablet's first and last tokens and its
// replicas (host id and shard), in replica order.
func (r *tabletRing) appendPayload(dst []byte, tb tablet) []byte {
	first, last := tabletRange(tb.index, r.count)
	const replicaLen = 4 + 16 + 4 + 4 // the inner tuple: [int 16][uuid][int 4][int shard]
	listLen := 4 + tb.rf*(4+replicaLen)
	valueLen := 4 + 8 + 4 + 8 + 4 + listLen

	dst = binary.BigEndian.AppendUint16(dst, 1) // one entry
	dst = appendString(dst, tabletsPayloadKey)
	dst = binary.BigEndian.AppendUint32(dst, uint32(valueLen))
	dst = binary.BigEndian.AppendUint32(dst, 8)
	dst = binary.BigEndian.AppendUint64(dst, uint64(first))
	dst = binary.BigEndian.AppendUint32(dst, 8)
	dst = binary.BigEndian.AppendUint64(dst, uint64(last))
	dst = binary.BigEndian.AppendUint32(dst, uint32(listLen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(tb.rf))
	for p := range tb.rf {
		dst = binary.BigEndian.AppendUint32(dst, replicaLen)
		dst = binary.BigEndian.AppendUint32(dst, 16)
		dst = append(dst, r.hostIDs[r.replicaNode(tb, p)][:]...)
		dst = binary.BigEndian.AppendUint32(dst, 4)
		dst = binary.BigEndian.AppendUint32(dst, uint32((tb.base+uint64(p))%r.shards))
	}
	return dst
}

// countTablet counts an EXECUTE of the partition with token of a tablet table of keyspace ks
// in Cluster.TabletStats and Cluster.ShardStats (on shard when it reached the replica's
// shard), and returns the custom payload its result owes the client: the tablet's routing
// information when the EXECUTE missed the replica's shard, the client opted in to tablets
// routing and speaks protocol v4 or later (custom payloads appeared in v4); else nil. It
// reports false, counting nothing, when there is no keyspace ks. An EXECUTE that reaches its
// replica's shard allocates nothing here.
func (c *conn) countTablet(h wire.Header, token int64, ks string) ([]byte, bool) {
	cl := c.node.cluster
	r := cl.tablets
	var buf [stackDCs]int
	tb, ok := r.locate(cl.engine, ks, token, buf[:])
	if !ok {
		return nil, false
	}
	if shard, ok := r.shardOn(tb, c.node.index); ok && shard == c.shard {
		r.onReplica.Add(1)
		cl.shardCount.on.Add(1)
		return nil, true
	}
	r.offReplica.Add(1)
	cl.shardCount.off.Add(1)
	if h.Version < 4 || !c.tabletsRouting.Load() {
		return nil, true
	}
	return r.appendPayload(nil, tb), true
}

// withCustomPayload returns a copy of the uncompressed response frame b (protocol v4 or
// later) carrying payload, an encoded [bytes map], where the protocol puts it: after the
// tracing id and the warnings, before the message; the custom payload flag is set and the
// length adjusted. It reports false, and returns b, when b already has a custom payload or
// its body is shorter than its flags say.
func withCustomPayload(b, payload []byte) ([]byte, bool) {
	off, ok := messageStart(b)
	if !ok || b[1]&wire.FlagCustomPayload != 0 {
		return b, false
	}
	out := make([]byte, 0, len(b)+len(payload))
	out = append(out, b[:off]...)
	out = append(out, payload...)
	out = append(out, b[off:]...)
	out[1] |= wire.FlagCustomPayload
	binary.BigEndian.PutUint32(out[5:wire.MaxHeaderLen], uint32(len(out)-wire.MaxHeaderLen))
	return out, true
}

// MoveTablets emulates a tablet migration: every tablet of every tablet table moves by one
// node and one shard, g (the number of calls so far) growing by one in the layout that
// Options.Tablets describes. Under SimpleStrategy, tablet t's replica j, node
// (t+g+j) % Nodes, moves to node (t+g+1+j) % Nodes; under NetworkTopologyStrategy, each
// replica moves to the next node of its own data center (its node (t+g+j) % n of the data
// center's n nodes to its node (t+g+1+j) % n), so every data center keeps its share of
// replicas. The replica at position p of the list moves from shard (t+g+p) % Shards to
// (t+g+1+p) % Shards. A driver's cached routing thus goes stale, and the next EXECUTE it
// routes by it gets a new tablets-routing-v1 payload. Without Options.Tablets it does
// nothing. It is safe for concurrent use.
func (c *Cluster) MoveTablets() {
	if c.tablets != nil {
		c.tablets.gen.Add(1)
	}
}

// TabletStats returns how many EXECUTEs with a known partition of a tablet table reached a
// replica's shard and how many did not, and how many tablets-routing-v1 payloads were sent
// (see TabletStats), since Start. All are 0 without Options.Tablets.
func (c *Cluster) TabletStats() TabletStats {
	r := c.tablets
	if r == nil {
		return TabletStats{}
	}
	return TabletStats{OnReplica: r.onReplica.Load(), OffReplica: r.offReplica.Load(), Payloads: r.payloads.Load()}
}
