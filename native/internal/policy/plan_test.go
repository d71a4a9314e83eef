package policy

import (
	"slices"
	"testing"
)

func collect(p Plan) []int {
	var out []int
	for {
		n, ok := p.Next()
		if !ok {
			return out
		}
		out = append(out, n)
	}
}

func TestPlanRoundRobin(t *testing.T) {
	for start, want := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}} {
		if got := collect(NewPlan(nil, 3, nil, uint64(start))); !slices.Equal(got, want) {
			t.Errorf("start %d: %v, want %v", start, got, want)
		}
	}
}

func TestPlanReplicasFirstEachNodeOnce(t *testing.T) {
	got := collect(NewPlan([]int32{3, 1}, 5, nil, 1))
	// Replicas rotated by start 1: 1, 3; then the others from offset 1, skipping replicas.
	if want := []int{1, 3, 2, 4, 0}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// InOrder offers the replicas primary first whatever the start; the other nodes still rotate,
// and local replicas still come before remote ones.
func TestPlanInOrder(t *testing.T) {
	for start, want := range [][]int{{3, 1, 0, 2, 4}, {3, 1, 2, 4, 0}, {3, 1, 2, 4, 0}} {
		p := NewPlan([]int32{3, 1}, 5, nil, uint64(start))
		p.InOrder()
		if got := collect(p); !slices.Equal(got, want) {
			t.Errorf("start %d: %v, want %v", start, got, want)
		}
	}
	p := NewPlan([]int32{1, 3, 2}, 4, []bool{false, true, false, true}, 1)
	p.InOrder()
	if got, want := collect(p), []int{2, 0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("with a remote primary: %v, want %v", got, want)
	}
}

func TestPlanLocalBeforeRemote(t *testing.T) {
	remote := []bool{false, true, false, true}
	got := collect(NewPlan([]int32{1, 2}, 4, remote, 0))
	if want := []int{2, 0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPlanEmpty(t *testing.T) {
	if got := collect(NewPlan(nil, 0, nil, 7)); len(got) != 0 {
		t.Errorf("empty cluster gave %v", got)
	}
	// Replicas beyond the node count (a stale ring) are skipped.
	if got := collect(NewPlan([]int32{9}, 2, nil, 0)); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("stale replica: %v", got)
	}
}

func TestPlanAllocatesNothing(t *testing.T) {
	reps := []int32{2, 0}
	remote := []bool{false, false, true}
	allocs := testing.AllocsPerRun(100, func() {
		p := NewPlan(reps, 3, remote, 5)
		for {
			if _, ok := p.Next(); !ok {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("plan allocates %v times", allocs)
	}
}
