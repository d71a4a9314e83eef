package native_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

// structCaseItem has one untagged field, A, for columns a and "A" (a quoted, case-sensitive
// name): it matches "A" exactly, and a only in case.
type structCaseItem struct {
	K int32
	A int32
}

// RowToStruct and BindStruct match an untagged field to a column whose name differs from its
// own in case only when no column has the field's exact name, as a named value binds a
// marker: with columns a and "A", field A takes "A" alone and a has no field (it used to
// take both, silently writing "A"'s value to a, and reading whichever column came last). Two
// fields that match a column in case only (Bb and BB for bb) are an error, not a silent pick;
// a single one still matches whatever the case.
func TestStructFieldCaseOnlyMatch(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, `CREATE TABLE sc (k int PRIMARY KEY, a int, "A" int, bb int)`)
	ins := mustPrepare(t, s, `INSERT INTO sc (k, a, "A") VALUES (?, ?, ?)`)

	_, err := native.BindStruct(ins, structCaseItem{K: 1, A: 7})
	var be *native.BindError
	if !errors.As(err, &be) || be.Name != "a" {
		t.Errorf(`BindStruct with field A for markers a and "A": %v, want a *BindError for marker a`, err)
	}
	type tagged struct {
		K     int32
		Lower int32 `cql:"a"`
		A     int32
	}
	if _, err := s.Execute(ctxT(t), mustBindStruct(t, ins, tagged{K: 2, Lower: 6, A: 7})); err != nil {
		t.Fatal(err)
	}

	first, ok := mustExec(t, s, `SELECT a, "A" FROM sc WHERE k = 2`).First()
	if !ok {
		t.Fatal("no row")
	}
	if got, err := native.RowToStruct[structCaseItem](first); err == nil || !strings.Contains(err.Error(), "(a ") {
		t.Errorf(`RowToStruct with field A for columns a and "A": %+v, %v; want an error for column a`, got, err)
	}
	if got, err := native.RowToStruct[tagged](first); err != nil || got.Lower != 6 || got.A != 7 {
		t.Errorf("RowToStruct with a tagged field for a: %+v, %v; want a 6 and A 7", got, err)
	}
	// Without a column "A", A takes a whatever the case.
	first, _ = mustExec(t, s, `SELECT k, a FROM sc WHERE k = 2`).First()
	if got, err := native.RowToStruct[structCaseItem](first); err != nil || got.K != 2 || got.A != 6 {
		t.Errorf("RowToStruct with field A for column a alone: %+v, %v; want K 2, A 6", got, err)
	}

	type twoFold struct {
		K  int32
		Bb int32
		BB int32
	}
	mustExec(t, s, `INSERT INTO sc (k, bb) VALUES (3, 9)`)
	first, _ = mustExec(t, s, `SELECT k, bb FROM sc WHERE k = 3`).First()
	if got, err := native.RowToStruct[twoFold](first); err == nil || !strings.Contains(err.Error(), "(bb ") {
		t.Errorf("RowToStruct with fields Bb and BB for column bb: %+v, %v; want an error for column bb", got, err)
	}
	insB := mustPrepare(t, s, `INSERT INTO sc (k, bb) VALUES (?, ?)`)
	if _, err := native.BindStruct(insB, twoFold{K: 4, Bb: 1, BB: 2}); !errors.As(err, &be) || be.Name != "bb" {
		t.Errorf("BindStruct with fields Bb and BB for marker bb: %v, want a *BindError for marker bb", err)
	}
}
