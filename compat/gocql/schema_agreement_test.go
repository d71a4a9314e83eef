package gocql

import (
	"context"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// pinPolicy sends every query to the node with IP ip (the policy's other methods are the
// embedded round-robin policy's).
type pinPolicy struct {
	HostSelectionPolicy
	ip string
}

func (p pinPolicy) Pick(q ExecutableQuery) NextHost {
	next := p.HostSelectionPolicy.Pick(q)
	return func() SelectedHost {
		for h := next(); h != nil; h = next() {
			if h.Info().ConnectAddress().String() == p.ip {
				return h
			}
		}
		return nil
	}
}

// TestSchemaAgreementAsksTheCoordinator runs DDL on the second node of a three-node cqlsim
// cluster whose nodes learn of schema changes only when the test moves the clock. gocql asks
// its control connection's node, which has not heard of the change and sees every node agree
// on the old schema; the shim asks the coordinator, so Exec returns only once they agree on
// the new one (docs/deviations.md).
func TestSchemaAgreementAsksTheCoordinator(t *testing.T) {
	clock := cqlsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Now: clock.Now, SchemaPropagationDelay: time.Second})
	cluster := NewCluster(sim.Addrs()[0])
	cluster.Port = sim.Port()
	cluster.Consistency = One
	cluster.Timeout = 10 * time.Second
	cluster.MaxWaitSchemaAgreement = 30 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = pinPolicy{RoundRobinHostPolicy(), "127.0.0.2"}
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// gocql's choice of the node to ask is random (any node up): four changes make a wrong
	// choice show with near certainty.
	for _, ddl := range []struct{ stmt, probe string }{
		{"CREATE KEYSPACE agree WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "USE agree"},
		{"CREATE TABLE agree.t1 (k int PRIMARY KEY)", "SELECT * FROM agree.t1"},
		{"CREATE TABLE agree.t2 (k int PRIMARY KEY)", "SELECT * FROM agree.t2"},
		{"CREATE TABLE agree.t3 (k int PRIMARY KEY)", "SELECT * FROM agree.t3"},
	} {
		done := make(chan error, 1)
		go func() { done <- s.Query(ddl.stmt).Exec() }()
		deadline := time.Now().Add(30 * time.Second)
		for cqltest.ExecErr(sim.Addrs()[0], ddl.probe) != nil {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never applied", ddl.stmt)
			}
			time.Sleep(5 * time.Millisecond)
		}
		select {
		case err := <-done:
			t.Fatalf("%s: Exec returned (%v) while the coordinator's peers still had the old schema", ddl.stmt, err)
		default:
		}
		clock.Advance(time.Second)
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", ddl.stmt, err)
		}
	}
}

// MaxWaitSchemaAgreement 0 means no wait in gocql v1.7.0: DDL returns as soon as the node
// answers, although the other nodes learn of the change only later, and
// AwaitSchemaAgreement fails at once without asking any node. The shim does the same.
func TestNoSchemaAgreementWaitLikeGocql(t *testing.T) {
	const propagation = 20 * time.Second
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, SchemaPropagationDelay: propagation})
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.MaxWaitSchemaAgreement, l.MaxWaitSchemaAgreement = 0, 0
		c.Logger, l.Logger = nopLogger{}, nopLogger{}
	})
	for _, d := range []struct {
		driver string
		exec   func(string) error
		await  func() error
	}{
		{"gocql", func(stmt string) error { return ls.Query(stmt).Exec() }, func() error { return ls.AwaitSchemaAgreement(context.Background()) }},
		{"compat", func(stmt string) error { return s.Query(stmt).Exec() }, func() error { return s.AwaitSchemaAgreement(context.Background()) }},
	} {
		start := time.Now()
		if err := d.exec("CREATE KEYSPACE nowait_" + d.driver + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
			t.Fatalf("%s: %v", d.driver, err)
		}
		if took := time.Since(start); took >= propagation {
			t.Errorf("%s: DDL took %v: it waited for the schema to propagate", d.driver, took)
		}
		const want = "gocql: cluster schema versions not consistent: []"
		if err := d.await(); err == nil || err.Error() != want {
			t.Errorf("%s: AwaitSchemaAgreement: %v, want %q", d.driver, err, want)
		}
	}
}
