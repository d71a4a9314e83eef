package gocql

import (
	"bytes"
	"fmt"
	"log"
	"strings"
	"testing"
)

// TestKeyspaceMetadataSchemaTypes checks the TypeInfo of columns and user type fields read from
// system_schema: gocql v1.7.0 reports user types as TypeCustom (with no class name), drops
// frozen<>, and leaves the protocol version unset.
func TestKeyspaceMetadataSchemaTypes(t *testing.T) {
	s, ks := newTestSession(t,
		"CREATE TYPE KS.point (x int, y int, label text)",
		"CREATE TYPE KS.shape (name text, center frozen<point>, tags list<text>, attrs map<text, int>)",
		"CREATE TABLE KS.things (id int PRIMARY KEY, s frozen<shape>, ps list<frozen<point>>, "+
			"m map<text, frozen<list<int>>>, tu tuple<int, text, frozen<point>>, d duration, u uuid)")
	md, err := s.KeyspaceMetadata(ks)
	if err != nil {
		t.Fatal(err)
	}
	shape := md.UserTypes["shape"]
	if shape == nil || md.Views["shape"] == nil {
		t.Fatalf("user type shape missing: %v %v", md.UserTypes, md.Views)
	}
	var fields []string
	for i, ft := range shape.FieldTypes {
		fields = append(fields, fmt.Sprintf("%s:%v", shape.FieldNames[i], ft))
	}
	if got, want := strings.Join(fields, " "), "name:text center:custom() tags:list(text) attrs:map(text, int)"; got != want {
		t.Errorf("shape fields = %q, want %q", got, want)
	}
	tbl := md.Tables["things"]
	if tbl == nil {
		t.Fatalf("table things missing: %v", md.Tables)
	}
	want := map[string]string{
		"id": "int",
		"s":  "custom()",
		"ps": "list(custom())",
		"m":  "map(text, list(int))",
		"tu": "tuple(int, text, custom())",
		"d":  "duration",
		"u":  "uuid",
	}
	for name, w := range want {
		c := tbl.Columns[name]
		if c == nil {
			t.Errorf("column %s missing", name)
			continue
		}
		if got := fmt.Sprint(c.Type); got != w {
			t.Errorf("column %s (%s): type %q, want %q", name, c.Validator, got, w)
		}
		if c.Type.Version() != 0 {
			t.Errorf("column %s: Version() = %d, want 0 as gocql", name, c.Type.Version())
		}
	}
	s0 := tbl.Columns["s"].Type
	if _, isUDT := s0.(UDTTypeInfo); isUDT || s0.Type() != TypeCustom || s0.Custom() != "" {
		t.Errorf("UDT column: %T type %v custom %q, want NativeType TypeCustom with no class", s0, s0.Type(), s0.Custom())
	}
	if _, err := Marshal(s0, map[string]interface{}{}); err == nil {
		t.Error("Marshal with a schema TypeInfo (no protocol version) succeeded")
	}
}

func TestSchemaTypeParsing(t *testing.T) {
	var logged bytes.Buffer
	s := &Session{logger: log.New(&logged, "", 0)}
	cases := []struct{ in, want string }{
		{"int", "int"},
		{"text", "text"},
		{"varchar", "varchar"},
		{"frozen<list<frozen<set<bigint>>>>", "list(set(bigint))"},
		{"map<text, frozen<map<int, blob>>>", "map(text, map(int, blob))"},
		{"map<text>", "custom()"}, // a map without two parameters: logged, custom
		{"tuple<int, text>", "tuple(int, text)"},
		{"vector<float, 3>", "custom()"},
		{"'org.apache.cassandra.db.marshal.DynamicCompositeType'", "custom()"},
		{"MapType", "map"},
		{"", "custom()"},
		{"frozen<", "custom()"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(s.schemaTypeInfo(c.in, false)); got != c.want {
			t.Errorf("schemaTypeInfo(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := logged.String(); !strings.Contains(got, "Error parsing map type, it has 1 subelements, expecting 2") {
		t.Errorf("map<text> was not logged: %q", got)
	}
	classes := []struct{ in, want string }{
		{"org.apache.cassandra.db.marshal.Int32Type", "int"},
		{"org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.LongType)", "map(varchar, bigint)"},
		{"org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.TimestampType)", "list(timestamp)"},
		{"org.apache.cassandra.db.marshal.SomethingType", "custom()"},
	}
	for _, c := range classes {
		if got := fmt.Sprint(s.schemaTypeInfo(c.in, true)); got != c.want {
			t.Errorf("schemaTypeInfo(%q, classes) = %q, want %q", c.in, got, c.want)
		}
	}
}
