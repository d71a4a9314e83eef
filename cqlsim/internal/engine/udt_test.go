package engine

import (
	"fmt"
	"testing"
	"time"
)

// TestUDTFieldCells: a non-frozen user type value is one cell per field, each reconciled on its
// own (higher timestamp, then tombstone, then greater value), as Cassandra 5.0 stores it; the
// differential test runs the same statements on Cassandra (generated seeds 201 and 298 lost a
// field that an older INSERT of the whole value set, as cqlsim kept the value whole).
func TestUDTFieldCells(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TYPE u (a int, b text)")
	te.mustExec("CREATE TABLE t (k int PRIMARY KEY, u u, x int)")
	te.mustExec("CREATE TABLE st (k int, c int, su u static, v int, PRIMARY KEY (k, c))")
	for _, q := range []string{
		// an older overwrite keeps the newer field and sets the others
		"UPDATE t USING TIMESTAMP 20 SET u.a = 1 WHERE k = 1",
		"INSERT INTO t (k, u) VALUES (1, {a: 2, b: 'c'}) USING TIMESTAMP 10",
		// same timestamp: the greater value wins, then a tombstone wins
		"UPDATE t USING TIMESTAMP 5 SET u.a = 3 WHERE k = 2",
		"UPDATE t USING TIMESTAMP 5 SET u.a = 2 WHERE k = 2",
		"UPDATE t USING TIMESTAMP 5 SET u.b = 'x' WHERE k = 3",
		"DELETE u.b FROM t USING TIMESTAMP 5 WHERE k = 3",
		// a deletion of one field older than the field's write is lost
		"UPDATE t SET u = {a: 1, b: 'q'} WHERE k = 4",
		"DELETE u.b FROM t USING TIMESTAMP 1 WHERE k = 4",
		"DELETE u.a FROM t WHERE k = 4",
		// DELETE u shadows field writes with its timestamp; SET u = ... deletes at timestamp-1
		"DELETE u FROM t USING TIMESTAMP 3 WHERE k = 5",
		"UPDATE t USING TIMESTAMP 3 SET u.a = 4 WHERE k = 5",
		"UPDATE t USING TIMESTAMP 3 SET u = null WHERE k = 6",
		"UPDATE t USING TIMESTAMP 3 SET u.a = 4 WHERE k = 6",
		"UPDATE t USING TIMESTAMP 3 SET u = {b: 'y'} WHERE k = 7",
		"UPDATE t USING TIMESTAMP 2 SET u.a = 4 WHERE k = 7",
		"UPDATE t USING TIMESTAMP 3 SET u.a = 5 WHERE k = 7",
		// a value whose fields are all null is no cell: null, the row alive by its INSERT
		"INSERT INTO t (k, u) VALUES (8, {a: null, b: null})",
		// SET u.f = null deletes the field
		"UPDATE t SET u.a = 1, x = 1 WHERE k = 9",
		"UPDATE t SET u.a = null WHERE k = 9",
		// static columns alike
		"UPDATE st USING TIMESTAMP 20 SET su.a = 1 WHERE k = 1",
		"INSERT INTO st (k, c, su) VALUES (1, 1, {a: 2, b: 'c'}) USING TIMESTAMP 10",
	} {
		te.mustExec(q)
	}
	eq(t, "rows (3 and 5 are gone)", te.rows("SELECT k, u, x FROM t"), []string{
		"1|{a: 1, b: 'c'}|null",
		"8|null|null",
		"2|{a: 3, b: null}|null",
		"4|{a: null, b: 'q'}|null",
		"7|{a: 5, b: 'y'}|null",
		"6|{a: 4, b: null}|null",
		"9|null|1",
	})
	eq(t, "static", te.rows("SELECT su FROM st"), []string{"{a: 1, b: 'c'}"})
	eq(t, "field selection", te.rows("SELECT u.a, u.b FROM t WHERE k = 7"), []string{"5|'y'"})
	eq(t, "json", te.rows("SELECT JSON u FROM t WHERE k IN (4, 8)"), []string{`'{"u": {"a": null, "b": "q"}}'`, `'{"u": null}'`})
	eq(t, "condition on a field", te.rows("UPDATE t SET u.b = 'z' WHERE k = 7 IF u.a = 5"), []string{"true"})
	eq(t, "condition on the value", te.rows("UPDATE t SET u.a = 6 WHERE k = 7 IF u = {a: 5, b: 'z'}"), []string{"true"})
	eq(t, "conditional writes", te.rows("SELECT u FROM t WHERE k = 7"), []string{"{a: 6, b: 'z'}"})
}

