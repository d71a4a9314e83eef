package cqlsim

// ScyllaDB sharding emulation (Options.Shards, Options.ShardAwarePort): the shard of each
// connection, the SUPPORTED keys that announce it, the shard-aware listeners and the accounting
// behind Cluster.ShardConns and Cluster.ShardStats.

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
	"github.com/cqlbridge/cqlbridge/internal/murmur3"
)

// The sharding parameters announced in SUPPORTED, those of a ScyllaDB node with the Murmur3
// partitioner.
const (
	shardPartitioner = "org.apache.cassandra.dht.Murmur3Partitioner"
	shardAlgorithm   = "biased-token-round-robin"
	shardIgnoreMSB   = 12
	// maxShards bounds Options.Shards (every node keeps a counter per shard).
	maxShards = 1024
)

// ShardStats counts requests with a known partition, with Options.Shards set: EXECUTEs of
// prepared statements whose whole partition key is bound.
//
// The shard that owns a partition is the one its token maps to under ScyllaDB's sharding
// (biased-token-round-robin), except for a table that uses tablets (Options.Tablets): there
// it is the shard of the node's replica of the partition's tablet, and an EXECUTE that
// reaches a node holding no replica of that tablet counts OffShard (see TabletStats).
//
// An EXECUTE is counted when it arrives, before any delay (Cluster.SetNodeDelay) or injected
// fault, whether the statement then succeeds or fails; values bound by name count too. QUERY
// and BATCH requests, EXECUTEs answered UNPREPARED and those with an unset or null
// partition-key value are not counted.
type ShardStats struct {
	OnShard  int64 // arrived on a connection of the shard that owns the partition
	OffShard int64 // arrived on a connection of another shard
}

// shardCounters are the atomic counters behind Cluster.ShardStats.
type shardCounters struct {
	on, off atomic.Int64
}

// nodeShards is the sharding state of one node (Options.Shards > 0).
type nodeShards struct {
	nr   int
	next atomic.Uint64  // connections accepted on the regular port so far
	open []atomic.Int64 // open connections per shard
}

func newNodeShards(nr int) *nodeShards {
	return &nodeShards{nr: nr, open: make([]atomic.Int64, nr)}
}

// checkSharding checks Options.Shards and Options.ShardAwarePort.
func checkSharding(o Options) error {
	if o.Shards < 0 || o.Shards > maxShards {
		return fmt.Errorf("cqlsim: Shards %d is out of range (0 for no sharding, at most %d)", o.Shards, maxShards)
	}
	if o.ShardAwarePort && o.Shards == 0 {
		return fmt.Errorf("cqlsim: ShardAwarePort needs Shards > 0")
	}
	return nil
}

// setupShards gives each node its sharding state and, with Options.ShardAwarePort, its
// shard-aware listener (shardLns[i] for node i), before the nodes start.
func (c *Cluster) setupShards(shardLns []net.Listener) {
	if c.opts.Shards == 0 {
		return
	}
	for i, n := range c.nodes {
		n.shards = newNodeShards(c.opts.Shards)
		if shardLns != nil {
			n.shardLn = shardLns[i]
		}
	}
	if shardLns != nil {
		c.shardPort = shardLns[0].Addr().(*net.TCPAddr).Port
	}
}

// ShardAwarePort returns the shard-aware port all nodes listen on (Options.ShardAwarePort), or
// 0 when there is none.
func (c *Cluster) ShardAwarePort() int {
	return c.shardPort
}

// ShardConns returns, for node i (0-based, in Addrs order), the number of open client
// connections of each shard: index s counts shard s's connections (len Options.Shards). A
// connection stops counting once the node has noticed it closed. It is nil without
// Options.Shards or for an i out of range.
func (c *Cluster) ShardConns(i int) []int {
	if i < 0 || i >= len(c.nodes) || c.nodes[i].shards == nil {
		return nil
	}
	open := c.nodes[i].shards.open
	out := make([]int, len(open))
	for s := range open {
		out[s] = int(open[s].Load())
	}
	return out
}

// ShardStats returns how many EXECUTEs with a known partition arrived on a connection of the
// shard owning it, and how many on another shard's (see ShardStats), since Start. Both are 0
// without Options.Shards.
func (c *Cluster) ShardStats() ShardStats {
	return ShardStats{OnShard: c.shardCount.on.Load(), OffShard: c.shardCount.off.Load()}
}

