// Package cqlsim is an embedded, in-memory CQL server that real drivers accept: protocol
// negotiation, system tables, an in-memory store for a CQL subset, paging, prepared statements,
// lightweight transactions, batches and multi-node clusters on 127.0.0.x. It serves tests,
// examples and benchmarks, the way miniredis does for Redis users.
//
// Start a cluster, point any driver at its Addrs, and Close it when done:
//
//	c, err := cqlsim.Start(cqlsim.Options{Nodes: 3})
//	...
//	defer c.Close()
//	cluster := gocql.NewCluster(c.Addrs()...)
//	cluster.Port = c.Port() // the port of discovered peers (see Cluster.Port)
//
// In tests, StartT does the same and closes the cluster at cleanup. The command cmd/cqlsim runs
// a cluster as a process for drivers in other languages.
//
// # Protocol
//
// cqlsim speaks native protocol v3 and v4, and v5 when Options.MaxProtocolVersion is 5 (v5
// frames travel in checksummed segments, LZ4-compressed when negotiated; several responses share
// a segment when they are ready together). Like
// Cassandra it answers a frame in any version it does not serve (v1, v2, v5 unless
// Options.MaxProtocolVersion is 5, the DSE versions 0x41/0x42) with a PROTOCOL_ERROR "Invalid or
// unsupported protocol version (N); supported versions are (3/v3, 4/v4)" (up to
// Options.MaxProtocolVersion; Cassandra 5.0 lists 6/v6-beta too) on the request's stream id,
// encoded in its highest version (v1 and v2 get it in their own header layout), so that
// drivers downgrade. OPTIONS answers SUPPORTED with
// CQL_VERSION, COMPRESSION (lz4, snappy) and PROTOCOL_VERSIONS, before and after STARTUP (drivers
// use it as a heartbeat). STARTUP selects compression case-insensitively; compressed requests are
// decompressed and, in v3 and v4, every later frame (READY or AUTHENTICATE included, events
// too) is compressed, as Cassandra does; like Cassandra, cqlsim ignores the COMPRESSED flag of
// a frame on a connection without frame compression (v5 segments included). With
// Options.Username set, STARTUP answers AUTHENTICATE for Cassandra's PasswordAuthenticator and
// SASL PLAIN credentials are checked. REGISTER subscribes a connection to events, pushed on
// stream -1: SCHEMA_CHANGE after every DDL statement, STATUS_CHANGE when Cluster.StopNode or
// Cluster.StartNode changes a node's state. TOPOLOGY_CHANGE registrations are accepted, but the
// membership of a cluster is fixed, so none is ever sent.
//
// Each connection has one reader and one writer goroutine; statements (QUERY, PREPARE, EXECUTE,
// BATCH) run concurrently, one goroutine per stream id, and the writer sends every queued response
// with one write. Malformed input never crashes the server: a frame whose body cannot be decoded
// gets a PROTOCOL_ERROR on its stream and the connection goes on; a frame that cannot be delimited
// (a negative length) gets a PROTOCOL_ERROR and the connection is closed, as does a request
// other than STARTUP or OPTIONS before STARTUP, as on Cassandra. A frame larger than
// Options.MaxFrameLength (16 MiB by default, as Cassandra's native_transport_max_frame_size) is
// skipped and answered as Cassandra 5.0 answers it, with an Invalid error on its stream ("Request
// is too big: ..." in the legacy framing, "CQL Message of size ..." in v5 segments), and the
// connection goes on.
//
// # Cluster
//
// Node i listens on the i-th IPv4 address from Options.Listen (127.0.0.1, 127.0.0.2, ...) on one
// shared port, and owns distinct Murmur3 tokens. All nodes share one engine (schema and data), as
// a fully replicated cluster would; each serves itself in system.local and the others in
// system.peers and system.peers_v2. StopNode and StartNode take a node down and bring it back
// on the same address, for tests of driver failover; FreezeNode and ThawNode make a node fall
// silent without closing anything (a paused process, a partition) and answer again;
// SetNodeDelay makes a node answer its statements late, for tests of timeouts, speculative
// execution and slow-node handling;
// InjectFault makes a node answer chosen statements with a server error (a read or write
// timeout, OVERLOADED, CAS_WRITE_UNKNOWN, ...: any error code of the v5 spec, see Fault.Error)
// instead of running them, answer them late, or prepare them late (Fault.Prepare), for tests of
// error decoding, retry policies and timeouts.
//
// # Sharding
//
// With Options.Shards set, each node emulates a ScyllaDB node of that many shards, for tests of
// shard-aware drivers and pools. SUPPORTED announces the connection's shard and the sharding
// parameters as ScyllaDB does (SCYLLA_SHARD, SCYLLA_NR_SHARDS, SCYLLA_PARTITIONER,
// SCYLLA_SHARDING_ALGORITHM biased-token-round-robin, SCYLLA_SHARDING_IGNORE_MSB 12). A
// connection's shard is fixed when it is accepted: round-robin per node on the regular port
// (counting every connection since Start, a driver's control connection too), and (client's
// source port) % Shards on the shard-aware port that Options.ShardAwarePort opens, the same on
// every node and announced as SCYLLA_SHARD_AWARE_PORT. Cluster.ShardConns counts each node's
// open connections per shard, and Cluster.ShardStats counts the EXECUTEs whose partition key is
// bound that arrived on the shard owning the partition and those that arrived on another.
// Shards only label connections: every shard of a node serves every request. Sharded nodes also
// offer ScyllaDB's LWT mark (SCYLLA_LWT_ADD_METADATA_MARK): to a driver that echoes it in
// STARTUP, PREPARED flags conditional statements with bit 31 of the bind metadata flags. They
// offer ScyllaDB's rate limit error too (SCYLLA_RATE_LIMIT_ERROR): an injected
// RateLimitReached reaches a driver that opted in with its own code, and others as a
// CONFIG_ERROR. They offer ScyllaDB's result metadata ids (SCYLLA_USE_METADATA_ID): to a
// driver that echoes the option in STARTUP at v3 or v4, PREPARED carries the result metadata
// id, EXECUTE is read with one, and rows answering an EXECUTE whose id is not the statement's
// current one carry the METADATA_CHANGED flag, the new id and the full metadata, as at v5. With
// Options.Tablets, they offer ScyllaDB's tablets routing (TABLETS_ROUTING_V1) as well: see
// Tablets below.
//
// # Tablets
//
// With Options.Tablets set as well, every table outside the system keyspaces uses ScyllaDB's
// tablets, for tests of tablet-aware routing: the token ring is split into that many tablets
// of equal width, each with its replicas (a node and one of its shards) laid out as
// Options.Tablets describes. Under SimpleStrategy a tablet's replicas are as many consecutive
// nodes (wrapping around) as the keyspace's replication factor. Under NetworkTopologyStrategy
// they are placed per data center, as ScyllaDB places them: each data center that the
// keyspace names and the cluster has holds as many replicas as its factor (at most one per
// node of the data center), on consecutive nodes of its own, the data centers listed in the
// order of their names; data centers the cluster lacks hold none (a keyspace left with no
// replica has one). The nodes offer ScyllaDB's tablets routing (TABLETS_ROUTING_V1, with the
// value ""); to a driver that sends the option in STARTUP, the result of an EXECUTE whose
// partition key is bound and that reached a node holding no replica of the partition's
// tablet, or a connection of another shard than the replica's, carries the tablet's first
// and last tokens and its replicas' host ids and shards in the custom payload
// tablets-routing-v1 (protocol v4 and later; errors carry none), as ScyllaDB does.
// Cluster.MoveTablets moves every replica of every tablet by one node (to the next node of
// its data center, under NetworkTopologyStrategy) and one shard, as a migration would, and
// Cluster.TabletStats counts the EXECUTEs that reached a replica's shard, those that did not
// and the payloads sent; for tablet tables, Cluster.ShardStats counts the same on and off
// replica's shard.
//
// # Engine
//
// CQL parsing, storage, system and schema tables and statement execution live in the internal
// engine package; this package is the protocol layer around it. The engine answers as Cassandra
// 5.0 does, with its results, column names, error codes and messages: cqlsim/difftest runs
// well over a thousand statements against a Cassandra node and cqlsim and compares the
// answers.
// Vector search (SELECT ... ORDER BY v ANN OF [...] LIMIT n on a vector<float, n> column with a
// storage-attached index) follows Cassandra 5.0's rules and messages; cqlsim finds the exact
// nearest neighbours by brute force, by the index's similarity_function (cosine by default),
// most similar first, rows of equal similarity in token and clustering order, all in one page as
// Cassandra answers (whose approximate search gives the same answer on small data sets).
// CAST(x AS type) in a selection follows Cassandra 5.0's cast functions: the same allowed
// pairs of types (including the argument types Cassandra's function resolution accepts in
// place of another, such as a timestamp read as a bigint), Java's numeric conversions, the CQL
// literal text of a value cast to text, column names cast(x as type), and Cassandra's errors
// (whose lists of signatures cqlsim gives in the order a Cassandra 5.0.9 node gave them: a
// hash order that may change from one Cassandra process to another; so do the messages of
// sum and avg and of conflicting multi-column relations). A cast of an aggregate, an
// aggregate of a cast and CAST outside selections are not supported; nor are arithmetic
// operators in selections (SELECT k + 1, which Cassandra 5.0 takes) or aggregates of anything
// but a column (max(writetime(v))), which fail with an Invalid error saying cqlsim does not
// support them. A single clustering
// column in tuple notation, (c) op (v) or (c) IN ((v), ...), with literals or bind markers,
// restricts as c op v does, as in Cassandra 5.0.
// Materialized views and user-defined functions are refused as Cassandra 5.0's default
// configuration refuses them; statements outside the subset (LIKE, GRANT and roles,
// DESCRIBE, among others) fail with an Invalid error that says cqlsim does not support them.
// A non-frozen user type value is stored as Cassandra stores it, one cell per field with its
// own write time and expiry, as non-frozen collections are stored one cell per element;
// writetime(u) and ttl(u) answer one value per field of the type, writetime(u.f) and ttl(u.f)
// the field's; maxwritetime(c) the latest of its cells' write times, writetime(c[k]) and
// ttl(c[k]) those of a set element or a map entry.
// Known differences within the subset: a counter deleted and then incremented starts again
// from 0, where Cassandra may bring back its old value; a writetime() or ttl() list with null
// elements (of a user type's fields without a cell or a TTL) is written in JSON (SELECT JSON,
// toJson) with nulls, where Cassandra 5.0.9 fails with a server error (NullPointerException);
// writetime(u.f) and ttl(u.f) of a non-frozen user type are a bigint and an int as function
// arguments, where Cassandra 5.0.9 takes them for lists; the text of a PREPARE has no size
// limit; a timestamp literal's zone is an offset or Z, UTC, GMT or UT (optionally followed by
// an offset), where Cassandra 5.0.9 also takes other zone names (' PST', ' CET',
// ' Europe/Paris').
package cqlsim
