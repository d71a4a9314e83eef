package native_test

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	gocql "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/internal/ring"
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
		got := servingNodes(t, s, sel.Bind(k), 8)
		if !slices.Equal(got, want) {
			t.Errorf("key %d: served by %v, gocql's local replicas are %v", k, got, want)
		}
	}
}

// With LocalDC set, on a cluster of two data centres (127.0.0.1-2 in dc1, 127.0.0.3-4 in dc2),
// requests go to dc1's nodes only: a statement with a partition key to that partition's dc1
// replica (NetworkTopologyStrategy, one replica per data centre), one without to either dc1
// node. With both dc1 nodes stopped, dc2's nodes serve; once they are back, dc1's again.
func TestLocalDCRoutingOnTwoDataCenters(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 4, NodeDataCenters: []string{"dc1", "dc1", "dc2", "dc2"}})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], LocalDC: "dc1", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 4)
	dc := map[string]string{}
	type owned struct {
		token int64
		addr  string
	}
	var ringOrder []owned
	for _, h := range s.Hosts() {
		dc[h.Addr] = h.DataCenter
		for _, tok := range h.Tokens {
			v, err := ring.ParseToken(tok)
			if err != nil {
				t.Fatal(err)
			}
			ringOrder = append(ringOrder, owned{v, h.Addr})
		}
	}
	slices.SortFunc(ringOrder, func(a, b owned) int { return cmp.Compare(a.token, b.token) })
	// localReplica walks the ring from the key's token to the first dc1 node: the dc1 replica
	// under NetworkTopologyStrategy with one replica in dc1 (one rack).
	localReplica := func(k int) string {
		tok := ring.Token(binary.BigEndian.AppendUint32(nil, uint32(k)))
		start, _ := slices.BinarySearchFunc(ringOrder, tok, func(o owned, t int64) int { return cmp.Compare(o.token, t) })
		for i := range ringOrder {
			if o := ringOrder[(start+i)%len(ringOrder)]; dc[o.addr] == "dc1" {
				return o.addr
			}
		}
		return ""
	}
	mustExec(t, s, "CREATE KEYSPACE twodc WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}")
	mustExec(t, s, "CREATE TABLE twodc.kv (k int PRIMARY KEY, v int)")
	// The driver refreshes its replica map on the schema change event; wait for it.
	time.Sleep(500 * time.Millisecond)
	ins := mustPrepare(t, s, "INSERT INTO twodc.kv (k, v) VALUES (?, ?)")
	perHost := map[string]int{}
	for k := range 60 {
		res, err := s.Execute(ctxT(t), ins.Bind(k, k))
		if err != nil {
			t.Fatal(err)
		}
		if want := localReplica(k); res.Host() != want {
			t.Errorf("key %d went to %s (%s), its dc1 replica is %s", k, res.Host(), dc[res.Host()], want)
		}
		perHost[res.Host()]++
	}
	if len(perHost) != 2 {
		t.Errorf("60 keys reached %v, want both dc1 nodes", perHost)
	}
	served := func(n int) map[string]string {
		out := map[string]string{}
		for range n {
			res, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local").WithIdempotent(true))
			if err != nil {
				continue // a node stopped a moment ago
			}
			out[res.Host()] = dc[res.Host()]
		}
		return out
	}
	// waitServedBy waits until statements are served by exactly the given nodes.
	waitServedBy := func(when string, nodes ...int) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			got := served(40)
			ok := len(got) == len(nodes)
			for _, i := range nodes {
				ok = ok && got[cl.Addrs()[i]] != ""
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s, statements without a partition key were served by %v, want nodes %v", when, got, nodes)
			}
		}
	}
	waitServedBy("with every node up", 0, 1)
	for i := range 2 {
		if err := cl.StopNode(i); err != nil {
			t.Fatal(err)
		}
	}
	waitServedBy("with dc1 stopped", 2, 3)
	for i := range 2 {
		if err := cl.StartNode(i); err != nil {
			t.Fatal(err)
		}
	}
	waitServedBy("after dc1's return", 0, 1)
}

// Connect refuses a LocalDC that no node of the cluster is in (a misspelt name), naming the
// data centers there are, rather than treating every node as remote.
func TestConnectRefusesUnknownLocalDC(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, NodeDataCenters: []string{"dc1", "dc2", "dc2"}})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], LocalDC: "DC1"})
	if err == nil {
		s.Close()
		t.Fatal("Connect with LocalDC DC1 succeeded on a cluster of dc1 and dc2")
	}
	if !errors.Is(err, native.ErrUnknownLocalDC) || !strings.Contains(err.Error(), `"DC1" (the cluster's data centers: dc1, dc2)`) {
		t.Fatalf("Connect with LocalDC DC1: %v; want ErrUnknownLocalDC naming dc1 and dc2", err)
	}
	// A data center whose nodes are all down still exists: Connect goes ahead.
	if err := cl.StopNode(0); err != nil {
		t.Fatal(err)
	}
	s, err = native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[1:2], LocalDC: "dc1"})
	if err != nil {
		t.Fatalf("Connect with LocalDC dc1, whose only node is down: %v", err)
	}
	defer s.Close()
	if _, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local")); err != nil {
		t.Fatalf("request with the local data center down: %v", err)
	}
}
