package topology

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
	"github.com/cqlbridge/cqlbridge/native/internal/ring"
)

// Node is one node as read from system.local or a row of system.peers.
type Node struct {
	// Addr is the address to dial (host:port), after address translation.
	Addr string
	// RPCAddress is the client address the node advertises.
	RPCAddress     netip.Addr
	HostID         string
	DataCenter     string
	Rack           string
	ReleaseVersion string
	Partitioner    string
	Tokens         []string

	// The columns below describe the node without affecting routing (see native.Host).

	// Peer is system.peers(_v2)'s peer column; the zero Addr for the node read from
	// system.local.
	Peer             netip.Addr
	BroadcastAddress netip.Addr
	ListenAddress    netip.Addr
	PreferredIP      netip.Addr
	ClusterName      string
	Workload         string
	Graph            bool
	DSEVersion       string
}

// Snapshot is an immutable view of the cluster. Index i of Nodes is the node id used by
// the ring and the replica sets.
type Snapshot struct {
	Nodes    []Node
	ring     *ring.Ring
	replicas map[string]*ring.Replicas
	murmur3  bool
	byAddr   map[string]int
	byHostID map[[16]byte]int32
}

// Build makes a snapshot of nodes with the replica sets of keyspaces (name to replication).
// Token-aware routing is available only when every node uses the Murmur3 partitioner and
// lists its tokens; otherwise Replicas always returns nil.
func Build(nodes []Node, keyspaces map[string]ring.Replication) (*Snapshot, error) {
	s := &Snapshot{Nodes: nodes, byAddr: make(map[string]int, len(nodes)), byHostID: make(map[[16]byte]int32, len(nodes)), murmur3: len(nodes) > 0}
	tokens := make([][]int64, len(nodes))
	placement := make([]ring.Node, len(nodes))
	for i, n := range nodes {
		s.byAddr[n.Addr] = i
		if id, err := cqltype.ParseUUID(n.HostID); err == nil {
			s.byHostID[id] = int32(i)
		}
		placement[i] = ring.Node{DC: n.DataCenter, Rack: n.Rack}
		if n.Partitioner != "" && n.Partitioner != "org.apache.cassandra.dht.Murmur3Partitioner" {
			s.murmur3 = false
		}
		for _, t := range n.Tokens {
			v, err := ring.ParseToken(t)
			if err != nil {
				s.murmur3 = false
				break
			}
			tokens[i] = append(tokens[i], v)
		}
		if len(tokens[i]) == 0 {
			s.murmur3 = false
		}
	}
	if !s.murmur3 {
		return s, nil
	}
	s.ring = ring.New(tokens)
	s.replicas = make(map[string]*ring.Replicas, len(keyspaces))
	for ks, rep := range keyspaces {
		s.replicas[ks] = s.ring.Replicas(rep, placement)
	}
	return s, nil
}

// TokenAware reports whether the snapshot can route by token.
func (s *Snapshot) TokenAware() bool { return s.murmur3 }

// Replicas returns the indexes in Nodes of the replicas of token in keyspace, primary first,
// or nil when unknown. It allocates nothing; the slice is shared.
func (s *Snapshot) Replicas(keyspace string, token int64) []int32 {
	if !s.murmur3 {
		return nil
	}
	return s.replicas[keyspace].For(token)
}

// Index returns the index of the node with address addr, or -1.
func (s *Snapshot) Index(addr string) int {
	if i, ok := s.byAddr[addr]; ok {
		return i
	}
	return -1
}

// IndexOfHostID returns the index of the node whose host_id is id, or -1.
func (s *Snapshot) IndexOfHostID(id [16]byte) int32 {
	if i, ok := s.byHostID[id]; ok {
		return i
	}
	return -1
}

// DialAddr returns the host:port to dial for a node advertising addr on port, translated
// by translate when it is not nil.
func DialAddr(addr netip.Addr, port int, translate func(string) string) string {
	hp := net.JoinHostPort(addr.Unmap().String(), strconv.Itoa(port))
	if translate != nil {
		return translate(hp)
	}
	return hp
}

// PeerAddress picks the client address of a system.peers row: rpc_address (or
// native_address on peers_v2), unless it is the wildcard 0.0.0.0 or ::, in which case the
// peer address is used, as the reference drivers do.
func PeerAddress(rpc, peer netip.Addr) (netip.Addr, error) {
	if rpc.IsValid() && !rpc.IsUnspecified() {
		return rpc, nil
	}
	if peer.IsValid() {
		return peer, nil
	}
	return netip.Addr{}, fmt.Errorf("topology: peer row has neither rpc_address nor peer")
}
