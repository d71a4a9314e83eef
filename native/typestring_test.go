package native_test

import (
	"testing"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// cqltype.Type.String is CQL: a UDT whose name needs quoting (upper-case letters, a reserved
// word) is shown quoted, as Cassandra shows it in system_schema.columns, so that the text
// declares the same type again (unquoted, "Pt" would name the type pt).
func TestTypeStringQuotesUDTNames(t *testing.T) {
	s, ks := connect(t)
	mustExec(t, s, `CREATE TYPE "Pt" (x int)`)
	mustExec(t, s, `CREATE TYPE "select" (x int)`)
	mustExec(t, s, `CREATE TYPE "a""b" (x int)`)
	mustExec(t, s, `CREATE TABLE qt (k int PRIMARY KEY, a frozen<"Pt">, b list<frozen<"Pt">>, c frozen<"select">, d map<int, frozen<"a""b">>)`)
	res := mustExec(t, s, "SELECT a, b, c, d FROM qt")
	want := map[string]string{"a": `"Pt"`, "b": `list<frozen<"Pt">>`, "c": `"select"`, "d": `map<int, frozen<"a""b">>`}
	for _, c := range res.Columns() {
		if got := c.Type.String(); got != want[c.Name] {
			t.Errorf("column %s: String() = %s, want %s", c.Name, got, want[c.Name])
		}
		// The text declares the same type again.
		table := "qt_" + c.Name
		if _, err := s.Execute(ctxT(t), native.Query("CREATE TABLE "+table+" (k int PRIMARY KEY, v frozen<"+c.Type.String()+">)")); err != nil {
			t.Errorf("column %s: a table declared with %s: %v", c.Name, c.Type, err)
			continue
		}
		if back := mustExec(t, s, "SELECT v FROM "+table).Columns()[0].Type; !back.Equal(c.Type) {
			t.Errorf("column %s: declared with %s, the column is %s", c.Name, c.Type, back)
		}
	}
	// Cassandra's own rendering (cqlsim's system_schema is the simulator's, not the reference).
	if len(cqltest.HostsFromEnv()) == 0 {
		return
	}
	res = mustExec(t, s, "SELECT column_name, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = 'qt'", ks)
	for _, row := range res.Rows() {
		var name, typ string
		if err := row.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		w, ok := want[name]
		if !ok {
			continue // k
		}
		if name == "a" || name == "c" {
			w = "frozen<" + w + ">" // String leaves a column's own type unfrozen
		}
		if typ != w {
			t.Errorf("system_schema shows column %s as %s, the test expects %s", name, typ, w)
		}
	}
}
