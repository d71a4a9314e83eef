package topology

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/internal/ring"
)

const murmur3 = "org.apache.cassandra.dht.Murmur3Partitioner"

func TestBuildRoutesByToken(t *testing.T) {
	nodes := []Node{
		{Addr: "10.0.0.1:9042", Partitioner: murmur3, Tokens: []string{"-100", "100"}},
		{Addr: "10.0.0.2:9042", Partitioner: murmur3, Tokens: []string{"0"}},
	}
	s, err := Build(nodes, map[string]ring.Replication{"ks": {Class: "SimpleStrategy", Factor: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.TokenAware() {
		t.Fatal("snapshot should be token-aware")
	}
	if got := s.Replicas("ks", -50); !slices.Equal(got, []int32{1}) {
		t.Errorf("Replicas(ks, -50) = %v, want [1]", got)
	}
	if got := s.Replicas("other", -50); got != nil {
		t.Errorf("unknown keyspace gave %v", got)
	}
	if s.Index("10.0.0.2:9042") != 1 || s.Index("10.0.0.3:9042") != -1 {
		t.Error("Index by address is wrong")
	}
}

func TestBuildWithoutMurmur3IsNotTokenAware(t *testing.T) {
	for name, nodes := range map[string][]Node{
		"other partitioner": {{Addr: "a:1", Partitioner: "org.apache.cassandra.dht.RandomPartitioner", Tokens: []string{"12"}}},
		"no tokens":         {{Addr: "a:1", Partitioner: murmur3}},
		"bad token":         {{Addr: "a:1", Partitioner: murmur3, Tokens: []string{"x"}}},
		"no nodes":          nil,
	} {
		s, err := Build(nodes, map[string]ring.Replication{"ks": {Class: "SimpleStrategy", Factor: 1}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.TokenAware() || s.Replicas("ks", 1) != nil {
			t.Errorf("%s: should not route by token", name)
		}
	}
}

func TestPeerAddress(t *testing.T) {
	peer := netip.MustParseAddr("10.0.0.9")
	if a, _ := PeerAddress(netip.MustParseAddr("0.0.0.0"), peer); a != peer {
		t.Errorf("wildcard rpc_address: got %v", a)
	}
	rpc := netip.MustParseAddr("192.168.1.1")
	if a, _ := PeerAddress(rpc, peer); a != rpc {
		t.Errorf("rpc_address: got %v", a)
	}
	if _, err := PeerAddress(netip.Addr{}, netip.Addr{}); err == nil {
		t.Error("no address accepted")
	}
	if got := DialAddr(netip.MustParseAddr("::ffff:10.0.0.1"), 9042, nil); got != "10.0.0.1:9042" {
		t.Errorf("DialAddr = %q", got)
	}
	if got := DialAddr(netip.MustParseAddr("::1"), 9042, func(s string) string { return "x/" + s }); got != "x/[::1]:9042" {
		t.Errorf("translated DialAddr = %q", got)
	}
}
