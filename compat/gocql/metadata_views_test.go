package gocql

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestKeyspaceMetadataViewsAndFunctionsLikeGocql compares KeyspaceMetadata with gocql
// v1.7.0's for a keyspace with a materialized view (gocql lists it among the Tables too,
// with its columns), a function without arguments (ArgumentTypes empty, not nil) and an
// aggregate of it. cqlsim refuses views and functions, as Cassandra 5.0's default
// configuration does, so it runs on a node of CQL_HOSTS that allows them
// (materialized_views_enabled and user_defined_functions_enabled in cassandra.yaml; the
// node scripts/cassandra starts has neither: the test skips there, saying so).
func TestKeyspaceMetadataViewsAndFunctionsLikeGocql(t *testing.T) {
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		t.Skip("needs a Cassandra node with materialized views and user-defined functions enabled (CQL_HOSTS)")
	}
	const ks = "rev_mv"
	c := NewCluster(hosts...)
	c.Timeout = 30 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ddl := []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".base (k int, c int, v text, PRIMARY KEY (k, c))",
		"CREATE MATERIALIZED VIEW " + ks + ".by_v AS SELECT k, c, v FROM " + ks + ".base WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)",
		"CREATE FUNCTION " + ks + ".zero () CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return 0;'",
		"CREATE FUNCTION " + ks + ".plus (s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s + v;'",
		"CREATE FUNCTION " + ks + ".done (s int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s;'",
		"CREATE AGGREGATE " + ks + ".total (int) SFUNC plus STYPE int FINALFUNC done INITCOND 0",
	}
	for _, stmt := range ddl {
		if err := s.Query(stmt).Exec(); err != nil {
			if strings.Contains(err.Error(), "disabled") {
				t.Skipf("the node refuses %q (%v): needs materialized_views_enabled and user_defined_functions_enabled", stmt, err)
			}
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	defer func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() }()

	lc := gocqlv1.NewCluster(hosts...)
	lc.Timeout = 30 * time.Second
	ls, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	got, err := s.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ls.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(metaTree(reflect.ValueOf(want)), metaTree(reflect.ValueOf(got))); diff != "" {
		t.Errorf("KeyspaceMetadata (-gocql +compat):\n%s", diff)
	}
	view, ok := got.Tables["by_v"]
	if !ok || len(view.Columns) != 3 || len(view.PartitionKey) != 1 || view.PartitionKey[0].Name != "v" {
		t.Errorf("the view among Tables: %+v, want it with its 3 columns, partition key v", view)
	}
	if f := got.Functions["zero"]; f == nil || f.ArgumentTypes == nil || len(f.ArgumentTypes) != 0 {
		t.Errorf("a function without arguments: %s", fmt.Sprint(f))
	}
}

// TestAggregateWithoutFinalFuncUnlikeGocql pins G58: KeyspaceMetadata of a keyspace holding
// an aggregate without FINALFUNC panics in gocql v1.7.0; compat gives the aggregate a zero
// FinalFunc. Like the test above, it needs a node of CQL_HOSTS that allows user-defined
// functions, and skips elsewhere, saying so.
func TestAggregateWithoutFinalFuncUnlikeGocql(t *testing.T) {
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		t.Skip("needs a Cassandra node with user-defined functions enabled (CQL_HOSTS)")
	}
	const ks = "rev_nofinal"
	c := NewCluster(hosts...)
	c.Timeout = 30 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, stmt := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE FUNCTION " + ks + ".plus (s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s + v;'",
		"CREATE AGGREGATE " + ks + ".total (int) SFUNC plus STYPE int INITCOND 0",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			if strings.Contains(err.Error(), "disabled") {
				t.Skipf("the node refuses %q (%v): needs user_defined_functions_enabled", stmt, err)
			}
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	defer func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() }()
	md, err := s.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatal(err)
	}
	if a := md.Aggregates["total"]; a == nil || a.StateFunc.Name != "plus" || !reflect.ValueOf(a.FinalFunc).IsZero() {
		t.Errorf("an aggregate without FINALFUNC: %+v, want state function plus and a zero FinalFunc", a)
	}

	lc := gocqlv1.NewCluster(hosts...)
	lc.Timeout = 30 * time.Second
	ls, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		_, _ = ls.KeyspaceMetadata(ks)
		return false
	}()
	if !panicked {
		t.Error("gocql v1.7.0 no longer panics: G58 can go")
	}
}
