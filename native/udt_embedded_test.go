package native_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

// UDTBase is embedded by pointer in udtEmbedding (exported: a pointer to an unexported
// struct type cannot be allocated by reflect, so it is not looked into).
type UDTBase struct {
	X     int32
	Label string `cql:"label"`
}

type udtHidden struct{ Y int32 }

// udtEmbedding maps to the UDT ep (x, label, y, z) through promoted fields: X and Label
// from *UDTBase, Y from the unexported udtHidden embedded by value.
type udtEmbedding struct {
	*UDTBase
	udtHidden
	Z int32
}

// UDTInner is a struct embedded whole: no field of it maps to a field of the outer UDT, so
// the embedded struct receives the UDT field of its name.
type UDTInner struct{ X int32 }

// A struct maps to a UDT as RowToStruct maps it to columns: the fields of its untagged
// embedded structs are promoted, on encoding and decoding (a nil embedded pointer is
// allocated when decoding needs it; encoding fails on it, as BindStruct does, instead of
// writing NULL for its fields); an embedded struct that no promoted field uses maps whole to
// the UDT field of its name. Decoding used to leave the promoted fields at zero silently,
// and encoding failed.
func TestUDTPromotesEmbeddedFields(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TYPE ep (x int, label text, y int, z int)")
	mustExec(t, s, "CREATE TABLE ept (k int PRIMARY KEY, v frozen<ep>)")
	mustExec(t, s, "INSERT INTO ept (k, v) VALUES (1, {x: 1, label: 'a', y: 2, z: 3})")

	read := func(k int32) udtEmbedding {
		t.Helper()
		row, ok := mustExec(t, s, "SELECT v FROM ept WHERE k = ?", k).First()
		if !ok {
			t.Fatalf("no row %d", k)
		}
		var got udtEmbedding
		if err := row.Scan(&got); err != nil {
			t.Fatalf("Scan: %v", err)
		}
		return got
	}
	got := read(1)
	if got.UDTBase == nil || got.X != 1 || got.Label != "a" || got.Y != 2 || got.Z != 3 {
		t.Errorf("decoded %+v (base %+v), want x 1, label a, y 2, z 3", got, got.UDTBase)
	}

	ins := mustPrepare(t, s, "INSERT INTO ept (k, v) VALUES (?, ?)")
	in := udtEmbedding{UDTBase: &UDTBase{X: 4, Label: "b"}, udtHidden: udtHidden{Y: 5}, Z: 6}
	if _, err := s.Execute(ctxT(t), ins.Bind(int32(2), in)); err != nil {
		t.Fatalf("encoding a struct with embedded structs: %v", err)
	}
	m := map[string]any{}
	row, _ := mustExec(t, s, "SELECT v FROM ept WHERE k = 2").First()
	if err := row.Scan(&m); err != nil {
		t.Fatal(err)
	}
	if m["x"] != int32(4) || m["label"] != "b" || m["y"] != int32(5) || m["z"] != int32(6) {
		t.Errorf("stored %v, want x 4, label b, y 5, z 6", m)
	}

	_, err := s.Execute(ctxT(t), ins.Bind(int32(3), udtEmbedding{Z: 1}))
	var be *native.BindError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "which is nil") {
		t.Errorf("encoding with a nil embedded pointer: %v, want a *BindError saying it is nil", err)
	}

	// An embedded struct whose fields map to no UDT field is one field, named as before.
	mustExec(t, s, "CREATE TYPE epin (x int)")
	mustExec(t, s, "CREATE TYPE epout (udtinner frozen<epin>, z int)")
	mustExec(t, s, "CREATE TABLE epw (k int PRIMARY KEY, v frozen<epout>)")
	type whole struct {
		UDTInner
		Z int32
	}
	insW := mustPrepare(t, s, "INSERT INTO epw (k, v) VALUES (?, ?)")
	if _, err := s.Execute(ctxT(t), insW.Bind(int32(1), whole{UDTInner{7}, 8})); err != nil {
		t.Fatal(err)
	}
	row, _ = mustExec(t, s, "SELECT v FROM epw WHERE k = 1").First()
	var w whole
	if err := row.Scan(&w); err != nil || w.X != 7 || w.Z != 8 {
		t.Errorf("an embedded struct as a whole: %+v, %v; want x 7, z 8", w, err)
	}

	// A promoted field the UDT lacks fails encoding, as a struct's own field does.
	type extra struct {
		UDTInner
		udtHidden
		Z int32
	}
	_, err = s.Execute(ctxT(t), insW.Bind(int32(2), extra{Z: 1}))
	if !errors.As(err, &be) || !strings.Contains(err.Error(), `"y"`) {
		t.Errorf("encoding a promoted field the UDT lacks: %v, want a *BindError naming y", err)
	}
}

// Two untagged struct fields whose lower-cased names are one UDT field's (Zz and ZZ for zz)
// are an error on encoding and decoding, not a silent pick (the last one used to win).
func TestUDTFieldNamesDifferingInCaseOnly(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TYPE epz (zz int)")
	mustExec(t, s, "CREATE TABLE epzt (k int PRIMARY KEY, v frozen<epz>)")
	mustExec(t, s, "INSERT INTO epzt (k, v) VALUES (1, {zz: 1})")
	type twoCases struct {
		Zz int32
		ZZ int32
	}
	row, _ := mustExec(t, s, "SELECT v FROM epzt WHERE k = 1").First()
	var got twoCases
	if err := row.Scan(&got); err == nil || !strings.Contains(err.Error(), "Zz and ZZ") {
		t.Errorf("decoding zz into fields Zz and ZZ: %+v, %v; want an error naming both", got, err)
	}
	ins := mustPrepare(t, s, "INSERT INTO epzt (k, v) VALUES (?, ?)")
	if _, err := s.Execute(ctxT(t), ins.Bind(int32(2), twoCases{1, 2})); err == nil || !strings.Contains(err.Error(), "Zz and ZZ") {
		t.Errorf("encoding fields Zz and ZZ for zz: %v, want an error naming both", err)
	}
}
