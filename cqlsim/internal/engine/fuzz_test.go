package engine

import (
	"strings"
	"testing"
	"time"
)

// FuzzExecute runs arbitrary statements against a small schema: the engine must answer with a
// result or an *Error, never panic. Bytes after a NUL in the input are bound values, each a
// one-byte length and that many bytes (0xFF: NULL), so that the value decoders and
// validators see arbitrary bytes too (see fuzzStatement).
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
		"SELECT m['a'], m['a'..'b'], toJson(l), similarity_cosine([1.0], [2.0]) FROM t WHERE k = 1",
		"INSERT INTO t (k, c, v) VALUES (fromJson('1'), 2, fromJson('\"x\"'))",
		"ALTER TABLE IF EXISTS t RENAME c TO c2 AND k TO k2", "ALTER TABLE t ADD IF NOT EXISTS (v text, w int)",
		"ALTER TABLE t DROP IF EXISTS (w, zz)", "CREATE TYPE u (a int)", "ALTER TYPE u RENAME IF EXISTS a TO b AND b TO c",
		"SELECT CAST(v AS int), CAST(d AS text), CAST(CAST(c AS bigint) AS date), CAST(token(k) AS blob) FROM t WHERE k = 1",
		"SELECT c FROM t WHERE k = 1 AND (c) >= (1) AND (c) < (5) AND (c) IN ((2), (?))",
	} {
		f.Add(s)
	}
	for _, s := range []string{
		"INSERT INTO t (k, c, vt, d) VALUES (?, ?, ?, ?)\x00\x04\x00\x00\x00\x02\x04\x00\x00\x00\x01\x05\x01a\x02bc\x05\x7f\xff\xff\xff\x01",
		"UPDATE t SET l = ?, m = ? WHERE k = 1 AND c = ?\x00\x0c\x00\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00\x07\xff\x04\x00\x00\x00\x01",
		"SELECT * FROM t WHERE k = ? AND d > ? ALLOW FILTERING\x00\x04\x00\x00\x00\x01\x05\x80\x00\x00\x00\x01",
		"SELECT c FROM t WHERE k = 1 AND (c) > ? AND (c) IN ?\x00\x08\x00\x00\x00\x04\x00\x00\x00\x01\x03\x00\x00\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q, vals := fuzzStatement(in)
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
			if _, err := e.Execute(&Request{Consistency: 1, Query: s}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := e.Execute(&Request{Consistency: 1, Keyspace: "ks", Query: q, Values: vals, PageSize: 2})
		if err == nil && res == nil {
			t.Fatalf("%q: no result and no error", q)
		}
		if err == nil && res.Kind == ResultRows && len(res.Columns) == 0 {
			t.Fatalf("%q: rows result without columns", q)
		}
		if err == nil && res.PagingState != nil {
			if _, err := e.Execute(&Request{Consistency: 1, Keyspace: "ks", Query: q, Values: vals, PageSize: 2, PagingState: res.PagingState}); err != nil {
				t.Fatalf("%q: next page: %v", q, err)
			}
		}
	})
}

// fuzzStatement splits a fuzz input into the statement (up to the first NUL) and the bound
// values after it: each is a one-byte length and that many bytes, 0xFF standing for NULL; a
// truncated last value keeps the bytes present.
func fuzzStatement(in string) (string, Values) {
	q, rest, found := strings.Cut(in, "\x00")
	if !found {
		return q, Values{}
	}
	vals := Values{Positional: []Value{}}
	for len(rest) > 0 {
		n := int(rest[0])
		rest = rest[1:]
		if n == 0xFF {
			vals.Positional = append(vals.Positional, Value{})
			continue
		}
		n = min(n, len(rest))
		vals.Positional = append(vals.Positional, Value{Bytes: []byte(rest[:n])})
		rest = rest[n:]
	}
	return q, vals
}
