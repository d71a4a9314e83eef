package gocql

import (
	"cmp"
	"math/rand/v2"
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
