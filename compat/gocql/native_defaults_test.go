package gocql_test

import (
	"context"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// TestNativeSessionDefaults pins what Session.Native's documentation says statements run on
// the native session take from the ClusterConfig: the keyspace, Consistency and PageSize, but
// not the Timeout, which bounds a slow query through the gocql API only.
func TestNativeSessionDefaults(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	c := gocql.NewCluster(sim.Addrs()[0])
	c.Consistency = gocql.LocalOne
	c.PageSize = 2
	c.Timeout = 200 * time.Millisecond
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ns := s.Native()
	var observed []native.Consistency
	st := native.Query("SELECT keyspace_name FROM system_schema.keyspaces").WithObserver(func(_ context.Context, a native.Attempt) {
		observed = append(observed, a.Consistency)
	})
	res, err := ns.Execute(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if res.Len() != 2 || !res.HasMorePages() {
		t.Errorf("first page of %d rows (more pages %v), want ClusterConfig.PageSize 2 and more", res.Len(), res.HasMorePages())
	}
	if len(observed) != 1 || observed[0] != native.LocalOne {
		t.Errorf("consistency %v, want ClusterConfig.Consistency LOCAL_ONE", observed)
	}

	const slow = "SELECT release_version FROM system.local"
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "system.local", Delay: time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := s.Query(slow).Exec(); err != gocql.ErrTimeoutNoResponse {
		t.Errorf("through the gocql API: %v, want ErrTimeoutNoResponse after ClusterConfig.Timeout", err)
	}
	start := time.Now()
	if _, err := ns.Execute(context.Background(), native.Query(slow)); err != nil || time.Since(start) < time.Second {
		t.Errorf("through Session.Native: %v after %v, want the answer after the node's 1s delay (no timeout)", err, time.Since(start))
	}
	start = time.Now()
	if _, err := ns.Execute(context.Background(), native.Query(slow).WithTimeout(200*time.Millisecond)); err == nil || time.Since(start) >= time.Second {
		t.Errorf("through Session.Native WithTimeout(200ms): %v after %v, want a timeout", err, time.Since(start))
	}
}
