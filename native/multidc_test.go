package native_test

import (
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// TestLocalReplicasWithRacksMatchGocql checks the native core's NetworkTopologyStrategy
// placement against gocql v1.7.0's: on six nodes in two data centres with two racks each and a
// keyspace with two replicas per data centre, the requests for a key (LocalDC dc1, token-aware)
// go to exactly the two dc1 nodes that lead gocql's plan for it (TokenAwareHostPolicy over
// DCAwareRoundRobinPolicy("dc1"), the keyspace as its session keyspace, so that it knows the
// replicas): the native core spreads a key's requests over its local replicas.
func TestLocalReplicasWithRacksMatchGocql(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 6,
		NodeDataCenters: []string{"dc1", "dc1", "dc1", "dc2", "dc2", "dc2"},
		NodeRacks:       []string{"r1", "r2", "r1", "r1", "r1", "r2"}})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], LocalDC: "dc1", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 6)
	mustExec(t, s, "CREATE KEYSPACE racks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 2}")
	mustExec(t, s, "CREATE TABLE racks.kv (k int PRIMARY KEY, v int)")
	// The driver refreshes its replica map on the schema change event; wait for it.
	time.Sleep(500 * time.Millisecond)

	lc := gocql.NewCluster(cl.Addrs()[0])
	lc.Port, lc.Keyspace, lc.Timeout = cl.Port(), "racks", 30*time.Second
	policy := gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy("dc1"))
	lc.PoolConfig.HostSelectionPolicy = policy
	ls, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()

	const q = "SELECT v FROM racks.kv WHERE k = ?"
	sel := mustPrepare(t, s, q)
	for k := range 40 {
		next := policy.Pick(ls.Query(q, k))
		var want []string
		for len(want) < 2 {
			h := next()
			if h == nil {
				t.Fatalf("key %d: gocql's plan has fewer than 2 hosts", k)
			}
			want = append(want, net.JoinHostPort(h.Info().ConnectAddress().String(), fmt.Sprint(cl.Port())))
		}
		slices.Sort(want)
		var got []string
		for range 8 {
			res, err := s.Execute(ctxT(t), sel.Bind(k))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got, res.Host()) {
				got = append(got, res.Host())
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("key %d: served by %v, gocql's local replicas are %v", k, got, want)
		}
	}
}
