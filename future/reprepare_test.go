package future_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// Legacy semantics A21: an execution answered PreparedQueryNotFound (UNPREPARED) is prepared
// again and re-executed transparently: the callbacks get the rows and no errback runs. The
// node forgets the statement (cqlsim forgets a table's prepared statements on ALTER TABLE ...
// ADD, as Cassandra does on schema changes); the statement's observer shows that the
// UNPREPARED answer was met (an attempt that prepared the statement again).
func TestUnpreparedIsPreparedAgain(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		"CREATE KEYSPACE fp WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE fp.t (k int PRIMARY KEY, v int)",
		"INSERT INTO fp.t (k, v) VALUES (1, 10)",
	} {
		if _, err := s.Execute(ctx, native.Query(q)); err != nil {
			t.Fatal(err)
		}
	}
	prep, err := s.Prepare(ctx, "SELECT k, v FROM fp.t WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	run := func() (events []string, reprepared bool) {
		t.Helper()
		var l log
		done := make(chan struct{})
		var mu sync.Mutex
		stmt := prep.Bind(1).WithObserver(func(_ context.Context, a native.Attempt) {
			mu.Lock()
			reprepared = reprepared || a.Reprepare
			mu.Unlock()
		})
		f := future.ExecuteAsync(ctx, s, stmt, future.Options{})
		f.AddCallbacks(func(p future.Page) { l.cb("cb")(p); close(done) }, func(err error) { l.eb("eb")(err); close(done) })
		<-done
		mu.Lock()
		defer mu.Unlock()
		return l.take(), reprepared
	}
	events, _ := run()
	diff(t, []string{"cb p1 [1]"}, events)
	if _, err := s.Execute(ctx, native.Query("ALTER TABLE fp.t ADD w int")); err != nil {
		t.Fatal(err)
	}
	events, reprepared := run()
	diff(t, []string{"cb p1 [1]"}, events)
	if !reprepared {
		t.Fatal("the node did not answer UNPREPARED after ALTER TABLE: the test did not exercise re-preparing")
	}
}
