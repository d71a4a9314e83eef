package native_test

import (
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// On a real multi-node cluster, Prepare reaches every node: each Cassandra node records the
// statements prepared on it in its own system.prepared_statements table. (On one node there is
// nothing to check; TestPrepareOnAllNodes covers the behaviour on three cqlsim nodes.)
func TestPrepareReachesEveryNode(t *testing.T) {
	s, _ := connect(t)
	var hosts []string
	for _, h := range s.Hosts() {
		hosts = append(hosts, h.Addr)
	}
	if len(hosts) < 2 {
		t.Skipf("needs a cluster of two or more nodes (CQL_HOSTS), the session sees %d", len(hosts))
	}
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
