package gocql

import (
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// On ScyllaDB, the native core opts in to tablets routing, so a node describes a misrouted
// request's tablet in the custom payload of its answer; gocql v1.7.0 does not opt in and never
// sees that entry, and neither does an application of the shim: Iter.GetCustomPayload leaves it
// out.
func TestTabletDescriptionHiddenFromApplication(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Shards: 2, Tablets: 4})
	run := func(name string, exec func(cql string, values ...any) error, query func(cql string, values ...any) (map[string][]byte, error)) int64 {
		t.Helper()
		for _, ddl := range []string{
			"CREATE KEYSPACE IF NOT EXISTS tb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE IF NOT EXISTS tb.kv (k int PRIMARY KEY, v int)",
		} {
			if err := exec(ddl); err != nil {
				t.Fatalf("%s: %s: %v", name, ddl, err)
			}
		}
		before := sim.TabletStats().Payloads
		for k := range 30 {
			if err := exec("INSERT INTO tb.kv (k, v) VALUES (?, ?)", k, k); err != nil {
				t.Fatal(err)
			}
			payload, err := query("SELECT v FROM tb.kv WHERE k = ?", k)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := payload[proto.TabletsRoutingPayload]; ok {
				t.Fatalf("%s: GetCustomPayload shows the node's tablet description: %v", name, payload)
			}
		}
		return sim.TabletStats().Payloads - before
	}

	cluster := NewCluster(sim.Addrs()[0])
	cluster.PoolConfig.HostSelectionPolicy = RoundRobinHostPolicy()
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sent := run("the shim", func(cql string, values ...any) error { return s.Query(cql, values...).Exec() },
		func(cql string, values ...any) (map[string][]byte, error) {
			it := s.Query(cql, values...).Iter()
			p := it.GetCustomPayload()
			return p, it.Close()
		})
	if sent == 0 {
		t.Error("the shim: no request reached a node without a replica, so the test proved nothing (want some: round-robin over three nodes, one replica each)")
	}

	lcluster := gocqlv1.NewCluster(sim.Addrs()[0])
	lcluster.PoolConfig.HostSelectionPolicy = gocqlv1.RoundRobinHostPolicy()
	legacy, err := lcluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	sent = run("gocql", func(cql string, values ...any) error { return legacy.Query(cql, values...).Exec() },
		func(cql string, values ...any) (map[string][]byte, error) {
			it := legacy.Query(cql, values...).Iter()
			p := it.GetCustomPayload()
			return p, it.Close()
		})
	if sent != 0 {
		t.Errorf("gocql v1.7.0 was sent %d tablet descriptions, want none (it does not opt in)", sent)
	}
}

// With the token-aware policy, the shim sends a query on a table using tablets (ScyllaDB) to
// the replicas of its partition's tablet once the native session knows the tablet, as
// scylladb/gocql does; gocql v1.7.0 routes by the token ring, which tablets do not follow
// (deviation G48).
func TestTokenAwareRoutesByTablet(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Shards: 1, Tablets: 8})
	pass := func(exec func(cql string, values ...any) error) int64 {
		before := sim.TabletStats()
		for k := range 60 {
			if err := exec("SELECT v FROM tb.kv WHERE k = ?", k); err != nil {
				t.Fatal(err)
			}
		}
		return sim.TabletStats().OffReplica - before.OffReplica
	}
	setup := func(exec func(cql string, values ...any) error) {
		for _, q := range []string{
			"CREATE KEYSPACE IF NOT EXISTS tb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE IF NOT EXISTS tb.kv (k int PRIMARY KEY, v int)",
		} {
			if err := exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}

	cluster := NewCluster(sim.Addrs()[0])
	cluster.PoolConfig.HostSelectionPolicy = TokenAwareHostPolicy(RoundRobinHostPolicy())
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shim := func(cql string, values ...any) error { return s.Query(cql, values...).Exec() }
	setup(shim)
	pass(shim) // learns the tablets
	if off := pass(shim); off != 0 {
		t.Errorf("the shim: %d of 60 queries reached a node without their tablet's replica once the tablets were known, want 0", off)
	}

	lcluster := gocqlv1.NewCluster(sim.Addrs()[0])
	lcluster.PoolConfig.HostSelectionPolicy = gocqlv1.TokenAwareHostPolicy(gocqlv1.RoundRobinHostPolicy())
	legacy, err := lcluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	old := func(cql string, values ...any) error { return legacy.Query(cql, values...).Exec() }
	pass(old)
	if off := pass(old); off == 0 {
		t.Error("gocql v1.7.0 reached every tablet's replica by the token ring: the test cannot tell the shim's routing from it")
	}
}
