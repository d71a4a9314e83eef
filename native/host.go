package native

import (
	"net/netip"

	"github.com/cqlbridge/cqlbridge/native/internal/topology"
)

// Host describes a node of the cluster as the control connection last saw it (system.local
// and system.peers). Hosts returns copies; the Tokens slice is shared and must not be
// modified.
type Host struct {
	// Addr is the address (host:port) the session dials, after Config.AddressTranslator.
	Addr string
	// RPCAddress is the client address the node advertises (rpc_address, or
	// native_address on Cassandra 4+).
	RPCAddress netip.Addr
	// HostID is the node's host_id, in canonical UUID form.
	HostID         string
	DataCenter     string
	Rack           string
	ReleaseVersion string
	// Partitioner is the node's partitioner class (Murmur3Partitioner for token-aware routing).
	// system.peers does not list it: peers get the control connection node's, a cluster
	// having a single partitioner.
	Partitioner string
	// Tokens are the node's tokens, as the server lists them (decimal for Murmur3).
	Tokens []string
	// Up reports whether the session currently has at least one open connection to the node.
	Up bool

	// Peer is the node's system.peers(_v2) peer column (its gossip address); it is the zero
	// Addr for the node read from system.local, which has no such column. So a valid Peer
	// also tells a node read from system.peers(_v2) apart.
	Peer netip.Addr
	// BroadcastAddress and ListenAddress are system.local's broadcast_address and
	// listen_address; system.peers(_v2) does not list them (zero Addr for peers).
	BroadcastAddress netip.Addr
	ListenAddress    netip.Addr
	// PreferredIP is system.peers(_v2) preferred_ip, usually unset.
	PreferredIP netip.Addr
	// ClusterName is system.local's cluster_name; empty for peers.
	ClusterName string
	// Workload, Graph and DSEVersion are the columns DataStax Enterprise adds (workload,
	// graph, dse_version); zero on Apache Cassandra and ScyllaDB.
	Workload   string
	Graph      bool
	DSEVersion string
}

// hostOf describes node n of a topology snapshot; up says whether its pool has a connection.
func hostOf(n topology.Node, up bool) Host {
	return Host{
		Addr: n.Addr, RPCAddress: n.RPCAddress, HostID: n.HostID, DataCenter: n.DataCenter,
		Rack: n.Rack, ReleaseVersion: n.ReleaseVersion, Partitioner: n.Partitioner,
		Tokens: n.Tokens, Up: up,
		Peer: n.Peer, BroadcastAddress: n.BroadcastAddress, ListenAddress: n.ListenAddress,
		PreferredIP: n.PreferredIP, ClusterName: n.ClusterName, Workload: n.Workload,
		Graph: n.Graph, DSEVersion: n.DSEVersion,
	}
}
