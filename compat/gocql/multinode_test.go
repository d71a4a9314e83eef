package gocql

import (
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestMultiNodeHostPlans runs against a three-node embedded cqlsim cluster: round-robin spreads
// queries over the nodes, RetryNextHost moves to another node, and a stopped node is left out
// of the plans.
func TestMultiNodeHostPlans(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	cluster := NewCluster(sim.Addrs()[0])
	cluster.Port = sim.Port()
	cluster.Consistency = One
	cluster.Timeout = 10 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.allHosts()); n != 3 {
		t.Fatalf("the session discovered %d hosts, want 3", n)
	}
	ks := "mn"
	if err := s.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}").Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("CREATE TABLE " + ks + ".t (id int PRIMARY KEY, v int)").Exec(); err != nil {
		t.Fatal(err)
	}
	obs := &countingObserver{}
	for i := 0; i < 9; i++ {
		if err := s.Query("INSERT INTO "+ks+".t (id, v) VALUES (?, ?)", i, i).Observer(obs).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for _, o := range obs.all() {
		seen[o.Host.ConnectAddress().String()]++
	}
	if len(seen) != 3 {
		t.Fatalf("round-robin used hosts %v, want all three", seen)
	}

	// A retry policy moving to the next host: a failing statement is tried on every node.
	obs = &countingObserver{}
	err = s.Query("SELECT nope FROM " + ks + ".t").RetryPolicy(&SimpleRetryPolicy{NumRetries: 5}).Observer(obs).Exec()
	var re RequestError
	if !errors.As(err, &re) {
		t.Fatalf("failing query: %v", err)
	}
	hosts := map[string]bool{}
	for _, o := range obs.all() {
		hosts[o.Host.ConnectAddress().String()] = true
	}
	if len(obs.all()) != 3 || len(hosts) != 3 {
		t.Fatalf("RetryNextHost made %d attempts on %d hosts, want 3 on 3 (the plan is exhausted)", len(obs.all()), len(hosts))
	}

	// Speculative executions of an idempotent query go to distinct nodes of the shared plan.
	obs = &countingObserver{}
	sp := &SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: time.Nanosecond}
	var v int
	if err := s.Query("SELECT v FROM "+ks+".t WHERE id = ?", 4).Idempotent(true).
		SetSpeculativeExecutionPolicy(sp).Observer(obs).Scan(&v); err != nil || v != 4 {
		t.Fatalf("speculative read: %d, %v", v, err)
	}
	used := map[*HostInfo]bool{}
	for _, o := range obs.all() {
		if used[o.Host] {
			t.Fatalf("two executions ran on %v", o.Host)
		}
		used[o.Host] = true
	}

	// A stopped node leaves the plans once the topology shows it down.
	if err := sim.StopNode(2); err != nil {
		t.Fatal(err)
	}
	down := sim.Addrs()[2]
	deadline := time.Now().Add(30 * time.Second)
	for {
		h := s.hostByAddr(down)
		if h == nil || !h.IsUp() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stopped node is still up in the session's view after 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	obs = &countingObserver{}
	for i := 0; i < 6; i++ {
		if err := s.Query("SELECT v FROM "+ks+".t WHERE id = ?", i).Observer(obs).Exec(); err != nil {
			t.Fatalf("query %d with a node down: %v", i, err)
		}
	}
	for _, o := range obs.all() {
		if o.Host.dialAddr() == down {
			t.Fatalf("a query went to the stopped node %s", down)
		}
	}
}
