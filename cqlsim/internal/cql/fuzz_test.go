package cql

import "testing"

// FuzzParse checks that the parser never panics or hangs, whatever the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM ks.t WHERE k = ? AND c > 1 ORDER BY c DESC LIMIT 10",
		"INSERT INTO t (k, v, l, m) VALUES (1, 'x', [1, 2], {'a': {1, 2}}) IF NOT EXISTS USING TTL 5",
		"UPDATE t SET c = c + 1, m['k'] = :v WHERE k IN (1, 2) IF v = 1",
		"DELETE m['a'] FROM t WHERE k = 1 AND (c, d) >= (1, 'x')",
		"BEGIN BATCH INSERT INTO t (k) VALUES (1); APPLY BATCH",
		"CREATE TABLE t (k int, c frozen<list<tuple<int, text>>>, v vector<float, 3>, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC)",
		"CREATE TYPE a (b int)", "SELECT token(k), writetime(v) FROM t WHERE token(k) > -1",
		"INSERT INTO t (d) VALUES (1h2m3s4ms5us6ns)", "SELECT 'unterminated", "/* open comment",
		"SELECT CAST(CAST(v AS bigint) AS text), cast((int)1 as varchar) FROM t WHERE (c) > (1) AND (c) IN ((1), ?)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err == nil && p.Stmt == nil {
			t.Fatalf("Parse(%q) returned neither a statement nor an error", s)
		}
	})
}