// TestUDTFieldTTL: each field of a non-frozen user type value keeps its own expiry, as each
// is its own cell in Cassandra 5.0: a field written with a TTL expires alone, and a field
// written without one outlives a whole value written with one.
func TestUDTFieldTTL(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TYPE u (a int, b text)")
	te.mustExec("CREATE TABLE t (k int PRIMARY KEY, u u)")
	te.mustExec("UPDATE t SET u.a = 1 WHERE k = 1")
	te.mustExec("UPDATE t USING TTL 10 SET u.b = 'q' WHERE k = 1")
	te.mustExec("INSERT INTO t (k, u) VALUES (2, {a: 5, b: 'r'}) USING TTL 10")
	te.mustExec("UPDATE t SET u.a = 6 WHERE k = 2")
	te.mustExec("UPDATE t USING TTL 10 SET u.b = 's' WHERE k = 3")
	eq(t, "before expiry", te.rows("SELECT k, u FROM t"), []string{"1|{a: 1, b: 'q'}", "2|{a: 6, b: 'r'}", "3|{a: null, b: 's'}"})
	te.now = te.now.Add(11 * time.Second)
	eq(t, "after expiry", te.rows("SELECT k, u FROM t"), []string{"1|{a: 1, b: null}", "2|{a: 6, b: null}"})
}

// TestUDTWritetime: as Cassandra 5.0 answers, writetime() and ttl() of a non-frozen user type
// column are lists with one value per field of the type (null for a field without a cell, or
// for ttl() a field without a TTL), and of a field, u.f, the field cell's (of a frozen user
// type, the column's while the field is not null). cqlsim refused them.
func TestUDTWritetime(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TYPE u (a int, b text)")
	te.mustExec("CREATE TABLE t (k int, c int, u u, fu frozen<u>, su u static, x int, PRIMARY KEY (k, c))")
	te.mustExec("UPDATE t USING TIMESTAMP 20 SET u.a = 1 WHERE k = 1 AND c = 1")
	te.mustExec("INSERT INTO t (k, c, u, fu) VALUES (1, 1, {a: 2, b: 'c'}, {a: 2}) USING TIMESTAMP 10 AND TTL 100")
	te.mustExec("UPDATE t USING TIMESTAMP 9 SET su.b = 'x' WHERE k = 1")
	te.mustExec("INSERT INTO t (k, c, x) VALUES (1, 2, 1)")
	r := te.mustExec("SELECT writetime(u), ttl(u), writetime(u.a), ttl(u.b), writetime(fu.a), writetime(fu.b), ttl(fu.a), writetime(su) FROM t WHERE k = 1")
	var names []string
	for _, c := range r.Columns {
		names = append(names, fmt.Sprintf("%s %v", c.Name, c.Type))
	}
	eq(t, "columns", names, []string{"writetime(u) list<bigint>", "ttl(u) list<int>", "writetime(u.a) bigint", "ttl(u.b) int",
		"writetime(fu.a) bigint", "writetime(fu.b) bigint", "ttl(fu.a) int", "writetime(su) list<bigint>"})
	eq(t, "values", render(r), []string{"[20, 10]|[null, 100]|20|100|10|null|100|[null, 9]", "null|null|null|null|null|null|null|[null, 9]"})
	te.mustExec("ALTER TYPE u ADD z int")
	eq(t, "a field added by ALTER TYPE", te.rows("SELECT writetime(u), writetime(u.z) FROM t WHERE k = 1 AND c = 1"), []string{"[20, 10, null]|null"})
	te.wantInvalid(map[string]string{
		"SELECT writetime(c.a) FROM t":    "Cannot use selection function writetime on PRIMARY KEY part c",
		"SELECT writetime(u.nope) FROM t": "u of type u has no field nope",
		"SELECT ttl(x.a) FROM t":          "Invalid field selection: x of type int is not a user type",
		"SELECT ttl(u.a.b) FROM t":        "Invalid field selection: u.a of type int is not a user type",
	})
}
