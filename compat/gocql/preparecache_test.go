package gocql_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// countTracer counts the trace ids it is given: a traced query whose statement had to be
// prepared gives two (the PREPARE's and its own), one that was cached gives one.
type countTracer struct{ n int }

func (c *countTracer) Trace([]byte) { c.n++ }

// TestPreparedStatementCacheBoundLikeGocql runs sequences of traced queries through gocql
// v1.7.0 and compat with the same MaxPreparedStmts, on one node (gocql's cache is per node),
// and compares which queries needed a PREPARE. Before compat honoured the bound it kept every
// statement text it ever prepared, so an application building texts with literal values
// grew its cache without end.
func TestPreparedStatementCacheBoundLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	const ks = "prepcache"
	cqltest.Exec(t, sim.Addrs()[0], "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, sim.Addrs()[0], "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")

	// A sequence names its statements: "hot" has a bind marker, any other name is a text
	// with a literal value of its own.
	text := func(name string) (string, []any) {
		if name == "hot" {
			return "SELECT v FROM kv WHERE k = ?", []any{1}
		}
		return fmt.Sprintf("SELECT v FROM kv WHERE k = %d", 100+len(name)*31+int(name[len(name)-1])), nil
	}
	alternating := []string{"hot"}
	for i := range 8 {
		alternating = append(alternating, fmt.Sprintf("literal%d", i), "hot")
	}
	alternating = append(alternating, "literal0")
	cases := []struct {
		max  int
		seq  []string
		last string // what the last query must show in both drivers
	}{
		{3, alternating, "literal0: 2 trace ids"},
		{0, alternating, "literal0: 1 trace ids"},
		{2, strings.Fields("A B A C B"), "B: 2 trace ids"},
		{3, strings.Fields("A B C A B D X Y X Y X Y A"), "A: 2 trace ids"},
		{3, strings.Fields("A B C D A B C D"), "D: 2 trace ids"},
		{-1, strings.Fields("A A"), "A: 2 trace ids"},
	}
	for _, c := range cases {
		name := fmt.Sprintf("MaxPreparedStmts %d, %s", c.max, strings.Join(c.seq, " "))
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			// run runs the sequence through exec (a traced query of the driver under test)
			// and returns how many trace ids each query gave.
			run := func(exec func(stmt string, values []any, tr *countTracer) error) []string {
				var out []string
				for _, q := range c.seq {
					stmt, values := text(q)
					tr := &countTracer{}
					if err := exec(stmt, values, tr); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					out = append(out, fmt.Sprintf("%s: %d trace ids", q, tr.n))
				}
				return out
			}
			lc := gocqlv1.NewCluster(sim.Addrs()...)
			lc.Keyspace, lc.ProtoVersion, lc.Timeout, lc.MaxPreparedStmts = ks, 4, 30*time.Second, c.max
			legacy, err := lc.CreateSession()
			if err != nil {
				t.Fatalf("gocql v1.7.0 CreateSession: %v", err)
			}
			want := run(func(stmt string, values []any, tr *countTracer) error {
				return legacy.Query(stmt, values...).Trace(tr).Exec()
			})
			legacy.Close()

			cc := gocql.NewCluster(sim.Addrs()...)
			cc.Keyspace, cc.ProtoVersion, cc.Timeout, cc.MaxPreparedStmts = ks, 4, 30*time.Second, c.max
			compat, err := cc.CreateSession()
			if err != nil {
				t.Fatalf("compat CreateSession: %v", err)
			}
			got := run(func(stmt string, values []any, tr *countTracer) error {
				return compat.Query(stmt, values...).Trace(tr).Exec()
			})
			compat.Close()

			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("trace ids per query differ (-gocql v1.7.0 +compat):\n%s", diff)
			}
			if got[len(got)-1] != c.last {
				t.Errorf("last query: %q, want %q (all: %q)", got[len(got)-1], c.last, got)
			}
		})
	}
}
