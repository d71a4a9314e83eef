package gocql_test

import (
	"fmt"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// countTracer counts the trace ids it is given: a traced query whose statement had to be
// prepared gives two (the PREPARE's and its own), one that was cached gives one.
type countTracer struct{ n int }

func (c *countTracer) Trace([]byte) { c.n++ }

// TestPreparedStatementCacheBoundLikeGocql: with MaxPreparedStmts 3, queries with literal values
// run between uses of one statement do not push that statement out of the cache, and the first
// of them is prepared again when it runs again, in gocql v1.7.0 and in compat alike; with
// MaxPreparedStmts 0 (no bound) it is still cached in both. Before the bound, compat kept every
// statement text it ever prepared, so an application building texts with literal values grew
// its cache without end.
func TestPreparedStatementCacheBoundLikeGocql(t *testing.T) {
	hosts := cqltest.Hosts(t)
	ks := cqltest.KeyspaceName(t)
	admin := legacySession(t, hosts, "")
	defer admin.Close()
	for _, stmt := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v text)",
	} {
		if err := admin.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		s := legacySession(t, hosts, "")
		defer s.Close()
		_ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	})

	const hot = "SELECT v FROM kv WHERE k = ?"
	literal := func(i int) string { return fmt.Sprintf("SELECT v FROM kv WHERE k = %d", i+1) }
	// run runs the sequence through exec (a traced query of the driver under test) and
	// returns how many trace ids each query gave.
	run := func(exec func(stmt string, values ...any) (int, error)) []string {
		var out []string
		step := func(label, stmt string, values ...any) {
			n, err := exec(stmt, values...)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			out = append(out, fmt.Sprintf("%s: %d trace ids", label, n))
		}
		step("hot", hot, 1)
		for i := range 8 {
			step(fmt.Sprintf("literal %d", i), literal(i))
			step(fmt.Sprintf("hot after literal %d", i), hot, 1)
		}
		step("literal 0 again", literal(0))
		return out
	}
	for _, max := range []int{3, 0} {
		lc := gocqlv1.NewCluster(hosts...)
		lc.Keyspace, lc.ProtoVersion, lc.Timeout, lc.MaxPreparedStmts = ks, 4, 30*time.Second, max
		legacy, err := lc.CreateSession()
		if err != nil {
			t.Fatalf("gocql v1.7.0 CreateSession: %v", err)
		}
		want := run(func(stmt string, values ...any) (int, error) {
			tr := &countTracer{}
			err := legacy.Query(stmt, values...).Trace(tr).Exec()
			return tr.n, err
		})
		legacy.Close()

		cc := gocql.NewCluster(hosts...)
		cc.Keyspace, cc.ProtoVersion, cc.Timeout, cc.MaxPreparedStmts = ks, 4, 30*time.Second, max
		compat, err := cc.CreateSession()
		if err != nil {
			t.Fatalf("compat CreateSession: %v", err)
		}
		got := run(func(stmt string, values ...any) (int, error) {
			tr := &countTracer{}
			err := compat.Query(stmt, values...).Trace(tr).Exec()
			return tr.n, err
		})
		compat.Close()

		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("MaxPreparedStmts %d: trace ids per query differ (-gocql v1.7.0 +compat):\n%s", max, diff)
		}
		// What gocql shows, checked in its own right: the statement used throughout stays
		// cached, and the first literal statement was dropped only with a bound.
		last := "literal 0 again: 1 trace ids"
		if max > 0 {
			last = "literal 0 again: 2 trace ids"
		}
		if got[len(got)-1] != last || got[2] != "hot after literal 0: 1 trace ids" {
			t.Errorf("MaxPreparedStmts %d: compat gave %q", max, got)
		}
	}
}
