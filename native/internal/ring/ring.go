package ring

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Ring is an immutable token ring: every node's tokens, sorted. Nodes are identified by their
// index in the slice given to New.
type Ring struct {
	tokens []int64 // sorted ascending
	owners []int32 // owners[i] owns tokens[i]
	nodes  int
}

// New builds a ring from the tokens of each node (nodeTokens[i] are node i's tokens).
func New(nodeTokens [][]int64) *Ring {
	r := &Ring{nodes: len(nodeTokens)}
	for node, ts := range nodeTokens {
		for _, t := range ts {
			r.tokens = append(r.tokens, t)
			r.owners = append(r.owners, int32(node))
		}
	}
	sort.Sort(byToken{r})
	return r
}

type byToken struct{ r *Ring }

func (b byToken) Len() int           { return len(b.r.tokens) }
func (b byToken) Less(i, j int) bool { return b.r.tokens[i] < b.r.tokens[j] }
func (b byToken) Swap(i, j int) {
	b.r.tokens[i], b.r.tokens[j] = b.r.tokens[j], b.r.tokens[i]
	b.r.owners[i], b.r.owners[j] = b.r.owners[j], b.r.owners[i]
}

// ParseToken parses a Murmur3 token as the server lists it (a decimal int64).
func ParseToken(s string) (int64, error) {
	t, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ring: token %q is not a Murmur3 token: %w", s, err)
	}
	return t, nil
}

// Len returns the number of tokens in the ring.
func (r *Ring) Len() int { return len(r.tokens) }

// index returns the position of the token range that contains t: the first ring token >= t,
// wrapping around to 0 past the last one.
func (r *Ring) index(t int64) int {
	lo, hi := 0, len(r.tokens)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.tokens[m] < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(r.tokens) {
		return 0
	}
	return lo
}

// Owner returns the node that owns token t (its primary replica), or -1 for an empty ring.
func (r *Ring) Owner(t int64) int {
	if len(r.tokens) == 0 {
		return -1
	}
	return int(r.owners[r.index(t)])
}

// Node is the placement information of a node that replication strategies use.
type Node struct {
	DC   string
	Rack string
}

// Replication is a keyspace's replication strategy, as in system_schema.keyspaces.
type Replication struct {
	// Class is the strategy's short class name: SimpleStrategy, NetworkTopologyStrategy,
	// LocalStrategy, EverywhereStrategy (ScyllaDB) or another (treated as primary-only).
	Class string
	// Factor is SimpleStrategy's replication factor.
	Factor int
	// DCFactors are NetworkTopologyStrategy's replication factors per data center.
	DCFactors map[string]int
}

// ParseReplication reads the replication map of system_schema.keyspaces.
func ParseReplication(m map[string]string) (Replication, error) {
	class := m["class"]
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	rep := Replication{Class: class}
	switch class {
	case "SimpleStrategy":
		f, err := parseFactor(m["replication_factor"])
		if err != nil {
			return rep, err
		}
		rep.Factor = f
	case "NetworkTopologyStrategy":
		rep.DCFactors = map[string]int{}
		for k, v := range m {
			if k == "class" {
				continue
			}
			f, err := parseFactor(v)
			if err != nil {
				return rep, fmt.Errorf("data center %s: %w", k, err)
			}
			rep.DCFactors[k] = f
		}
	}
	return rep, nil
}

// parseFactor parses "3" or a transient replication factor "3/1" (full/transient).
func parseFactor(s string) (int, error) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	f, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || f < 0 {
		return 0, fmt.Errorf("ring: bad replication factor %q", s)
	}
	return f, nil
}

// Replicas maps every token range of a ring to its replicas under one replication
// strategy. It is computed once per topology and keyspace; For allocates nothing.
type Replicas struct {
	ring *Ring
	sets [][]int32 // sets[i] are the replicas of the range ending at ring.tokens[i]
}

// Replicas computes the replica sets of every token range for rep; nodes[i] describes node
// i of the ring.
func (r *Ring) Replicas(rep Replication, nodes []Node) *Replicas {
	p := &Replicas{ring: r, sets: make([][]int32, len(r.tokens))}
	for i := range r.tokens {
		switch rep.Class {
		case "SimpleStrategy":
			p.sets[i] = r.simple(i, rep.Factor)
		case "NetworkTopologyStrategy":
			p.sets[i] = r.networkTopology(i, rep.DCFactors, nodes)
		case "EverywhereStrategy":
			p.sets[i] = r.simple(i, r.nodes)
		default:
			p.sets[i] = []int32{r.owners[i]}
		}
	}
	return p
}

// For returns the replicas of token t, primary first. The slice is shared; do not modify it.
func (p *Replicas) For(t int64) []int32 {
	if p == nil || len(p.sets) == 0 {
		return nil
	}
	return p.sets[p.ring.index(t)]
}

// simple walks the ring from range i and takes the first rf distinct nodes.
func (r *Ring) simple(i, rf int) []int32 {
	rf = min(rf, r.nodes)
	out := make([]int32, 0, rf)
	for j := 0; j < len(r.tokens) && len(out) < rf; j++ {
		n := r.owners[(i+j)%len(r.tokens)]
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// networkTopology places replicas as Cassandra's NetworkTopologyStrategy does: walking the
// ring from range i, each data center takes nodes from racks it has not used yet first, and
// nodes skipped because their rack was used once every rack has one.
func (r *Ring) networkTopology(i int, dcRF map[string]int, nodes []Node) []int32 {
	type dcState struct {
		want      int
		got       int
		racks     map[string]bool
		rackCount int
		skipped   []int32
	}
	dcs := map[string]*dcState{}
	total := 0
	racksPerDC := map[string]map[string]bool{}
	nodesPerDC := map[string]int{}
	for n, nd := range nodes {
		if n >= r.nodes {
			break
		}
		if racksPerDC[nd.DC] == nil {
			racksPerDC[nd.DC] = map[string]bool{}
		}
		racksPerDC[nd.DC][nd.Rack] = true
		nodesPerDC[nd.DC]++
	}
	for dc, rf := range dcRF {
		want := min(rf, nodesPerDC[dc])
		if want == 0 {
			continue
		}
		dcs[dc] = &dcState{want: want, racks: map[string]bool{}, rackCount: len(racksPerDC[dc])}
		total += want
	}
	var out []int32
	for j := 0; j < len(r.tokens) && len(out) < total; j++ {
		n := r.owners[(i+j)%len(r.tokens)]
		if int(n) >= len(nodes) || slices.Contains(out, n) {
			continue
		}
		st := dcs[nodes[n].DC]
		if st == nil || st.got >= st.want || slices.Contains(st.skipped, n) {
			continue
		}
		rack := nodes[n].Rack
		switch {
		case !st.racks[rack]:
			st.racks[rack] = true
			out = append(out, n)
			st.got++
			if len(st.racks) == st.rackCount {
				for len(st.skipped) > 0 && st.got < st.want {
					out = append(out, st.skipped[0])
					st.skipped = st.skipped[1:]
					st.got++
				}
			}
		case len(st.racks) == st.rackCount:
			out = append(out, n)
			st.got++
		default:
			st.skipped = append(st.skipped, n)
		}
	}
	return out
}
