package cqlsim

// ShardOf exposes shardOf to the package's external tests.
var ShardOf = shardOf

// The tablet layout and the custom payload insertion, exposed to the package's external tests.
var (
	TabletIndex       = tabletIndex
	TabletRange       = tabletRange
	WithCustomPayload = withCustomPayload
)

// TabletShardOn returns, as an EXECUTE of a partition with token on a table of keyspace ks
// finds it, the shard of the replica of its tablet on node, and false when node holds none
// or there is no keyspace ks.
func (c *Cluster) TabletShardOn(ks string, token int64, node int) (int, bool) {
	var buf [stackDCs]int
	tb, ok := c.tablets.locate(c.engine, ks, token, buf[:])
	if !ok {
		return 0, false
	}
	return c.tablets.shardOn(tb, node)
}

// SetAfterFaultCheck makes every statement call f after its fault check and before it runs.
func (c *Cluster) SetAfterFaultCheck(f func()) {
	c.afterFaultCheck.Store(&f)
}

// Learn makes node i know the prepared statement with the given id (which the engine must
// know), as a PREPARE of it on that node would.
func (c *Cluster) Learn(i int, id []byte) {
	c.nodes[i].learn(id)
}
