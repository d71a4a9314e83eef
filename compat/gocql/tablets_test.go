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