// accepted gives the new connection c its shard and counts it open: on the shard-aware port
// the client's source port modulo the number of shards, on the regular port the next shard in
// round-robin order (the node's first connection since Start gets shard 0).
func (s *nodeShards) accepted(c *conn, shardAware bool) {
	if shardAware {
		if a, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
			c.shard = a.Port % s.nr
		}
	} else {
		c.shard = int((s.next.Add(1) - 1) % uint64(s.nr))
	}
	s.open[c.shard].Add(1)
}

// closed stops counting the connection c.
func (s *nodeShards) closed(c *conn) {
	s.open[c.shard].Add(-1)
}

// listenShardAware listens again on the node's shard-aware address (after StopNode).
func (n *node) listenShardAware() (net.Listener, error) {
	host, _, err := net.SplitHostPort(n.addr)
	if err != nil {
		return nil, err
	}
	return net.Listen("tcp4", net.JoinHostPort(host, strconv.Itoa(n.cluster.shardPort)))
}

// addShardOptions adds ScyllaDB's sharding keys to the SUPPORTED options of the connection.
func (c *conn) addShardOptions(opts map[string][]string) {
	cl := c.node.cluster
	opts["SCYLLA_SHARD"] = []string{strconv.Itoa(c.shard)}
	opts["SCYLLA_NR_SHARDS"] = []string{strconv.Itoa(cl.opts.Shards)}
	opts["SCYLLA_PARTITIONER"] = []string{shardPartitioner}
	opts["SCYLLA_SHARDING_ALGORITHM"] = []string{shardAlgorithm}
	opts["SCYLLA_SHARDING_IGNORE_MSB"] = []string{strconv.Itoa(shardIgnoreMSB)}
	if cl.shardPort != 0 {
		opts["SCYLLA_SHARD_AWARE_PORT"] = []string{strconv.Itoa(cl.shardPort)}
	}
	opts[lwtMarkOption] = []string{lwtMarkValue}
	opts[rateLimitOption] = []string{"ERROR_CODE=" + strconv.Itoa(int(errorCodeRateLimit))}
	opts[useMetadataIDOption] = []string{""}
	if cl.tablets != nil {
		opts[tabletsOption] = []string{""}
	}
}

// ScyllaDB's LWT mark: a node offers it in SUPPORTED; a driver that echoes the option in
// STARTUP gets conditional statements flagged in PREPARED with the mask's bit (bit 31) set in
// the bind metadata's flags, so that it can send them to the partition's primary replica.
const (
	lwtMarkOption = "SCYLLA_LWT_ADD_METADATA_MARK"
	lwtMarkValue  = "LWT_OPTIMIZATION_META_BIT_MASK=2147483648"
	lwtMarkBit    = 0x80000000
)

// ScyllaDB's result metadata ids (SCYLLA_USE_METADATA_ID): a node offers the option in
// SUPPORTED, with the value ""; to a driver that echoes it in STARTUP at v3 or v4, PREPARED
// carries the result metadata id after the statement id, an EXECUTE carries it back after its
// id, and rows answering an EXECUTE whose id is outdated carry the new one with the
// METADATA_CHANGED flag and the full metadata, all as in v5 (see metadataChanged).
const useMetadataIDOption = "SCYLLA_USE_METADATA_ID"

// scyllaPrepared is a PREPARED answer with the ScyllaDB extensions the client opted in to:
// encoded as the plain message, then patched (go-cassandra-native-protocol computes the flags,
// and writes the result metadata id only in v5).
type scyllaPrepared struct {
	*message.PreparedResult
	lwt        bool // the bind metadata flags carry the LWT mark
	metadataID bool // before v5: the result metadata id follows the statement id
}

// prepared returns the PREPARED answer p (of a statement that is conditional when lwt is set)
// with the ScyllaDB extensions the client opted in to, or p itself when none applies.
func (c *conn) prepared(p *message.PreparedResult, lwt bool, version uint8) message.Message {
	sp := scyllaPrepared{PreparedResult: p, lwt: lwt && c.lwtMark.Load(), metadataID: version < 5 && c.metadataID.Load()}
	if !sp.lwt && !sp.metadataID {
		return p
	}
	return sp
}

// patch applies the extensions of p to frame, the encoded p.PreparedResult of protocol
// version, and returns the frame.
func (p scyllaPrepared) patch(frame []byte, version uint8) []byte {
	if p.metadataID {
		frame = withResultMetadataID(frame, p.PreparedResult)
	}
	if p.lwt {
		markLWT(frame, p.PreparedResult, version >= 5 || p.metadataID)
	}
	return frame
}

