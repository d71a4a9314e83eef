package cqlsim

import (
	"log/slog"
	"time"
)

// Defaults applied by Start to zero fields of Options.
const (
	DefaultListen      = "127.0.0.1:0"
	DefaultClusterName = "cqlsim"
	DefaultDataCenter  = "datacenter1"
	DefaultRack        = "rack1"
	// DefaultMaxFrameLength is the default Options.MaxFrameLength: 16 MiB, the default of
	// Cassandra 5.0's native_transport_max_frame_size.
	DefaultMaxFrameLength = 16 << 20
)

// Options configures a simulated cluster. The zero value is a one-node cluster on a random port of
// 127.0.0.1 with no authentication, speaking protocol v3 and v4.
type Options struct {
	// Nodes is the number of nodes (default 1). Node i (0-based) listens on the i-th address after
	// the Listen host (127.0.0.1, 127.0.0.2, ...), all on the same port, as a real multi-node
	// cluster does; on Linux every 127.0.0.x address works on loopback without setup.
	Nodes int
	// Listen is "host:port" of the first node, host an IPv4 address (default "127.0.0.1:0").
	// Port 0 picks a free port, the same on every node's address.
	Listen string
	// Username and Password, when Username is non-empty, enable Cassandra's PasswordAuthenticator:
	// clients must authenticate with SASL PLAIN and exactly these credentials.
	Username string
	Password string
	// MaxProtocolVersion is the highest native protocol version served: 3, 4 (the default) or 5.
	// Requests in any other version get a PROTOCOL_ERROR naming the supported range, so drivers
	// negotiate down. v5 is opt-in: ScyllaDB does not speak it, and drivers' v5 support has
	// been fragile (earlier Python drivers mis-read several segments arriving in one read).
	MaxProtocolVersion int
	// ClusterName, DataCenter, Rack and ReleaseVersion are served in system.local and
	// system.peers (defaults "cqlsim", "datacenter1", "rack1" and the engine's release version).
	ClusterName    string
	DataCenter     string
	Rack           string
	ReleaseVersion string
	// NodeDataCenters and NodeRacks, when set, give node i (0-based) the data center
	// NodeDataCenters[i] and the rack NodeRacks[i], for a multi-data-center cluster; an empty
	// entry, or a node beyond the list, gets DataCenter or Rack. A list longer than Nodes is an
	// error.
	NodeDataCenters []string
	NodeRacks       []string
	// NodeTokens, when set, gives node i the Murmur3 tokens NodeTokens[i] (decimal strings),
	// for a ring laid out by hand; it must list every node, each with at least one token, and
	// no token twice. By default each node owns 4 tokens spread evenly over the ring and dealt
	// round-robin.
	NodeTokens [][]string
	// Shards, when > 0, makes each node emulate a ScyllaDB node with that many shards (cores),
	// for tests of shard-aware drivers: SUPPORTED announces the connection's shard and the
	// sharding parameters (SCYLLA_SHARD, SCYLLA_NR_SHARDS, ...), each connection gets a shard
	// when accepted (round-robin per node on the regular port), and Cluster.ShardConns and
	// Cluster.ShardStats count connections per shard and requests that reached the shard
	// owning their partition; PREPARED flags lightweight transactions for a driver that opts
	// in to ScyllaDB's LWT mark, and an injected RateLimitReached keeps its code for a driver
	// that opts in to ScyllaDB's rate limit error; with Tablets set, the nodes also offer
	// ScyllaDB's tablets routing. 0 (the default) emulates no sharding; a negative value, or
	// more than 1024 shards, is an error.
	Shards int
	// ShardAwarePort, with Shards set, makes every node also listen on a shard-aware port, the
	// same free port on every node's address (see Cluster.ShardAwarePort), announced in
	// SUPPORTED as SCYLLA_SHARD_AWARE_PORT: as on ScyllaDB, a connection to it belongs to the
	// shard (client's source port) % Shards. Setting it without Shards is an error.
	ShardAwarePort bool
	// Tablets, when > 0 (with Shards set), makes every table of every keyspace whose name
	// does not start with "system" use ScyllaDB's tablets, split into this many tablets, for
	// tests of tablet-aware drivers. The nodes offer ScyllaDB's tablets routing in SUPPORTED
	// (TABLETS_ROUTING_V1, value ""); to a driver that sends the option in STARTUP, the result
	// of an EXECUTE whose partition key is bound, when it reached a node that holds no
	// replica of the partition's tablet or a connection of another shard than the replica's,
	// carries the tablet's routing information (its first and last tokens, its replicas' host
	// ids and shards) in the custom payload tablets-routing-v1 (protocol v4 and later).
	//
	// Tablet t (0-based) covers the tokens (first_t, last_t], with
	// first_t = math.MinInt64 + floor(t * (2^64-1) / Tablets) and last_t = first_(t+1): the
	// first tablet starts at math.MinInt64, the last ends at math.MaxInt64. With g the number
	// of Cluster.MoveTablets calls so far, its replicas, in the order the payload lists them,
	// are:
	//   - under SimpleStrategy, nodes (t+g+j) % Nodes for j = 0 .. r-1, r being the
	//     replication_factor brought within 1 and Nodes;
	//   - under NetworkTopologyStrategy, placed per data center as ScyllaDB does: for each data
	//     center that the keyspace names and the cluster has, in the order of their names
	//     (sorted bytewise), its nodes numbered (t+g+j) % n for j = 0 .. f-1, the data center's
	//     n nodes being numbered 0 .. n-1 in node index order and f being the keyspace's factor
	//     for it capped at n. Data centers the cluster lacks contribute none; a keyspace left
	//     with no replica that way (its data centers all absent or of factor 0) has one, as
	//     under SimpleStrategy with a factor of 1: node (t+g) % Nodes;
	//   - under another strategy, that one replica too.
	//
	// Under every strategy, the replica at position p (0-based) of that list is on shard
	// (t+g+p) % Shards. The replication is read at each EXECUTE, so an ALTER KEYSPACE takes
	// effect at once.
	// Cluster.TabletStats counts the EXECUTEs that reached a replica's shard and the others.
	// 0 (the default) uses no tablets; a negative value, more than 65536 tablets, or Tablets
	// without Shards, is an error.
	Tablets int
	// MaxFrameLength is the largest request frame in bytes (default DefaultMaxFrameLength),
	// Cassandra's native_transport_max_frame_size, and is applied as Cassandra 5.0 applies
	// it. In the legacy framing (v3, v4, and v5 before its segments start) it bounds the
	// whole frame as sent (the 9-byte header and the body, compressed or not); a frame over
	// it is answered, once its body has arrived and been skipped, with an Invalid error
	// (0x2200) "Request is too big: length N exceeds maximum allowed length M." on its
	// stream, N counting the header. A v5 frame in segments is measured by its body alone,
	// and refused with "CQL Message of size N bytes exceeds allowed maximum of M bytes". In
	// both cases the connection goes on with the next frame. A compressed body may inflate
	// beyond MaxFrameLength, as on Cassandra, up to 256 MiB (or MaxFrameLength, if larger).
	MaxFrameLength int
	// Now is the clock for timestamps and TTL expiry (default time.Now).
	Now func() time.Time
	// SchemaPropagationDelay simulates schema agreement taking time, as gossip does on a real
	// cluster: for this long after each schema change, only the node that ran it reports the
	// new schema_version in system.local, the others the previous one, and every node's
	// system.peers reports the previous version for the others. Drivers waiting for schema
	// agreement thus see the nodes disagree, and a driver asking a node other than the
	// coordinator sees them all agree on the old schema. 0 (the default) propagates changes at
	// once. A node stopped with StopNode keeps reporting, in the others' system.peers, the
	// version it had when it stopped.
	SchemaPropagationDelay time.Duration
	// Logger receives connection-level events (accepted and closed connections, protocol errors)
	// at debug level and unexpected failures at warn level. Nil discards them.
	Logger *slog.Logger
}

// withDefaults returns a copy of o with defaults filled in.
func (o Options) withDefaults() Options {
	if o.Nodes <= 0 {
		o.Nodes = 1
	}
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.MaxProtocolVersion == 0 {
		o.MaxProtocolVersion = 4
	}
	if o.ClusterName == "" {
		o.ClusterName = DefaultClusterName
	}
	if o.DataCenter == "" {
		o.DataCenter = DefaultDataCenter
	}
	if o.Rack == "" {
		o.Rack = DefaultRack
	}
	if o.MaxFrameLength <= 0 {
		o.MaxFrameLength = DefaultMaxFrameLength
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
