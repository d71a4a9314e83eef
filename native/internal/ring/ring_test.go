package ring

import (
	"math"
	"slices"
	"testing"
)

func TestOwnerWrapsAround(t *testing.T) {
	r := New([][]int64{{-100, 100}, {0}})
	cases := []struct {
		tok  int64
		want int
	}{
		{math.MinInt64, 0}, {-100, 0}, {-99, 1}, {0, 1}, {1, 0}, {100, 0}, {101, 0}, {math.MaxInt64, 0},
	}
	for _, c := range cases {
		if got := r.Owner(c.tok); got != c.want {
			t.Errorf("Owner(%d) = %d, want %d", c.tok, got, c.want)
		}
	}
	if New(nil).Owner(5) != -1 {
		t.Error("empty ring should have no owner")
	}
}

func TestSimpleStrategyReplicas(t *testing.T) {
	// Ring order: 10(n0) 20(n1) 30(n0) 40(n2).
	r := New([][]int64{{10, 30}, {20}, {40}})
	p := r.Replicas(Replication{Class: "SimpleStrategy", Factor: 2}, nil)
	cases := []struct {
		tok  int64
		want []int32
	}{
		{5, []int32{0, 1}},  // range ending at 10
		{15, []int32{1, 0}}, // range ending at 20
		{25, []int32{0, 2}}, // range ending at 30: n0, then 40 is n2
		{35, []int32{2, 0}}, // range ending at 40, wraps to 10
		{45, []int32{0, 1}}, // past the last token: wraps
	}
	for _, c := range cases {
		if got := p.For(c.tok); !slices.Equal(got, c.want) {
			t.Errorf("For(%d) = %v, want %v", c.tok, got, c.want)
		}
	}
	// A factor above the node count is capped.
	if got := r.Replicas(Replication{Class: "SimpleStrategy", Factor: 5}, nil).For(5); len(got) != 3 {
		t.Errorf("RF 5 on 3 nodes gave %v", got)
	}
}

func TestNetworkTopologyStrategyPrefersDistinctRacks(t *testing.T) {
	// dc1: n0 rack a, n1 rack a, n2 rack b; dc2: n3.
	nodes := []Node{{"dc1", "a"}, {"dc1", "a"}, {"dc1", "b"}, {"dc2", "x"}}
	// Ring order: 10 n0, 20 n1, 30 n3, 40 n2.
	r := New([][]int64{{10}, {20}, {40}, {30}})
	p := r.Replicas(Replication{Class: "NetworkTopologyStrategy", DCFactors: map[string]int{"dc1": 2, "dc2": 1}}, nodes)
	// From 10: n0 (rack a), n1 skipped (rack a used), n3 (dc2), n2 (rack b).
	if got, want := p.For(10), []int32{0, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("For(10) = %v, want %v", got, want)
	}
	// With RF 3 in dc1, the skipped n1 is added once both racks are used.
	p = r.Replicas(Replication{Class: "NetworkTopologyStrategy", DCFactors: map[string]int{"dc1": 3}}, nodes)
	if got, want := p.For(10), []int32{0, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("For(10) with RF 3 = %v, want %v", got, want)
	}
}

func TestParseReplication(t *testing.T) {
	rep, err := ParseReplication(map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"})
	if err != nil || rep.Class != "SimpleStrategy" || rep.Factor != 3 {
		t.Errorf("SimpleStrategy: %+v, %v", rep, err)
	}
	rep, err = ParseReplication(map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3/1", "dc2": "2"})
	if err != nil || rep.DCFactors["dc1"] != 3 || rep.DCFactors["dc2"] != 2 {
		t.Errorf("NetworkTopologyStrategy: %+v, %v", rep, err)
	}
	if _, err := ParseReplication(map[string]string{"class": "SimpleStrategy", "replication_factor": "three"}); err == nil {
		t.Error("bad factor accepted")
	}
}

func TestForAllocatesNothing(t *testing.T) {
	r := New([][]int64{{10, 30}, {20}, {40}})
	p := r.Replicas(Replication{Class: "SimpleStrategy", Factor: 2}, nil)
	allocs := testing.AllocsPerRun(100, func() {
		_ = p.For(Token([]byte("key")))
	})
	if allocs != 0 {
		t.Errorf("For allocates %v times", allocs)
	}
}
