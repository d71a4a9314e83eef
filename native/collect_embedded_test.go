package native_test

import (
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

type embeddedKey struct {
	ID   int32  `cql:"id"`
	Name string // shadowed by the outer struct's Name
}

type EmbeddedAudit struct {
	Note string
	embeddedDeep
}

type embeddedDeep struct {
	Version int64
}

type hiddenAudit struct{ Hidden string }

// RowToStruct promotes the fields of embedded structs, as encoding/json does: a struct
// embedded by value or by pointer (allocated when a column needs it), at any depth; the
// outer struct's own field wins over an embedded one of the same name; an embedded struct
// with a tag is one field, and an embedded pointer to an unexported struct type is not
// looked into (reflect cannot allocate it), so its columns have no field.
func TestRowToStructPromotesEmbeddedFields(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE emb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE emb.t (id int PRIMARY KEY, name text, note text, version bigint, hidden text)")
	mustExec(t, s, "INSERT INTO emb.t (id, name, note, version, hidden) VALUES (7, 'outer', 'n', 3, 'h')")
	type row struct {
		embeddedKey
		*EmbeddedAudit
		Name string
	}
	res := mustExec(t, s, "SELECT id, name, note, version FROM emb.t")
	first, _ := res.First()
	got, err := native.RowToStruct[row](first)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 7 || got.Name != "outer" || got.embeddedKey.Name != "" || got.EmbeddedAudit == nil ||
		got.Note != "n" || got.Version != 3 {
		t.Errorf("RowToStruct = %+v (audit %+v), want id 7, name outer in the outer field, note n, version 3", got, got.EmbeddedAudit)
	}

	// No column of the embedded pointer's struct: it stays nil.
	res = mustExec(t, s, "SELECT id, name FROM emb.t")
	first, _ = res.First()
	if got, err := native.RowToStruct[row](first); err != nil || got.EmbeddedAudit != nil {
		t.Errorf("without its columns: audit %+v, %v; want nil, no error", got.EmbeddedAudit, err)
	}

	// A tagged embedded struct is one field, not promoted.
	type tagged struct {
		ID          int32
		embeddedKey `cql:"key"`
	}
	res = mustExec(t, s, "SELECT id, name FROM emb.t")
	first, _ = res.First()
	if _, err := native.RowToStruct[tagged](first); err == nil || !strings.Contains(err.Error(), "no field for this column") {
		t.Errorf("a tagged embedded struct: %v, want name to have no field", err)
	}

	type hidden struct {
		ID int32
		*hiddenAudit
	}
	res = mustExec(t, s, "SELECT id, hidden FROM emb.t")
	first, _ = res.First()
	if _, err := native.RowToStruct[hidden](first); err == nil || !strings.Contains(err.Error(), "no field for this column") {
		t.Errorf("an embedded pointer to an unexported struct: %v, want hidden to have no field", err)
	}
}

// A column that lands in an embedded struct costs no more allocations per row, once its
// field is known, than one of the struct's own.
func TestRowToStructPromotedFieldAllocations(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	res := mustExec(t, s, "SELECT key, release_version FROM system.local")
	row, _ := res.First()
	type Base struct {
		Key string
	}
	type own struct {
		Key     string
		Version string `cql:"release_version"`
	}
	type promoted struct {
		Base
		Version string `cql:"release_version"`
	}
	if got, err := native.RowToStruct[promoted](row); err != nil || got.Key != "local" {
		t.Fatalf("RowToStruct: %+v, %v", got, err)
	}
	ownAllocs := testing.AllocsPerRun(100, func() { _, _ = native.RowToStruct[own](row) })
	promotedAllocs := testing.AllocsPerRun(100, func() { _, _ = native.RowToStruct[promoted](row) })
	if promotedAllocs > ownAllocs {
		t.Errorf("RowToStruct allocates %.0f times per row with an embedded field, %.0f without", promotedAllocs, ownAllocs)
	}
}

type embeddedFirst struct{ Label string }

type embeddedSecond struct {
	Label string
	Rank  int32
}

type embeddedOuter struct{ embeddedDeeper }

type embeddedDeeper struct{ Rank int32 }

// Two embedded structs with a field of the same name at the same depth: the column goes to
// the first in field order (as sqlx's and gocqlx's mappers do; encoding/json would ignore
// both); a shallower promoted field wins over a deeper one wherever they are declared.
func TestRowToStructSameDepthNamesTakeFirst(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE embd WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE embd.t (id int PRIMARY KEY, label text, rank int)")
	mustExec(t, s, "INSERT INTO embd.t (id, label, rank) VALUES (1, 'l', 5)")
	type row struct {
		ID int32
		embeddedOuter
		embeddedFirst
		embeddedSecond
	}
	first, _ := mustExec(t, s, "SELECT id, label, rank FROM embd.t").First()
	got, err := native.RowToStruct[row](first)
	if err != nil {
		t.Fatal(err)
	}
	if got.embeddedFirst.Label != "l" || got.embeddedSecond.Label != "" {
		t.Errorf("label went to first %q, second %q; want the first embedded struct's", got.embeddedFirst.Label, got.embeddedSecond.Label)
	}
	if got.embeddedSecond.Rank != 5 || got.embeddedOuter.Rank != 0 {
		t.Errorf("rank went to depth 1 %d, depth 2 %d; want the shallower field", got.embeddedSecond.Rank, got.embeddedOuter.Rank)
	}
}
