package gocql

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestTokenRingMatchesReplicasFor compares the cached ring's replica lookup with replicasFor,
// which builds the ring for each lookup, on random rings (unparsable tokens included) and
// replication factors.
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
			want := replicasFor(hosts, token, rf)
			if got := ring.appendReplicas(nil, token, rf); !slices.Equal(got, want) {
				t.Fatalf("round %d: token %d rf %d: ring gives %v, replicasFor %v", round, token, rf, got, want)
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
