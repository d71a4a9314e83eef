package gocql

import (
	"fmt"
	"slices"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// shardedKeyed runs n writes and reads by partition key through exec on a sharded cqlsim
// and returns how many reached the shard owning their partition and how many another.
func shardedKeyed(t *testing.T, sim *cqlsim.Cluster, n int, exec func(cql string, values ...any) error) (on, off int64) {
	t.Helper()
	for _, ddl := range []string{
		"CREATE KEYSPACE IF NOT EXISTS sh WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS sh.kv (k int PRIMARY KEY, v text)",
	} {
		if err := exec(ddl); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
	}
	before := sim.ShardStats()
	for k := range n {
		if err := exec("INSERT INTO sh.kv (k, v) VALUES (?, ?)", k, fmt.Sprint(k)); err != nil {
			t.Fatal(err)
		}
		if err := exec("SELECT v FROM sh.kv WHERE k = ?", k); err != nil {
			t.Fatal(err)
		}
	}
	after := sim.ShardStats()
	return after.OnShard - before.OnShard, after.OffShard - before.OffShard
}

// On ScyllaDB nodes that describe their sharding, the shim keeps a connection per shard and
// sends each query whose partition key it knows to the shard owning it, with the token-aware
// policy and with round-robin alike; gocql v1.7.0 keeps NumConns connections and sends them
// to whichever shard serves its connection (deviation G45).
func TestShardAwareOnScylla(t *testing.T) {
	policies := map[string]func() HostSelectionPolicy{
		"round-robin": RoundRobinHostPolicy,
		"token-aware": func() HostSelectionPolicy { return TokenAwareHostPolicy(RoundRobinHostPolicy()) },
	}
	for name, policy := range policies {
		t.Run(name, func(t *testing.T) {
			sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Shards: 4, ShardAwarePort: true})
			cluster := NewCluster(sim.Addrs()[0])
			cluster.PoolConfig.HostSelectionPolicy = policy()
			s, err := cluster.CreateSession()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			deadline := time.Now().Add(10 * time.Second)
			for i := 0; i < 3; i++ {
				for slices.Contains(sim.ShardConns(i), 0) {
					if time.Now().After(deadline) {
						t.Fatalf("node %d: connections per shard %v, want at least one each", i, sim.ShardConns(i))
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			on, off := shardedKeyed(t, sim, 100, func(cql string, values ...any) error {
				return s.Query(cql, values...).Exec()
			})
			// The token-aware policy's reads of the keyspace's replication count too.
			if on < 200 || off != 0 {
				t.Errorf("the shim: %d queries on the owning shard, %d on another; want at least 200 and 0", on, off)
			}
		})
	}
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Shards: 4, ShardAwarePort: true})
	cluster := gocqlv1.NewCluster(sim.Addrs()[0])
	cluster.PoolConfig.HostSelectionPolicy = gocqlv1.TokenAwareHostPolicy(gocqlv1.RoundRobinHostPolicy())
	legacy, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	on, off := shardedKeyed(t, sim, 100, func(cql string, values ...any) error {
		return legacy.Query(cql, values...).Exec()
	})
	if on+off < 200 || off == 0 {
		t.Errorf("gocql v1.7.0: %d queries on the owning shard, %d on another; want 200 or more, some on another shard", on, off)
	}
}
