package engine

import (
	"reflect"
	"testing"
)

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestBasicCRUD(t *testing.T) {
	te := newTestEngine(t)
	te.mustExec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	te.mustExec("USE ks")
	te.mustExec("CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)")
	for _, q := range []string{
		"INSERT INTO t (k, c, v) VALUES (1, 1, 'a')",
		"INSERT INTO t (k, c, v) VALUES (1, 2, 'b')",
		"INSERT INTO t (k, c, v) VALUES (2, 1, 'c')",
	} {
		te.mustExec(q)
	}
	eq(t, "partition", te.rows("SELECT * FROM t WHERE k = 1"), []string{"1|2|'b'", "1|1|'a'"})
	eq(t, "order asc", te.rows("SELECT c FROM t WHERE k = 1 ORDER BY c ASC"), []string{"1", "2"})
	eq(t, "range", te.rows("SELECT c, v FROM t WHERE k = 1 AND c > 1"), []string{"2|'b'"})
	te.mustExec("UPDATE t SET v = 'z' WHERE k = 2 AND c = 1")
	eq(t, "update", te.rows("SELECT v FROM t WHERE k = 2 AND c = 1"), []string{"'z'"})
	te.mustExec("DELETE FROM t WHERE k = 1 AND c = 2")
	eq(t, "delete", te.rows("SELECT c FROM t WHERE k = 1"), []string{"1"})
	eq(t, "count", te.rows("SELECT COUNT(*) FROM t"), []string{"2"})
	eq(t, "token order", te.rows("SELECT k FROM t"), []string{"1", "2"})
}
