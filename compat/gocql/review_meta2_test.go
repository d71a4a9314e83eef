package gocql

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// metaTree renders a value of either driver's metadata types as maps, slices and scalars, so
// that cmp.Diff compares compat's KeyspaceMetadata with gocql v1.7.0's: exported fields only,
// a TypeInfo as its dynamic type's name, Type(), String(), Custom() and Version() and its
// exported fields (element types), pointers followed, nil kept distinct from empty.
func metaTree(v reflect.Value) interface{} {
	if !v.IsValid() {
		return "<invalid>"
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "<nil>"
		}
		v = v.Elem()
	}
	if ti, ok := typeInfoMethods(v); ok {
		return ti
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "<nil>"
		}
		return metaTree(v.Elem())
	case reflect.Struct:
		if v.Type().Name() == "UUID" {
			return fmt.Sprint(v.Interface())
		}
		out := map[string]interface{}{}
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				out[f.Name] = metaTree(v.Field(i))
			}
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return "<nil map>"
		}
		out := map[string]interface{}{}
		for _, k := range v.MapKeys() {
			out[fmt.Sprint(k.Interface())] = metaTree(v.MapIndex(k))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return "<nil slice>"
		}
		out := make([]interface{}, v.Len())
		for i := range out {
			out[i] = metaTree(v.Index(i))
		}
		return out
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	case reflect.Float64:
		return v.Float()
	case reflect.Int, reflect.Int64, reflect.Int32:
		if s, ok := v.Interface().(fmt.Stringer); ok {
			return fmt.Sprintf("%d %s", v.Int(), s)
		}
		return v.Int()
	}
	return fmt.Sprintf("%#v", v.Interface())
}

