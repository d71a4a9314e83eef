package ring

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// ntsReference is Cassandra 4's NetworkTopologyStrategy.calculateNaturalReplicas, written
// out plainly: walking the ring from range i, a data center takes a node of a rack it has not
// used yet, or, while it has rack repeats to spare (rf minus its rack count), any node.
func ntsReference(r *Ring, i int, dcRF map[string]int, nodes []Node) []int32 {
	type dcState struct {
		rfLeft, repeats int
		racks           map[string]bool
	}
	racks := map[string]map[string]bool{}
	count := map[string]int{}
	for _, n := range nodes {
		if racks[n.DC] == nil {
			racks[n.DC] = map[string]bool{}
		}
		racks[n.DC][n.Rack] = true
		count[n.DC]++
	}
	dcs := map[string]*dcState{}
	for dc, rf := range dcRF {
		if left := min(rf, count[dc]); left > 0 {
			dcs[dc] = &dcState{rfLeft: left, repeats: rf - len(racks[dc]), racks: map[string]bool{}}
		}
	}
	var out []int32
	for j := 0; j < len(r.tokens); j++ {
		n := r.owners[(i+j)%len(r.tokens)]
		st := dcs[nodes[n].DC]
		if st == nil || st.rfLeft == 0 || slices.Contains(out, n) {
			continue
		}
		if !st.racks[nodes[n].Rack] {
			st.racks[nodes[n].Rack] = true
		} else if st.repeats <= 0 {
			continue
		} else {
			st.repeats--
		}
		st.rfLeft--
		out = append(out, n)
	}
	return out
}

// NetworkTopologyStrategy placement agrees with Cassandra's on random topologies (the same
// replica sets). (Regression coverage: passed before the review.)
func TestReviewNetworkTopologyMatchesCassandra(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		nNodes := 1 + rng.IntN(8)
		nodes := make([]Node, nNodes)
		tokens := make([][]int64, nNodes)
		for i := range nodes {
			nodes[i] = Node{DC: []string{"dc1", "dc2"}[rng.IntN(2)], Rack: []string{"r1", "r2", "r3"}[rng.IntN(3)]}
			for range 1 + rng.IntN(4) {
				tokens[i] = append(tokens[i], rng.Int64N(1000)-500)
			}
		}
		r := New(tokens)
		rf := map[string]int{"dc1": rng.IntN(5), "dc2": rng.IntN(5)}
		for i := range r.tokens {
			got := slices.Clone(r.networkTopology(i, rf, nodes))
			want := ntsReference(r, i, rf, nodes)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("iter %d range %d: nodes %v tokens %v rf %v: got %v, want %v", iter, i, nodes, tokens, rf, got, want)
			}
		}
	}
}
