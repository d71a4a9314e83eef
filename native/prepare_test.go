package native_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// On a real multi-node cluster, Prepare reaches every node: each Cassandra node records the
// statements prepared on it in its own system.prepared_statements table. (On one node there is
// nothing to check; TestPrepareOnAllNodes covers the behaviour on three cqlsim nodes.)
func TestPrepareReachesEveryNode(t *testing.T) {
	s, _ := connect(t)
	hosts := clusterHosts(t, s)
	if _, err := s.Execute(ctxT(t), native.Query("SELECT prepared_id FROM system.prepared_statements LIMIT 1")); err != nil {
		t.Skipf("the server has no system.prepared_statements table: %v", err)
	}
	mustExec(t, s, "CREATE TABLE prep_everywhere (k int PRIMARY KEY, v text)")
	p := mustPrepare(t, s, "SELECT v FROM prep_everywhere WHERE k = ?")
	lookup := native.Query("SELECT query_string FROM system.prepared_statements WHERE prepared_id = ?", p.ID())
	for _, h := range hosts {
		deadline := time.Now().Add(10 * time.Second)
		for {
			res, err := s.Execute(ctxT(t), lookup.WithHost(h))
			if err != nil {
				t.Fatalf("reading system.prepared_statements on %s: %v", h, err)
			}
			if res.Len() == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s has not prepared the statement 10s after Prepare", h)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// On a real multi-node cluster, a statement prepared on one node (PrepareOnOneNode) before a
// USE is prepared on the other nodes, when they answer UNPREPARED, in its own keyspace: every
// node reads that keyspace's table, and records the statement under it in
// system.prepared_statements, while unqualified queries read the session's new keyspace.
// (TestReprepareAfterUse covers the same on three cqlsim nodes.)
func TestReprepareAfterUseOnCluster(t *testing.T) {
	s, ks1, ks2 := twoKeyspaces(t, func(c *native.Config) { c.PrepareOnOneNode = true })
	hosts := clusterHosts(t, s)
	p := mustPrepare(t, s, "SELECT v FROM w WHERE k = ?")
	if p.Keyspace() != ks1 {
		t.Fatalf("prepared in keyspace %q, want %q", p.Keyspace(), ks1)
	}
	mustExec(t, s, "USE "+ks2)
	for _, h := range hosts {
		if got := readW(t, s, p.Bind(1).WithHost(h)); got != ks1 {
			t.Errorf("on %s the statement prepared in %s read keyspace %s", h, ks1, got)
		}
		if got := readW(t, s, native.Query("SELECT v FROM w WHERE k = 1").WithHost(h)); got != ks2 {
			t.Errorf("on %s an unqualified query after USE %s read keyspace %s", h, ks2, got)
		}
	}
	lookup := native.Query("SELECT logged_keyspace FROM system.prepared_statements WHERE prepared_id = ?", p.ID())
	for _, h := range hosts {
		res, err := s.Execute(ctxT(t), lookup.WithHost(h))
		var inv *native.InvalidError
		if errors.As(err, &inv) {
			t.Logf("the keyspace the nodes recorded is not checked: %v", err) // not Cassandra
			return
		}
		if err != nil {
			t.Fatalf("reading system.prepared_statements on %s: %v", h, err)
		}
		got, err := native.ScanOne[string](res)
		if err != nil || got != ks1 {
			t.Errorf("system.prepared_statements on %s: keyspace %q (%v), want %q", h, got, err, ks1)
		}
	}
}

// clusterHosts returns the addresses of the nodes s sees, skipping the test when there are
// fewer than two (CQL_HOSTS is not a cluster).
func clusterHosts(t *testing.T, s *native.Session) []string {
	t.Helper()
	var hosts []string
	for _, h := range s.Hosts() {
		hosts = append(hosts, h.Addr)
	}
	if len(hosts) < 2 {
		t.Skipf("needs a cluster of two or more nodes (CQL_HOSTS), the session sees %d", len(hosts))
	}
	return hosts
}
