package gocql

import (
	"slices"
	"testing"
	"time"

	"github.com/hailocab/go-hostpool"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// markCountingPool wraps a real host pool and counts the outcomes reported to it.
type markCountingPool struct {
	hostpool.HostPool
	gets int
}

func (p *markCountingPool) Get() hostpool.HostPoolResponse {
	p.gets++
	return p.HostPool.Get()
}

// TestHostPoolHostPolicy runs queries on a three-node cqlsim with the pool choosing the hosts:
// every node is discovered into the pool, and queries succeed through it.
func TestHostPoolHostPolicy(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	pool := &markCountingPool{HostPool: hostpool.New(nil)}
	cluster := NewCluster(sim.Addrs()[0])
	cluster.Port = sim.Port()
	cluster.Consistency = One
	cluster.Timeout = 10 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = HostPoolHostPolicy(pool)
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := len(pool.Hosts()); got != 3 {
		t.Fatalf("the pool knows %d hosts (%v), want the 3 discovered nodes", got, pool.Hosts())
	}
	obs := &countingObserver{}
	for i := 0; i < 6; i++ {
		var key string
		if err := s.Query("SELECT key FROM system.local").Observer(obs).Scan(&key); err != nil {
			t.Fatalf("query %d through the host pool: %v", i, err)
		}
	}
	if pool.gets < 6 {
		t.Fatalf("the pool chose %d hosts for 6 queries", pool.gets)
	}
	for _, o := range obs.all() {
		if !slices.Contains(pool.Hosts(), o.Host.ConnectAddress().String()) {
			t.Fatalf("query ran on %v, which the pool does not know", o.Host.ConnectAddress())
		}
	}
}