// withResultMetadataID returns frame, the encoded PREPARED answer p of protocol v3 or v4, with
// p's result metadata id inserted after the statement id, as v5 places it.
func withResultMetadataID(frame []byte, p *message.PreparedResult) []byte {
	off, ok := messageStart(frame)
	if !ok {
		return frame
	}
	off += 4 + 2 + len(p.PreparedQueryId) // result kind, [short bytes] id
	if off > len(frame) {
		return frame
	}
	out := make([]byte, 0, len(frame)+2+len(p.ResultMetadataId))
	out = append(out, frame[:off]...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(p.ResultMetadataId)))
	out = append(out, p.ResultMetadataId...)
	out = append(out, frame[off:]...)
	binary.BigEndian.PutUint32(out[5:wire.MaxHeaderLen], uint32(len(out)-wire.MaxHeaderLen))
	return out
}

// markLWT sets the LWT bit in the bind metadata flags of frame, the encoded PREPARED answer p,
// whose result metadata id follows the statement id when withID is set.
func markLWT(frame []byte, p *message.PreparedResult, withID bool) {
	off, ok := messageStart(frame)
	if !ok {
		return
	}
	off += 4 + 2 + len(p.PreparedQueryId) // result kind, [short bytes] id
	if withID {
		off += 2 + len(p.ResultMetadataId)
	}
	if off+4 <= len(frame) {
		binary.BigEndian.PutUint32(frame[off:], binary.BigEndian.Uint32(frame[off:])|lwtMarkBit)
	}
}

// countShard counts an EXECUTE (of header h) whose partition key is bound in
// Cluster.ShardStats: on or off the connection's shard; for a tablet table (Options.Tablets)
// in Cluster.TabletStats too, and it then returns the tablets-routing-v1 custom payload the
// result owes the client, if any (see countTablet). Other requests are not counted.
func (c *conn) countShard(h wire.Header, req *wire.Request) []byte {
	e := req.Execute
	if e == nil {
		return nil
	}
	p, ok := c.node.lookup(e.ID)
	if !ok || len(p.PKIndexes) == 0 {
		return nil
	}
	key, ok := boundPartitionKey(p, e.Params.Values)
	if !ok {
		return nil
	}
	cl := c.node.cluster
	token := murmur3.Token(key)
	if cl.tablets != nil && p.Table != "" && usesTablets(p.TableKeyspace) {
		if payload, ok := c.countTablet(h, token, p.TableKeyspace); ok {
			return payload
		}
	}
	if shardOf(token, cl.opts.Shards) == c.shard {
		cl.shardCount.on.Add(1)
	} else {
		cl.shardCount.off.Add(1)
	}
	return nil
}

// boundPartitionKey serializes the partition key bound to p's variables, as Cassandra does: a
// single column's value as is; for a composite key, each component as a 2-byte big-endian
// length, the value and a 0 byte. It reports false when a component is unset, null, missing
// or too long for a composite key.
func boundPartitionKey(p *engine.Prepared, vals engine.Values) ([]byte, bool) {
	if len(p.PKIndexes) == 1 {
		return boundValue(p, vals, p.PKIndexes[0])
	}
	var key []byte
	for _, i := range p.PKIndexes {
		v, ok := boundValue(p, vals, i)
		if !ok || len(v) > 0xffff {
			return nil, false
		}
		key = binary.BigEndian.AppendUint16(key, uint16(len(v)))
		key = append(key, v...)
		key = append(key, 0)
	}
	return key, true
}

// boundValue returns the value bound to p's variable i, positionally or by the variable's
// name (as the engine binds named values); it reports false when it is missing, unset or null.
func boundValue(p *engine.Prepared, vals engine.Values, i uint16) ([]byte, bool) {
	var v engine.Value
	if vals.Named != nil {
		if int(i) >= len(p.Vars) {
			return nil, false
		}
		var ok bool
		if v, ok = vals.Named[p.Vars[i].Name]; !ok {
			return nil, false
		}
	} else {
		if int(i) >= len(vals.Positional) {
			return nil, false
		}
		v = vals.Positional[i]
	}
	if v.Unset || v.Bytes == nil {
		return nil, false
	}
	return v.Bytes, true
}

// shardOf returns the shard, of nr, that owns token under ScyllaDB's biased-token-round-robin
// sharding with shardIgnoreMSB: the token biased to unsigned order, its ignored most
// significant bits dropped, scaled to [0, nr) as the high word of the 128-bit product.
func shardOf(token int64, nr int) int {
	u := uint64(token) + 1<<63 // wraps: math.MinInt64 becomes 0
	u <<= shardIgnoreMSB
	hi, _ := bits.Mul64(u, uint64(nr))
	return int(hi)
}
