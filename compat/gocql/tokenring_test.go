package gocql

import (
	"cmp"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"testing"
)

// naiveReplicas is the reference for the cached ring: it walks the tokens of every host for
// each lookup, by brute force. It returns up to rf distinct hosts: the owner of the smallest
// token at or after token (wrapping to the smallest token overall), then the owners of the
// following tokens in order.
func naiveReplicas(hosts []*HostInfo, token int64, rf int) []*HostInfo {
	type owned struct {
		t int64
		h *HostInfo
	}
	var all []owned
	for _, h := range hosts {
		for _, s := range h.Tokens() {
			if t, err := strconv.ParseInt(s, 10, 64); err == nil {
				all = append(all, owned{t, h})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b owned) int { return cmp.Compare(a.t, b.t) })
	var out []*HostInfo
	for pass := 0; pass < 2 && len(out) < max(rf, 1); pass++ {
		for _, o := range all {
			if (pass == 0) != (o.t >= token) || slices.Contains(out, o.h) || len(out) == max(rf, 1) {
				continue
			}
			out = append(out, o.h)
		}
	}
	return out
}

// TestTokenRingMatchesReplicasFor compares the cached ring's replica lookup with
// naiveReplicas on random rings (unparsable tokens included) and replication factors.
func TestTokenRingMatchesReplicasFor(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 300; round++ {
		hosts := testHosts(1 + r.IntN(8))
		for _, h := range hosts {
			for k := r.IntN(6); k >= 0; k-- {
				tok := strconv.FormatInt(r.Int64()-r.Int64(), 10)
				if r.IntN(20) == 0 {
					tok = "not-a-token"
				}
				h.tokens = append(h.tokens, tok)
			}
		}
		ring := newTokenRing(hosts)
		for k := 0; k < 20; k++ {
			token, rf := r.Int64()-r.Int64(), r.IntN(5)
			if h := hosts[r.IntN(len(hosts))]; k%2 == 0 && len(h.tokens) > 0 {
				// A token of the ring, or one next to it: the boundaries of ownership.
				if t, err := strconv.ParseInt(h.tokens[r.IntN(len(h.tokens))], 10, 64); err == nil {
					token = t + int64(r.IntN(3)-1)
				}
			}
			want := naiveReplicas(hosts, token, rf)
			if got := ring.appendReplicas(nil, token, rf); !slices.Equal(got, want) {
				t.Fatalf("round %d: token %d rf %d: ring gives %v, naive lookup %v", round, token, rf, got, want)
			}
		}
	}
}

// TestTokenRingReuse checks when TokenAwareHostPolicy reuses its ring: for the same hosts and
// tokens, and not after a host's tokens changed or a host joined.
func TestTokenRingReuse(t *testing.T) {
	p := TokenAwareHostPolicy(RoundRobinHostPolicy()).(*tokenAwareHostPolicy)
	hosts := testHosts(3)
	for i, h := range hosts {
		h.tokens = []string{strconv.Itoa(i * 100)}
		p.AddHost(h)
	}
	first := p.ringFor(p.hosts.get())
	if again := p.ringFor(p.hosts.get()); again != first {
		t.Fatal("the ring was rebuilt for unchanged hosts")
	}
	if got := first.appendReplicas(nil, 150, 1); !slices.Equal(got, hosts[2:3]) {
		t.Fatalf("token 150 owned by %v, want host 3", got)
	}
	hosts[2].mu.Lock()
	hosts[2].tokens = []string{"300"}
	hosts[2].mu.Unlock()
	moved := p.ringFor(p.hosts.get())
	if moved == first {
		t.Fatal("the ring was reused after a host's tokens changed")
	}
	if got := moved.appendReplicas(nil, 250, 1); !slices.Equal(got, hosts[2:3]) {
		t.Fatalf("token 250 owned by %v after the move, want host 3", got)
	}
	extra := testHosts(4)[3]
	extra.tokens = []string{"120"}
	p.AddHost(extra)
	joined := p.ringFor(p.hosts.get())
	if joined == moved {
		t.Fatal("the ring was reused after a host joined")
	}
	if got := joined.appendReplicas(nil, 110, 2); !slices.Equal(got, []*HostInfo{extra, hosts[2]}) {
		t.Fatalf("token 110 rf 2 owned by %v, want the new host then host 3", got)
	}
}

// TestNetworkTopologyPlacement checks NetworkTopologyStrategy placement on small rings built by
// hand: racks not used yet first, the nodes passed over next, a node with several tokens
// (vnodes) placed once, and the tokens of a data centre without replicas joining the next
// range.
func TestNetworkTopologyPlacement(t *testing.T) {
	node := func(ip, dc, rack string, tokens ...string) *HostInfo {
		return &HostInfo{connectAddress: net.ParseIP(ip), port: 9042, state: NodeUp, dataCenter: dc, rack: rack, tokens: tokens}
	}
	names := func(hosts []*HostInfo) []string {
		var out []string
		for _, h := range hosts {
			out = append(out, h.ConnectAddress().String())
		}
		return out
	}
	a := node("10.0.0.1", "dc1", "r1", "10", "20")
	b := node("10.0.0.2", "dc1", "r1", "30")
	c := node("10.0.0.3", "dc1", "r2", "40")
	d := node("10.0.0.4", "dc2", "r1", "25", "50")
	for _, tc := range []struct {
		name  string
		hosts []*HostInfo
		dcs   map[string]int
		token int64
		want  []string
	}{
		// From a's token 10: a (r1), a again (skipped: placed), b (r1 used: passed over),
		// c (r2): every rack has a replica.
		{"racks first", []*HostInfo{a, b, c}, map[string]int{"dc1": 2}, 5, []string{"10.0.0.1", "10.0.0.3"}},
		// Three replicas: the passed-over b comes once every rack has one.
		{"passed over next", []*HostInfo{a, b, c}, map[string]int{"dc1": 3}, 5, []string{"10.0.0.1", "10.0.0.3", "10.0.0.2"}},
		// One rack: a's second token does not place it twice (gocql v1.7.0 would).
		{"vnodes once", []*HostInfo{a, b}, map[string]int{"dc1": 2}, 15, []string{"10.0.0.1", "10.0.0.2"}},
		// d's tokens (dc2, no replicas) start no range: token 22 falls in the range ending
		// at 30 (b's).
		{"no replicas in dc2", []*HostInfo{a, b, c, d}, map[string]int{"dc1": 1}, 22, []string{"10.0.0.2"}},
		// Both data centres, interleaved in ring order; past the last token wraps around.
		{"two data centres", []*HostInfo{a, b, c, d}, map[string]int{"dc1": 1, "dc2": 1}, 45, []string{"10.0.0.4", "10.0.0.1"}},
		{"wrap around", []*HostInfo{a, b, c, d}, map[string]int{"dc1": 2, "dc2": 1}, 60, []string{"10.0.0.1", "10.0.0.4", "10.0.0.3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ring := newTokenRing(tc.hosts)
			got := names(ring.networkTopology(tc.dcs).replicasFor(tc.token))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("replicas of token %d = %v, want %v", tc.token, got, tc.want)
			}
		})
	}
}
