package native_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// BindAudit is embedded by pointer in bindItem (exported: RowToStruct looks only into
// embedded pointers to exported struct types, which reflect can allocate).
type BindAudit struct {
	Note    string
	Version int64
}

type bindItem struct {
	ID    int32  `cql:"id"`
	Title string `cql:"name"`
	Tags  []string
	Price *float64
	Skip  string `cql:"-"`
	*BindAudit
	secret string // unexported: ignored
}

// BindStruct binds a struct's fields to a prepared statement's markers by name (tag, name
// case-insensitively, promoted embedded fields, named markers, a tagged LIMIT); the row
// read back with RowToStruct equals what was written; the values are read when it is called.
func TestBindStructRoundTrip(t *testing.T) {
	s, _ := connect(t) // Cassandra with CQL_HOSTS, else cqlsim
	mustExec(t, s, "CREATE TABLE items (id int PRIMARY KEY, name text, tags list<text>, price double, note text, version bigint)")
	ins, err := s.Prepare(ctxT(t), "INSERT INTO items (id, name, tags, price, note, version) VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	price := 9.5
	in := bindItem{ID: 1, Title: "lamp", Tags: []string{"a", "b"}, Price: &price, Skip: "x", BindAudit: &BindAudit{Note: "n", Version: 3}, secret: "s"}
	st, err := native.BindStruct(ins, &in)
	if err != nil {
		t.Fatal(err)
	}
	in.Title = "changed after binding"
	if _, err := s.Execute(ctxT(t), st); err != nil {
		t.Fatal(err)
	}
	// A value, not a pointer, with a nil pointer field (NULL).
	if _, err := native.BindStruct(ins, bindItem{ID: 2, Title: "chair", BindAudit: &BindAudit{}}); err != nil {
		t.Fatal(err)
	} else if _, err := s.Execute(ctxT(t), mustBindStruct(t, ins, bindItem{ID: 2, Title: "chair", BindAudit: &BindAudit{}})); err != nil {
		t.Fatal(err)
	}

	sel, err := s.Prepare(ctxT(t), "SELECT id, name, tags, price, note, version FROM items WHERE id = :id LIMIT :lim")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		ID    int32
		Limit int32 `cql:"lim"`
	}
	res, err := s.Execute(ctxT(t), mustBindStruct(t, sel, key{ID: 1, Limit: 5}))
	if err != nil {
		t.Fatal(err)
	}
	first, ok := res.First()
	if !ok {
		t.Fatal("no row")
	}
	got, err := native.RowToStruct[bindItem](first)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 1 || got.Title != "lamp" || len(got.Tags) != 2 || got.Price == nil || *got.Price != 9.5 ||
		got.BindAudit == nil || got.Note != "n" || got.Version != 3 || got.Skip != "" {
		t.Errorf("read back %+v (audit %+v), want what was bound before the change", got, got.BindAudit)
	}
	// A positional LIMIT marker is named [limit].
	sel, err = s.Prepare(ctxT(t), "SELECT id, name, tags, price, note, version FROM items WHERE id = ? LIMIT ?")
	if err != nil {
		t.Fatal(err)
	}
	type limitKey struct {
		ID    int32
		Limit int32 `cql:"[limit]"`
	}
	res, err = s.Execute(ctxT(t), mustBindStruct(t, sel, limitKey{ID: 2, Limit: 5}))
	if err != nil {
		t.Fatal(err)
	}
	first, _ = res.First()
	if got, err := native.RowToStruct[bindItem](first); err != nil || got.Price != nil || got.Title != "chair" {
		t.Errorf("row 2: %+v, %v; want chair with a NULL price", got, err)
	}
}

func mustBindStruct(t *testing.T, p *native.Prepared, v any) native.Statement {
	t.Helper()
	st, err := native.BindStruct(p, v)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// BindStruct's misuse fails with a *BindError saying what is wrong, nothing sent: not a
// struct, a nil pointer, a marker without a field (named), a field in a nil embedded
// struct, a nil *Prepared; a field of the wrong type fails when executed, as with Bind.
func TestBindStructErrors(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE bse WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE bse.t (id int PRIMARY KEY, note text)")
	ins, err := s.Prepare(ctxT(t), "INSERT INTO bse.t (id, note) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	type noNote struct{ ID int32 }
	type withAudit struct {
		ID int32
		*BindAudit
	}
	var nilPtr *noNote
	var nilPrepared *native.Prepared
	for _, c := range []struct {
		name string
		p    *native.Prepared
		v    any
		want string
	}{
		{"an int", ins, 7, "not int"},
		{"nil", ins, nil, "not nil"},
		{"a nil pointer", ins, nilPtr, "nil *native_test.noNote"},
		{"a missing field", ins, noNote{ID: 1}, "native_test.noNote: no field for this bind marker"},
		{"a nil embedded struct", ins, withAudit{ID: 1}, "embedded *native_test.BindAudit, which is nil"},
		{"a nil Prepared", nilPrepared, noNote{}, "nil or zero *Prepared"},
	} {
		_, err := native.BindStruct(c.p, c.v)
		var be *native.BindError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a BindError containing %q", c.name, err, c.want)
		}
	}
	type wrongType struct {
		ID   string
		Note string
	}
	st, err := native.BindStruct(ins, wrongType{ID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var be *native.BindError
	if _, err := s.Execute(ctxT(t), st); !errors.As(err, &be) || be.Index != 0 {
		t.Errorf("a string for an int marker: %v, want a BindError for value 0", err)
	}
}
