package engine

import "testing"

// TestAlterIfExistsResults: as Cassandra 5.0, an ALTER TABLE or ALTER TYPE that IF [NOT]
// EXISTS turns into no change answers with a void result (no schema change event), and one
// that changes something with a schema change; RENAME changes the names the table is read by.
// (cqlsim/difftest compares the errors and the data with Cassandra's, which answers alike.)
func TestAlterIfExistsResults(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
	te.mustExec("INSERT INTO t (k, c, v) VALUES (1, 2, 3)")
	te.mustExec("CREATE TYPE ty (a int)")
	for _, tc := range []struct {
		q    string
		void bool
	}{
		{"ALTER TABLE IF EXISTS nope ADD x int", true},
		{"ALTER TABLE IF EXISTS nosuchks.t ADD x int", true},
		{"ALTER TABLE t ADD IF NOT EXISTS v int", true},
		{"ALTER TABLE t ADD IF NOT EXISTS (v int, x int)", false},
		{"ALTER TABLE t DROP IF EXISTS (nope, y)", true},
		{"ALTER TABLE t DROP IF EXISTS (nope, x)", false},
		{"ALTER TABLE t RENAME c TO cc", false},
		{"ALTER TYPE IF EXISTS nope ADD b int", true},
		{"ALTER TYPE ty ADD IF NOT EXISTS a int", true},
		{"ALTER TYPE ty RENAME IF EXISTS nope TO b", true},
		{"ALTER TYPE ty RENAME a TO aa", false},
	} {
		q, void := tc.q, tc.void
		r, err := te.exec(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if gotVoid := r.Kind == ResultVoid; gotVoid != void {
			t.Errorf("%s: result kind %v, want void %v", q, r.Kind, void)
		}
	}
	if rows := te.rows("SELECT k, cc, v FROM t"); len(rows) != 1 {
		t.Errorf("after RENAME: rows %q", rows)
	}
	if code, msg := te.errCode("SELECT c FROM t"); code != CodeInvalid || msg != "Undefined column name c in table ks.t" {
		t.Errorf("the old name: %v %q", code, msg)
	}
}

// TestAlterNamesWithinStatement: two renames to one name, or one column added twice, are
// refused as a name already taken (they once left two columns of one name, a table with no
// writable partition key); with ADD IF NOT EXISTS the second is skipped, as in Cassandra 5.0.
// (Cassandra 5.0.9 answers the double rename with a server error, IllegalArgumentException.)
func TestAlterNamesWithinStatement(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
	te.wantInvalid(map[string]string{
		"ALTER TABLE t RENAME k TO x AND c TO x": "Cannot rename column c to x in table 'ks.t'; another column with that name already exists",
		"ALTER TABLE t ADD (q int, q int)":       "Column with name 'q' already exists",
	})
	te.mustExec("ALTER TABLE t ADD IF NOT EXISTS (q int, q text)") // as Cassandra: q once, an int
	te.mustExec("INSERT INTO t (k, c, v, q) VALUES (1, 2, 3, 4)")
	if rows := te.rows("SELECT k, c, v FROM t WHERE k = 1"); len(rows) != 1 {
		t.Errorf("after the refused ALTERs: %q", rows)
	}
}
