package native_test

import (
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// Address is the Go side of a UDT, embedded in rows by the tests below.
type Address struct {
	Street string
	City   string
}

// An embedded struct whose own name matches a column, and whose fields do not, receives
// that column, as before embedded fields were promoted: a struct embedding the struct of a
// UDT column (or a time.Time for a column named time) decoded it, and failed with "has no
// field for this column" once the embedded struct was only looked into.
func TestRowToStructEmbeddedStructMatchedByItsName(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE embu WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TYPE embu.address (street text, city text)")
	mustExec(t, s, "CREATE TABLE embu.t (id int PRIMARY KEY, address frozen<address>)")
	mustExec(t, s, "INSERT INTO embu.t (id, address) VALUES (1, {street: 'main', city: 'x'})")
	type row struct {
		ID int32
		Address
	}
	res := mustExec(t, s, "SELECT id, address FROM embu.t")
	first, _ := res.First()
	got, err := native.RowToStruct[row](first)
	if err != nil || got.ID != 1 || got.Street != "main" || got.City != "x" {
		t.Errorf("RowToStruct = %+v, %v; want id 1 and the address main, x", got, err)
	}
}

// An embedded struct whose tag has options but no name (`cql:",opt"`) is untagged, as for
// any other field: its fields are promoted. They had no field: RowToStruct's own fields
// skipped it as an untagged embedded struct, and the promotion skipped it as a tagged one.
func TestRowToStructEmbeddedStructTagWithoutName(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE embo WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE embo.t (id int PRIMARY KEY, street text, city text)")
	mustExec(t, s, "INSERT INTO embo.t (id, street, city) VALUES (1, 'main', 'x')")
	type row struct {
		ID      int32
		Address `cql:",opt"`
	}
	res := mustExec(t, s, "SELECT id, street, city FROM embo.t")
	first, _ := res.First()
	got, err := native.RowToStruct[row](first)
	if err != nil || got.ID != 1 || got.Street != "main" || got.City != "x" {
		t.Errorf("RowToStruct = %+v, %v; want id 1, street main, city x", got, err)
	}
}
