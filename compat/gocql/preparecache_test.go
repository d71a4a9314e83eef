package gocql

import (
	"context"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

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
