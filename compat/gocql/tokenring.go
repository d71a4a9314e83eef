package gocql

import (
	"slices"
	"sort"
	"strconv"
)

// tokenRing is the Murmur3 ring of a host list, sorted by token. TokenAwareHostPolicy keeps
// the last one and reuses it while the host list and each host's tokens are the ones it was
// built from, instead of parsing and sorting every token for every query.
type tokenRing struct {
	hosts   []*HostInfo
	tokens  [][]string // tokens[i] is hosts[i].Tokens() at build time
	entries []ringEntry
}

// ringEntry is one token of the ring and the host owning it.
type ringEntry struct {
	token int64
	host  *HostInfo
}

// newTokenRing builds the ring of hosts, sorted by token.
func newTokenRing(hosts []*HostInfo) *tokenRing {
	r := &tokenRing{hosts: hosts, tokens: make([][]string, len(hosts))}
	for i, h := range hosts {
		r.tokens[i] = h.Tokens()
		for _, s := range r.tokens[i] {
			t, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				continue
			}
			r.entries = append(r.entries, ringEntry{t, h})
		}
	}
	sort.Slice(r.entries, func(i, j int) bool { return r.entries[i].token < r.entries[j].token })
	return r
}

// builtFrom reports whether r is the ring of hosts as they are now: the same hosts, each with
// the same token slice (a host's tokens are replaced, never modified, when the topology
// changes).
func (r *tokenRing) builtFrom(hosts []*HostInfo) bool {
	if len(hosts) != len(r.hosts) {
		return false
	}
	for i, h := range hosts {
		if h != r.hosts[i] || !sameSlice(h.Tokens(), r.tokens[i]) {
			return false
		}
	}
	return true
}

// sameSlice reports whether a and b are the same slice (same length and backing array).
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// appendReplicas appends to dst up to rf distinct hosts owning token: the owner of the first
// ring token at or after it, then the following hosts on the ring (SimpleStrategy placement).
func (r *tokenRing) appendReplicas(dst []*HostInfo, token int64, rf int) []*HostInfo {
	ring := r.entries
	if len(ring) == 0 {
		return dst
	}
	start := sort.Search(len(ring), func(i int) bool { return ring[i].token >= token })
	if rf < 1 {
		rf = 1
	}
	base := len(dst)
	for i := 0; i < len(ring) && len(dst)-base < rf; i++ {
		h := ring[(start+i)%len(ring)].host
		if !slices.Contains(dst[base:], h) {
			dst = append(dst, h)
		}
	}
	return dst
}

// ringFor returns the token ring of hosts, rebuilt only when they changed since the last one.
func (t *tokenAwareHostPolicy) ringFor(hosts []*HostInfo) *tokenRing {
	if r := t.ring.Load(); r != nil && r.builtFrom(hosts) {
		return r
	}
	r := newTokenRing(hosts)
	t.ring.Store(r)
	return r
}