// typeInfoMethods renders a TypeInfo of either driver, if v is one.
func typeInfoMethods(v reflect.Value) (interface{}, bool) {
	if v.Kind() != reflect.Struct {
		return nil, false
	}
	m := v.MethodByName("Custom")
	if !m.IsValid() || v.MethodByName("Version").IsValid() == false || v.MethodByName("Type").IsValid() == false {
		return nil, false
	}
	typ := v.MethodByName("Type").Call(nil)[0]
	out := map[string]interface{}{
		"go":      v.Type().Name(),
		"Type":    fmt.Sprintf("%d %v", typ.Int(), typ.Interface()),
		"String":  fmt.Sprint(v.Interface()),
		"Custom":  m.Call(nil)[0].Interface(),
		"Version": v.MethodByName("Version").Call(nil)[0].Interface(),
	}
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i); f.IsExported() && !f.Anonymous {
			out[f.Name] = metaTree(v.Field(i))
		}
	}
	return out, true
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// metaPair creates a cqlsim node, runs ddl on it and returns a compat and a gocql session.
func metaPair(t *testing.T, setup func(c *ClusterConfig, l *gocqlv1.ClusterConfig), ddl ...string) (*cqlsim.Cluster, *Session, *gocqlv1.Session) {
	t.Helper()
	sim := cqlsim.StartT(t, cqlsim.Options{})
	admin := NewCluster(sim.Addrs()...)
	admin.Port = sim.Port()
	as, err := admin.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	for _, stmt := range ddl {
		if err := as.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	s, ls := sessionsOn(t, sim, setup)
	return sim, s, ls
}

const metaKeyspaceDDL = "CREATE KEYSPACE rm WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1} AND durable_writes = false"

var metaComplexDDL = []string{
	metaKeyspaceDDL,
	"CREATE TYPE rm.addr (street text, zip int, tags frozen<set<text>>)",
	"CREATE TYPE rm.person (name text, home frozen<addr>, others list<frozen<addr>>, t tuple<int, text>, m map<text, frozen<list<int>>>)",
	"CREATE TABLE rm.big (a int, b text, c timeuuid, d bigint, e text, s int static, st set<text>, fl frozen<list<int>>, " +
		"m map<text, frozen<map<int, text>>>, nested list<frozen<list<frozen<set<int>>>>>, tu tuple<int, frozen<addr>, list<text>>, " +
		"p frozen<person>, pl list<frozen<person>>, du duration, v vector<float, 3>, dec decimal, vi varint, ip inet, dt date, tm time, ts timestamp, " +
		"ti tinyint, si smallint, bl blob, asci ascii, vc varchar, bo boolean, fo float, db double, u uuid, " +
		"PRIMARY KEY ((a, b), c, d, e)) WITH CLUSTERING ORDER BY (c DESC, d ASC, e DESC)",
	"CREATE TABLE rm.counts (k int, c int, n counter, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)",
	`CREATE TABLE rm."MixedCase" ("Key" int PRIMARY KEY, "Val" text)`,
	"CREATE INDEX ON rm.big (st)",
	"CREATE INDEX e_idx ON rm.big (e)",
	"CREATE INDEX ON rm.big (keys(m))",
}

// TestReviewMeta2LikeGocql compares KeyspaceMetadata with gocql v1.7.0's on the same node,
// field by field, for a keyspace with user types (nested, in collections and tuples), a table
// with a composite partition key, three clustering columns in mixed order, a static column,
// frozen, non-frozen and nested collections, tuples, durations, vectors and secondary indexes,
// a counter table, a case-sensitive table, and the system keyspaces; and the errors of a
// keyspace that does not exist (also one differing in case only), of the empty name and of a
// closed session. A table without clustering columns has an empty ClusteringColumns, not a
// nil one, as in gocql.
func TestReviewMeta2LikeGocql(t *testing.T) {
	_, s, ls := metaPair(t, nil, metaComplexDDL...)
	for _, ks := range []string{"rm", "system", "system_schema", "system_traces", "system_auth",
		"system_distributed", "system_views", "system_virtual_schema", "nope", "RM", ""} {
		got, err := s.KeyspaceMetadata(ks)
		want, lerr := ls.KeyspaceMetadata(ks)
		if fmt.Sprint(err) != fmt.Sprint(lerr) {
			t.Errorf("KeyspaceMetadata(%q): compat error %v, gocql %v", ks, err, lerr)
		}
		if diff := cmp.Diff(metaTree(reflect.ValueOf(want)), metaTree(reflect.ValueOf(got))); diff != "" {
			t.Errorf("KeyspaceMetadata(%q) (-gocql +compat):\n%s", ks, diff)
		}
	}
	if _, err := s.KeyspaceMetadata("nope"); err != ErrKeyspaceDoesNotExist {
		t.Errorf("unknown keyspace: %v, want ErrKeyspaceDoesNotExist itself", err)
	}
	if _, err := s.KeyspaceMetadata(""); err != ErrNoKeyspace {
		t.Errorf("empty name: %v, want ErrNoKeyspace itself", err)
	}
	md, err := s.KeyspaceMetadata("rm")
	if err != nil {
		t.Fatal(err)
	}
	if cc := md.Tables["MixedCase"].ClusteringColumns; cc == nil || len(cc) != 0 {
		t.Errorf("ClusteringColumns of a table without any: %#v, want an empty slice as gocql", cc)
	}
	s.Close()
	ls.Close()
	_, err = s.KeyspaceMetadata("rm")
	_, lerr := ls.KeyspaceMetadata("rm")
	if err != ErrSessionClosed || fmt.Sprint(err) != fmt.Sprint(lerr) {
		t.Errorf("closed session: compat %v, gocql %v", err, lerr)
	}
}

// TestReviewMeta2FreshAfterSchemaChange: gocql v1.7.0 caches each keyspace's metadata until a
// schema change event for the keyspace reaches it (debounced by a second), so after another
// client's DDL it returns the old schema for a while, and for ever with
// Events.DisableSchemaEvents (a dropped keyspace's metadata included). compat reads the schema
// on every call (G56): the new one at once, with or without schema events. With events, both
// end with the same metadata.
func TestReviewMeta2FreshAfterSchemaChange(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(fmt.Sprintf("DisableSchemaEvents=%v", disabled), func(t *testing.T) {
			sim, s, ls := metaPair(t, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
				c.Events.DisableSchemaEvents, l.Events.DisableSchemaEvents = disabled, disabled
			}, metaKeyspaceDDL, "CREATE TABLE rm.t (k int PRIMARY KEY)")
			if _, err := ls.KeyspaceMetadata("rm"); err != nil { // gocql caches it now
				t.Fatal(err)
			}
			admin := NewCluster(sim.Addrs()...)
			admin.Port = sim.Port()
			as, err := admin.CreateSession()
			if err != nil {
				t.Fatal(err)
			}
			defer as.Close()
			for _, stmt := range []string{"ALTER TABLE rm.t ADD v text", "CREATE TABLE rm.t2 (k int PRIMARY KEY)"} {
				if err := as.Query(stmt).Exec(); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			md, err := s.KeyspaceMetadata("rm")
			if err != nil {
				t.Fatal(err)
			}
			if md.Tables["t"].Columns["v"] == nil || md.Tables["t2"] == nil {
				t.Fatalf("compat right after the DDL: tables %v, columns of t %v; want the new column and table", sortedKeys(md.Tables), sortedKeys(md.Tables["t"].Columns))
			}
			if !disabled {
				eventually(t, "gocql's metadata has the new column and table", func() bool {
					lmd, err := ls.KeyspaceMetadata("rm")
					return err == nil && lmd.Tables["t"].Columns["v"] != nil && lmd.Tables["t2"] != nil
				})
				lmd, _ := ls.KeyspaceMetadata("rm")
				if diff := cmp.Diff(metaTree(reflect.ValueOf(lmd)), metaTree(reflect.ValueOf(md))); diff != "" {
					t.Fatalf("after the schema event (-gocql +compat):\n%s", diff)
				}
				return
			}
			time.Sleep(2 * time.Second) // events would have arrived and been debounced
			lmd, err := ls.KeyspaceMetadata("rm")
			if err != nil {
				t.Fatalf("gocql with DisableSchemaEvents: %v; want the cached old schema", err)
			}
			if lmd.Tables["t"].Columns["v"] != nil || lmd.Tables["t2"] != nil {
				t.Fatalf("gocql with DisableSchemaEvents: err %v, tables %v; want the cached old schema (has gocql changed?)", err, sortedKeys(lmd.Tables))
			}
			if err := as.Query("DROP KEYSPACE rm").Exec(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.KeyspaceMetadata("rm"); err != ErrKeyspaceDoesNotExist {
				t.Errorf("compat after DROP KEYSPACE: %v, want ErrKeyspaceDoesNotExist", err)
			}
			if _, err := ls.KeyspaceMetadata("rm"); err != nil {
				t.Errorf("gocql with DisableSchemaEvents after DROP KEYSPACE: %v, want the cached metadata", err)
			}
		})
	}
}

// TestReviewMeta2SchemaReadFailsUnlikeGocql: when a node fails gocql v1.7.0's read of
// system_schema.keyspaces (here: overloaded, on every attempt), KeyspaceMetadata reports
// ErrKeyspaceDoesNotExist, and when it fails the read of system_schema.tables it returns (and
// caches) the keyspace without any table and no error. compat returns an error naming the
// read that failed, wrapping the node's (G57).
func TestReviewMeta2SchemaReadFailsUnlikeGocql(t *testing.T) {
	sim, s, _ := metaPair(t, nil, metaComplexDDL...)
	for _, tc := range []struct{ table, want string }{
		{"keyspaces", `gocql: reading keyspace "rm" metadata: busy`},
		{"tables", `gocql: reading tables of "rm": busy`},
	} {
		if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM system_schema." + tc.table, Error: &message.Overloaded{ErrorMessage: "busy"}}); err != nil {
			t.Fatal(err)
		}
		_, ls := sessionsOn(t, sim, nil) // a gocql session with nothing cached
		md, err := s.KeyspaceMetadata("rm")
		lmd, lerr := ls.KeyspaceMetadata("rm")
		if err == nil || err.Error() != tc.want || err == ErrKeyspaceDoesNotExist {
			t.Errorf("compat, %s read failing: %v (metadata %v), want %q", tc.table, err, md != nil, tc.want)
		}
		var reqErr RequestError
		if err != nil && (!errors.As(err, &reqErr) || reqErr.Code() != ErrCodeOverloaded) {
			t.Errorf("compat, %s read failing: %T %v does not wrap the node's error", tc.table, err, err)
		}
		switch tc.table {
		case "keyspaces":
			if lerr != gocqlv1.ErrKeyspaceDoesNotExist {
				t.Errorf("gocql, keyspaces read failing: %v, want ErrKeyspaceDoesNotExist (has gocql changed?)", lerr)
			}
		case "tables":
			if lerr != nil || len(lmd.Tables) != 0 {
				t.Errorf("gocql, tables read failing: %v, want no error and no table (has gocql changed?)", lerr)
			}
		}
		if err := sim.ClearFaults(0); err != nil {
			t.Fatal(err)
		}
	}
}
