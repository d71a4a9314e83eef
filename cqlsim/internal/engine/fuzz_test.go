package engine

import (
	"testing"
	"time"
)

// FuzzExecute runs arbitrary statements against a small schema: the engine must answer with a
// result or an *Error, never panic.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM t WHERE k = 1 AND c > 2 ORDER BY c DESC LIMIT 3",
		"INSERT INTO t (k, c, v, l, m) VALUES (1, 2, 'x', [1], {'a': 1}) IF NOT EXISTS USING TTL 5",
		"UPDATE t SET l = l + [2], m['b'] = 3, v = 'y' WHERE k = 1 AND c = 2 IF v = 'x'",
		"DELETE m['a'] FROM t WHERE k = 1 AND c = 2",
		"DELETE FROM t WHERE k = 1 AND c >= 2",
		"BEGIN BATCH INSERT INTO t (k, c) VALUES (3, 4); UPDATE t SET v = 'z' WHERE k = 3 AND c = 4; APPLY BATCH",
		"SELECT token(k), count(*), writetime(v) FROM t WHERE token(k) > 0 ALLOW FILTERING",
		"SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks'",
		"UPDATE n SET c = c + 1 WHERE k = 1", "CREATE TABLE x (k int PRIMARY KEY, v frozen<map<int, list<int>>>)",
		"SELECT c, v FROM t WHERE k IN (1, 2) AND (c) IN ((1), (2))",
		`INSERT INTO t JSON '{"k": 2, "c": 1, "vt": ["a", "bc"]}'`, "SELECT JSON vt FROM t WHERE k = 1",
		"UPDATE t SET d = 1e-2147483647 WHERE k = 1 AND c = 1 IF d < 1.5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		e, err := New(Options{Now: func() time.Time { return time.Unix(1700000000, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{
			"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE ks.t (k int, c int, v text, l list<int>, m map<text, int>, vt vector<text, 2>, d decimal, PRIMARY KEY (k, c))",
			"CREATE TABLE ks.n (k int PRIMARY KEY, c counter)",
			"INSERT INTO ks.t (k, c, v, vt, d) VALUES (1, 1, 'a', ['b', 'cd'], 1e2147483647)",
		} {
			if _, err := e.Execute(&Request{Query: s}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := e.Execute(&Request{Keyspace: "ks", Query: q, PageSize: 2})
		if err == nil && res == nil {
			t.Fatalf("%q: no result and no error", q)
		}
		if err == nil && res.Kind == ResultRows && len(res.Columns) == 0 {
			t.Fatalf("%q: rows result without columns", q)
		}
		if err == nil && res.PagingState != nil {
			if _, err := e.Execute(&Request{Keyspace: "ks", Query: q, PageSize: 2, PagingState: res.PagingState}); err != nil {
				t.Fatalf("%q: next page: %v", q, err)
			}
		}
	})
}
