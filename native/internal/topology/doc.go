// Package topology holds the session's view of the cluster: an immutable Snapshot of the
// nodes read by the control connection from system.local and system.peers (or
// system.peers_v2), with the token ring and the replica sets of each keyspace. A new Snapshot
// is built whenever the topology or the schema changes and swapped in atomically; readers
// never lock.
package topology
