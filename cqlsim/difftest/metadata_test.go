package difftest

import (
	"sort"
	"testing"

	"github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

var metadataSchema = []string{
	"CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
	"CREATE TYPE {ks}.addr (street text, zip int, tags frozen<set<text>>)",
	"CREATE TABLE {ks}.t (k int, k2 text, c timeuuid, d int, s int static, v map<text, frozen<list<int>>>, a frozen<addr>, tu tuple<int, text>, PRIMARY KEY ((k, k2), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)",
	"CREATE TABLE {ks}.cnt (k int PRIMARY KEY, n counter)",
}

// tableShape is the part of gocql's TableMetadata that the schema tables determine.
type tableShape struct {
	PartitionKey, Clustering []string
	Columns                  map[string]string // name -> kind, type, clustering order
}

func metadataShape(t *testing.T, s *gocql.Session, ks string) (map[string]tableShape, map[string][]string) {
	t.Helper()
	md, err := s.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatalf("KeyspaceMetadata: %v", err)
	}
	tables := map[string]tableShape{}
	for name, tm := range md.Tables {
		sh := tableShape{Columns: map[string]string{}}
		for _, c := range tm.PartitionKey {
			sh.PartitionKey = append(sh.PartitionKey, c.Name)
		}
		for _, c := range tm.ClusteringColumns {
			sh.Clustering = append(sh.Clustering, c.Name+" "+c.ClusteringOrder)
		}
		for n, c := range tm.Columns {
			sh.Columns[n] = c.Kind.String() + " " + c.Validator + " " + c.ClusteringOrder
		}
		tables[name] = sh
	}
	types := map[string][]string{}
	for name, ut := range md.UserTypes {
		var fields []string
		for i, f := range ut.FieldNames {
			fields = append(fields, f+" "+ut.FieldTypes[i].Type().String())
		}
		types[name] = fields
	}
	if md.StrategyClass == "" || md.StrategyOptions["replication_factor"] != "1" {
		t.Errorf("keyspace metadata: strategy %q options %v", md.StrategyClass, md.StrategyOptions)
	}
	return tables, types
}

// TestKeyspaceMetadata compares gocql's KeyspaceMetadata (read from system_schema) on cqlsim and
// on Cassandra for the same schema.
func TestKeyspaceMetadata(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	steps := make([]Step, len(metadataSchema))
	for i, q := range metadataSchema {
		steps[i] = Step{Query: q}
	}
	realS := session(t, hosts[0])
	for _, o := range Run(realS, ks, steps) {
		if o.Error != "" {
			t.Fatalf("%s on Cassandra: %s", o.Query, o.Error)
		}
	}
	sim := cqlsim.StartT(t, cqlsim.Options{})
	simS := session(t, sim.Addrs()[0])
	for _, o := range Run(simS, ks, steps) {
		if o.Error != "" {
			t.Fatalf("%s on cqlsim: %s", o.Query, o.Error)
		}
	}
	wantTables, wantTypes := metadataShape(t, realS, ks)
	gotTables, gotTypes := metadataShape(t, simS, ks)
	if len(wantTables) != 2 || len(wantTypes) != 1 {
		t.Fatalf("reference metadata incomplete: %v %v", wantTables, wantTypes)
	}
	if d := cmp.Diff(wantTables, gotTables); d != "" {
		t.Errorf("tables: Cassandra (-) vs cqlsim (+):\n%s", d)
	}
	if d := cmp.Diff(wantTypes, gotTypes); d != "" {
		t.Errorf("types: Cassandra (-) vs cqlsim (+):\n%s", d)
	}
	keys := make([]string, 0, len(gotTables))
	for k := range gotTables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("tables compared: %v", keys)
}
