package gocql

import (
	"bytes"
	"sync/atomic"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// pickCounter is a round-robin policy of the shim counting its Pick calls.
type pickCounter struct {
	HostSelectionPolicy
	picks *atomic.Int32
}

func (p pickCounter) Pick(q ExecutableQuery) NextHost {
	p.picks.Add(1)
	return p.HostSelectionPolicy.Pick(q)
}

// legacyPickCounter is pickCounter for gocql v1.7.0.
type legacyPickCounter struct {
	gocqlv1.HostSelectionPolicy
	picks *atomic.Int32
}

func (p legacyPickCounter) Pick(q gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	p.picks.Add(1)
	return p.HostSelectionPolicy.Pick(q)
}

// The queries a driver runs for itself (KeyspaceMetadata's reads of system_schema, the
// trace writer's reads of system_traces) run on gocql v1.7.0's control connection, outside
// the application's host selection and retry policies. In the shim they do not reach the
// policies either: a policy counting Pick calls sees the same number in both drivers.
func TestInternalQueriesBypassThePoliciesLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	var shimPicks, legacyPicks atomic.Int32
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = pickCounter{RoundRobinHostPolicy(), &shimPicks}
		l.PoolConfig.HostSelectionPolicy = legacyPickCounter{gocqlv1.RoundRobinHostPolicy(), &legacyPicks}
	})
	shimPicks.Store(0)
	legacyPicks.Store(0)

	if _, err := ls.KeyspaceMetadata("system_schema"); err != nil {
		t.Fatalf("gocql: %v", err)
	}
	if _, err := s.KeyspaceMetadata("system_schema"); err != nil {
		t.Fatalf("compat: %v", err)
	}
	if l, c := legacyPicks.Load(), shimPicks.Load(); l != c {
		t.Errorf("KeyspaceMetadata: %d picks in gocql, %d in the shim", l, c)
	}

	var lout, cout bytes.Buffer
	if err := ls.Query("SELECT key FROM system.local").Trace(gocqlv1.NewTraceWriter(ls, &lout)).Exec(); err != nil {
		t.Fatalf("gocql: %v", err)
	}
	if err := s.Query("SELECT key FROM system.local").Trace(NewTraceWriter(s, &cout)).Exec(); err != nil {
		t.Fatalf("compat: %v", err)
	}
	if lout.Len() == 0 || cout.Len() == 0 {
		t.Fatalf("the trace writers wrote %d and %d bytes, want the traces", lout.Len(), cout.Len())
	}
	if l, c := legacyPicks.Load(), shimPicks.Load(); l != c {
		t.Errorf("KeyspaceMetadata and a traced query: %d picks in gocql, %d in the shim", l, c)
	}
}

// The driver's own queries are retried (gocql's control connection retries its queries up
// to three times): a transient error on one of KeyspaceMetadata's reads does not fail it,
// in either driver.
func TestInternalQueriesRetriedLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	s, ls := sessionsOn(t, sim, nil)
	for _, d := range []struct {
		driver string
		meta   func() error
	}{
		{"gocql", func() error { _, err := ls.KeyspaceMetadata("system_schema"); return err }},
		{"compat", func() error { _, err := s.KeyspaceMetadata("system_schema"); return err }},
	} {
		if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM system_schema.tables", Error: &message.Overloaded{ErrorMessage: "busy"}, Times: 1}); err != nil {
			t.Fatal(err)
		}
		if err := d.meta(); err != nil {
			t.Errorf("%s: KeyspaceMetadata with one transient error: %v", d.driver, err)
		}
		if err := sim.ClearFaults(0); err != nil {
			t.Fatal(err)
		}
	}
}

// callCountingRetry is an application retry policy that counts its calls and retries once.
type callCountingRetry struct{ calls *atomic.Int32 }

func (r callCountingRetry) Attempt(q RetryableQuery) bool {
	r.calls.Add(1)
	return q.Attempts() <= 1
}

func (r callCountingRetry) GetRetryType(error) RetryType { return RetryNextHost }

// The application's RetryPolicy is not consulted for the driver's own queries, which have
// their own retry (gocql's control connection's): with a transient error on one of
// KeyspaceMetadata's reads, KeyspaceMetadata succeeds and the application's policy is not
// called; a query of the application with the same error is.
func TestInternalQueriesIgnoreTheRetryPolicy(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	var calls atomic.Int32
	s, _ := sessionsOn(t, sim, func(c *ClusterConfig, _ *gocqlv1.ClusterConfig) {
		c.RetryPolicy = callCountingRetry{&calls}
	})
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM system_schema.tables", Error: &message.Overloaded{ErrorMessage: "busy"}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.KeyspaceMetadata("system_schema"); err != nil {
		t.Fatalf("KeyspaceMetadata with one transient error: %v", err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the application's retry policy was called %d times for the driver's own query", n)
	}
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM system_schema.tables", Error: &message.Overloaded{ErrorMessage: "busy"}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	_ = s.Query("SELECT table_name FROM system_schema.tables").Exec()
	if calls.Load() == 0 {
		t.Error("the application's retry policy was not called for its own query (the test proves nothing)")
	}
}
