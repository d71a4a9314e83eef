package native

import "net/netip"

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
}
