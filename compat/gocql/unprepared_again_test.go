package gocql_test

import (
	"context"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestUnpreparedAgainAfterReprepareLikeGocql: a node whose prepared statement cache is churned
// by other clients' statements can forget a statement again between the PREPARE a driver
// sends after an UNPREPARED answer and the EXECUTE that follows. gocql v1.7.0 prepares again
// and resends as long as the node answers UNPREPARED (no retry, no observation), so its query
// succeeds once the node keeps the statement; the shim used to prepare again once only and
// return the second UNPREPARED as the query's error (*RequestErrUnprepared, seen against a
// shared Cassandra node).
func TestUnpreparedAgainAfterReprepareLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	cqltest.Exec(t, sim.Addrs()[0], "CREATE KEYSPACE upa WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, sim.Addrs()[0], "CREATE TABLE upa.t (k int PRIMARY KEY, v int)")
	cqltest.Exec(t, sim.Addrs()[0], "INSERT INTO upa.t (k, v) VALUES (1, 10)")
	const sel = "SELECT v FROM upa.t WHERE k = ?"

	legacy := legacySession(t, sim.Addrs(), "", nil)
	defer legacy.Close()
	c := gocql.NewCluster(sim.Addrs()...)
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Native().Prepare(context.Background(), sel)
	if err != nil {
		t.Fatal(err)
	}
	var v int
	if err := legacy.Query(sel, 1).Scan(&v); err != nil { // both drivers know the statement
		t.Fatal(err)
	}

	for _, times := range []int{2, 5} {
		unprepared := cqlsim.Fault{Match: sel, Error: &message.Unprepared{ErrorMessage: "forgotten", Id: p.ID()}, Times: times}
		if err := sim.InjectFault(0, unprepared); err != nil {
			t.Fatal(err)
		}
		v = 0
		if err := legacy.Query(sel, 1).Scan(&v); err != nil || v != 10 {
			t.Fatalf("gocql v1.7.0, UNPREPARED %d times in a row: %v, v=%d; want 10", times, err, v)
		}
		if err := sim.InjectFault(0, unprepared); err != nil {
			t.Fatal(err)
		}
		v = 0
		q := s.Query(sel, 1)
		if err := q.Scan(&v); err != nil || v != 10 {
			t.Errorf("compat, UNPREPARED %d times in a row: %v, v=%d; want 10 as with gocql", times, err, v)
		}
		if q.Attempts() != 1 {
			t.Errorf("compat, UNPREPARED %d times in a row: %d attempts, want 1 (preparing again is no retry)", times, q.Attempts())
		}
		if err := sim.ClearFaults(0); err != nil {
			t.Fatal(err)
		}
	}

	// A node that never keeps the statement: gocql prepares and resends without end (until
	// the query's context ends); the shim gives up after the bound and returns the UNPREPARED.
	if err := sim.InjectFault(0, cqlsim.Fault{Match: sel, Error: &message.Unprepared{ErrorMessage: "forgotten", Id: p.ID()}}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sim.ClearFaults(0) }()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := legacy.Query(sel, 1).WithContext(ctx).Exec(); err == nil || ctx.Err() == nil {
		t.Errorf("gocql v1.7.0 against a node that always answers UNPREPARED: %v before its context ended; want it to keep preparing until then", err)
	}
	err = s.Query(sel, 1).WithContext(context.Background()).Exec()
	if _, ok := err.(*gocql.RequestErrUnprepared); !ok {
		t.Errorf("compat against a node that always answers UNPREPARED: %v (%T), want *RequestErrUnprepared once the bound is reached", err, err)
	}
}
