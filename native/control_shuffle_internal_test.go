package native

import (
	"context"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestShuffleContactPoints: sessions given the same three contact points all open their control
// connection to the first one by default, and spread over the nodes with ShuffleContactPoints.
func TestShuffleContactPoints(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	controlNodes := func(shuffle bool) map[string]int {
		seen := map[string]int{}
		for range 16 {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			s, err := Connect(ctx, Config{Hosts: sim.Addrs(), ConnsPerHost: 1, ShuffleContactPoints: shuffle})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			s.control.mu.Lock()
			seen[s.control.c.Addr()]++
			s.control.mu.Unlock()
			s.Close()
		}
		return seen
	}
	if seen := controlNodes(false); len(seen) != 1 || seen[sim.Addrs()[0]] != 16 {
		t.Errorf("contact points in order: control connections on %v, want all 16 on %s", seen, sim.Addrs()[0])
	}
	// All 16 on one node by chance: probability 3 × (1/3)^16, under 1e-7.
	if seen := controlNodes(true); len(seen) < 2 {
		t.Errorf("shuffled contact points: control connections on %v, want them spread", seen)
	}
}
