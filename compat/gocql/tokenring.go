package gocql

import (
	"slices"
	"sort"
	"strconv"
	"sync"
)

// tokenRing is the Murmur3 ring of a host list, sorted by token. TokenAwareHostPolicy keeps
// the last one and reuses it while the host list and each host's tokens are the ones it was
// built from, instead of parsing and sorting every token for every query.
type tokenRing struct {
	hosts   []*HostInfo
	tokens  [][]string // tokens[i] is hosts[i].Tokens() at build time
	entries []ringEntry
	tables  sync.Map // placement.key -> *replicaTable, NetworkTopologyStrategy placements
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

// replicaTable holds the replicas of every range of a ring under one NetworkTopologyStrategy
// placement. Range i ends (inclusive) at ends[i] and starts after ends[i-1]; the first wraps
// around the ring.
type replicaTable struct {
	ends     []int64
	replicas [][]*HostInfo
}

// replicasFor returns the replicas of the range holding token (shared: do not modify).
func (rt *replicaTable) replicasFor(token int64) []*HostInfo {
	if len(rt.ends) == 0 {
		return nil
	}
	i := sort.Search(len(rt.ends), func(i int) bool { return rt.ends[i] >= token })
	if i == len(rt.ends) {
		i = 0
	}
	return rt.replicas[i]
}

// tableFor returns the replica table of placement p (NetworkTopologyStrategy), computed once
// per ring.
func (r *tokenRing) tableFor(p placement) *replicaTable {
	if t, ok := r.tables.Load(p.key); ok {
		return t.(*replicaTable)
	}
	t, _ := r.tables.LoadOrStore(p.key, r.networkTopology(p.dcs))
	return t.(*replicaTable)
}

// networkTopology places replicas as gocql v1.7.0 does for NetworkTopologyStrategy, which
// follows Cassandra: walking the ring from each token, every data centre takes nodes until
// it has its factor, preferring racks it has not used yet; the nodes passed over for an
// already used rack are taken, in ring order, once every rack of the data centre has one.
// Like gocql, a token owned by a node of a data centre without replicas starts no range of its
// own (its range joins the next one), and only racks that have a node in the ring count.
// Unlike gocql, a node owning several tokens (vnodes) is never placed twice in one range.
func (r *tokenRing) networkTopology(dcs map[string]int) *replicaTable {
	racksOf := map[string]map[string]bool{} // data centre -> its racks
	for _, h := range r.hosts {
		dc := h.DataCenter()
		if racksOf[dc] == nil {
			racksOf[dc] = map[string]bool{}
		}
		racksOf[dc][h.Rack()] = true
	}
	total := 0
	for _, rf := range dcs {
		total += rf
	}
	t := &replicaTable{}
	n := len(r.entries)
	for i, e := range r.entries {
		if dcs[e.host.DataCenter()] == 0 {
			continue
		}
		got := map[string]int{}
		used := map[string]map[string]bool{} // data centre -> racks holding a replica
		passed := map[string][]*HostInfo{}   // data centre -> nodes passed over
		var reps []*HostInfo
		for j := 0; j < n && len(reps) < total; j++ {
			h := r.entries[(i+j)%n].host
			dc, rack := h.DataCenter(), h.Rack()
			rf := dcs[dc]
			if rf == 0 || got[dc] >= rf || slices.Contains(reps, h) || slices.Contains(passed[dc], h) {
				continue
			}
			if used[dc] == nil {
				used[dc] = map[string]bool{}
			}
			switch {
			case !used[dc][rack]:
				used[dc][rack] = true
				reps = append(reps, h)
				got[dc]++
				if len(used[dc]) == len(racksOf[dc]) {
					// Every rack has a replica: the nodes passed over come next.
					for len(passed[dc]) > 0 && got[dc] < rf {
						reps = append(reps, passed[dc][0])
						passed[dc] = passed[dc][1:]
						got[dc]++
					}
				}
			case len(used[dc]) == len(racksOf[dc]):
				reps = append(reps, h)
				got[dc]++
			default:
				passed[dc] = append(passed[dc], h)
			}
		}
		t.ends = append(t.ends, e.token)
		t.replicas = append(t.replicas, reps)
	}
	return t
}
