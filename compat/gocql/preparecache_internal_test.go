package gocql

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// TestStatementTextCacheUnderConcurrency: goroutines running overlapping texts with literal
// values at once leave the statement-text cache within MaxPreparedStmts, its list and map in
// step; run it with -race.
func TestStatementTextCacheUnderConcurrency(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	cluster := NewCluster(sim.Addrs()...)
	cluster.Timeout = 30 * time.Second
	cluster.MaxPreparedStmts = 5
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cqltest.Exec(t, sim.Addrs()[0], "CREATE KEYSPACE pc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, sim.Addrs()[0], "CREATE TABLE pc.kv (k int PRIMARY KEY, v text)")
	cqltest.Concurrently(t, 8, func(g int) error {
		for i := range 60 {
			if err := s.Query(fmt.Sprintf("SELECT v FROM pc.kv WHERE k = %d", (g*7+i)%20)).Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	c := &s.preparedText
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order.Len() > 5 || len(c.byText) != c.order.Len() {
		t.Fatalf("after concurrent use of 20 texts with MaxPreparedStmts 5: %d texts listed, %d mapped", c.order.Len(), len(c.byText))
	}
	for el := c.order.Front(); el != nil; el = el.Next() {
		if text := el.Value.(*preparedInfo).stmt.CQL(); c.byText[text] != el {
			t.Fatalf("%q is listed but mapped to another element", text)
		}
	}
}

// TestPreparedByTextFollowsKeyspace checks that the statement-text cache in front of the
// native core's prepared cache is keyed by keyspace as the native one is: after the session
// keyspace changes (USE through the shared native session), the same unqualified text reads
// the other keyspace's table instead of reusing the first preparation.
func TestPreparedByTextFollowsKeyspace(t *testing.T) {
	s, ks1 := newTestSession(t, "CREATE TABLE KS.t (k int PRIMARY KEY, v text)")
	_, ks2 := newTestSession(t, "CREATE TABLE KS.t (k int PRIMARY KEY, v text)")
	for _, c := range []struct{ ks, v string }{{ks1, "first"}, {ks2, "second"}} {
		if err := s.Query("INSERT INTO "+c.ks+".t (k, v) VALUES (?, ?)", 1, c.v).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		t.Helper()
		var v string
		if err := s.Query("SELECT v FROM t WHERE k = ?", 1).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := read(); got != "first" {
		t.Fatalf("in %s read %q, want \"first\"", ks1, got)
	}
	if got := read(); got != "first" {
		t.Fatalf("in %s, executed again, read %q, want \"first\"", ks1, got)
	}
	if _, err := s.Native().Execute(context.Background(), native.Query("USE "+ks2)); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "second" {
		t.Fatalf("after USE %s read %q, want \"second\"", ks2, got)
	}
	if s.preparedByText("SELECT v FROM t WHERE k = ?") == nil {
		t.Fatal("the statement is not cached by text after executions in the new keyspace")
	}
}
