package cql

import (
	"strings"
	"testing"
)

func TestParseStatements(t *testing.T) {
	ok := []string{
		"SELECT * FROM ks.t",
		"select a, b AS bee, count(*), writetime(c), ttl(c), token(k), x.f FROM t WHERE k = ? AND c >= :lo AND c < 5 ORDER BY c DESC PER PARTITION LIMIT 2 LIMIT 10 ALLOW FILTERING USING TIMEOUT 3000ms",
		"SELECT DISTINCT k FROM t WHERE token(k) > -9223372036854775808 AND token(k) <= token(?)",
		"SELECT * FROM t WHERE k IN ? AND (c, d) > (1, 'a')",
		"SELECT * FROM t WHERE k IN (1, 2, 3) AND m CONTAINS KEY 'x' AND s CONTAINS 1",
		"INSERT INTO t (k, v) VALUES (1, 'it''s') IF NOT EXISTS USING TTL 10 AND TIMESTAMP 123",
		"INSERT INTO t (a, b, c, d, e, f, g, h, i, j) VALUES (0xCAFE, 1.5e-3, -NaN, Infinity, true, null, 1h30m, P1DT2H, 550e8400-e29b-41d4-a716-446655440000, $$raw$$)",
		"INSERT INTO t (l, s, m, u, tu, e) VALUES ([1, 2], {'a', 'b'}, {'k': [1]}, {f: 1, \"G\": 'x'}, (1, 'a', [2]), {})",
		"UPDATE t USING TTL ? SET c = c + 1, l = l - [1], l = [0] + l, m['k'] = 'v', u.f = 3, s = s + {'x'}, c = c-1 WHERE k = 1 IF EXISTS",
		"UPDATE t SET v = 1 WHERE k = 1 IF v = 2 AND m['a'] IN (1, 2) AND w != null",
		"DELETE v, m['k'], u.f FROM t USING TIMESTAMP 5 WHERE k = 1 AND c > 3 IF v = 1",
		"BEGIN UNLOGGED BATCH USING TIMESTAMP 1 INSERT INTO t (k) VALUES (1); UPDATE t SET v = 2 WHERE k = 1; DELETE FROM t WHERE k = 2; APPLY BATCH;",
		"BEGIN COUNTER BATCH UPDATE c SET n = n + 1 WHERE k = 1 APPLY BATCH",
		"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = false",
		"CREATE TABLE IF NOT EXISTS ks.t (k int, c text, s int static, v frozen<map<text, list<int>>>, vec vector<float, 3>, tu tuple<int, text>, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'x' AND compaction = {'class': 'LeveledCompactionStrategy'}",
		"CREATE TABLE t (k int PRIMARY KEY, v text) WITH default_time_to_live = 10",
		"ALTER TABLE t ADD (a int, b text)",
		"ALTER TABLE t DROP a",
		"CREATE TYPE ks.addr (street text, zip int)",
		"ALTER TYPE addr ADD country text",
		"DROP TYPE IF EXISTS addr",
		"DROP TABLE IF EXISTS t",
		"DROP KEYSPACE ks",
		"TRUNCATE TABLE t",
		"USE \"MyKs\"",
		"-- a comment\nSELECT /* inline */ k FROM t // trailing",
	}
	for _, q := range ok {
		if _, err := Parse(q); err != nil {
			t.Errorf("Parse(%q): %v", q, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ q, want string }{
		{"SELECT * FORM t", "line 1:9 mismatched input 'FORM' expecting K_FROM (SELECT * [FORM]...)"},
		{"SELEC * FROM t", "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)"},
		// the expected messages below were checked against Cassandra 5.0 (see cqlsim/difftest)
		{"SELECT * FROM t WHERE", "line 0:-1 no viable alternative at input '<EOF>'"},
		{"INSERT INTO t (k) VALUES (1) extra", "line 1:29 no viable alternative at input 'extra' (...(k) VALUES (1) [extra])"},
		{"SELECT *\nFROM t\nWHERE k = 'x", "line 3:12 mismatched character '<EOF>' expecting '''"},
		{"SELECT * FROM t LIMIT 'x'", "line 1:22 no viable alternative at input 'x' (SELECT * FROM t LIMIT [']...)"},
		{"BEGIN BATCH SELECT * FROM t; APPLY BATCH", "line 1:12 mismatched input 'SELECT' expecting K_APPLY (BEGIN BATCH [SELECT]...)"},
		{"SELECT * FROM t WHERE k = #", "line 1:26 token recognition error at: '#'"},
		{"CREATE TABLE t (k int PRIMARY KEY, c int PRIMARY KEY)", "Multiple PRIMARY KEYs specified"},
		{"SELECT * FROM select", "no viable alternative at input 'select'"},
		{"UPDATE t SET v = 1, v = 2 WHERE k = 1", "Multiple incompatible setting of column v"},
		{"UPDATE t SET m['a'] = 1, m = {} WHERE k = 1", "Multiple incompatible setting of column m"},
		{"UPDATE t SET u.a = 1, u.a = 2 WHERE k = 1", "Multiple incompatible setting of column u"},
		{"CREATE TABLE t (k int PRIMARY KEY, v vector<float, 2147483648>)", "vector dimension must be an integer from 1 to 2147483647"},
	}
	for _, c := range cases {
		_, err := Parse(c.q)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error %q", c.q, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %q, want it to contain %q", c.q, err.Error(), c.want)
		}
	}
}

func TestParseShapes(t *testing.T) {
	p, err := Parse("SELECT a AS x, count(*) FROM ks.t WHERE k IN (?, :n) AND c > 1 ORDER BY c DESC LIMIT ?")
	if err != nil {
		t.Fatal(err)
	}
	if p.Markers != 3 {
		t.Errorf("markers = %d, want 3", p.Markers)
	}
	s := p.Stmt.(*Select)
	if s.Table != (QualifiedName{"ks", "t"}) || len(s.Selectors) != 2 || s.Selectors[0].Alias != "x" || s.Selectors[1].Kind != SelCountStar {
		t.Errorf("unexpected select: %+v", s)
	}
	if len(s.Where) != 2 || s.Where[0].Op != OpIn || len(s.Where[0].In) != 2 || s.Where[0].In[1].BindName != "n" || s.Where[0].In[1].BindIdx != 1 {
		t.Errorf("unexpected where: %+v", s.Where)
	}
	if len(s.OrderBy) != 1 || !s.OrderBy[0].Desc || s.Limit == nil || s.Limit.BindIdx != 2 {
		t.Errorf("unexpected order/limit: %+v %+v", s.OrderBy, s.Limit)
	}

	p, err = Parse("UPDATE t SET c = c - 1, l = [1] + l, m['a'] = 2 WHERE k = 1")
	if err != nil {
		t.Fatal(err)
	}
	u := p.Stmt.(*Update)
	kinds := []AssignKind{u.Set[0].Kind, u.Set[1].Kind, u.Set[2].Kind}
	if kinds[0] != AssignSub || kinds[1] != AssignPrepend || kinds[2] != AssignElem {
		t.Errorf("assignment kinds = %v", kinds)
	}

	p, err = Parse("CREATE TABLE t (a int, b int, c int, d int, PRIMARY KEY ((a, b), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)")
	if err != nil {
		t.Fatal(err)
	}
	ct := p.Stmt.(*CreateTable)
	if strings.Join(ct.PartitionKey, ",") != "a,b" || strings.Join(ct.Clustering, ",") != "c,d" || !ct.ClusteringOrder["c"] || ct.ClusteringOrder["d"] {
		t.Errorf("unexpected table: %+v", ct)
	}

	p, err = Parse(`INSERT INTO t (k, "Quoted") VALUES (-5, {a: 1})`)
	if err != nil {
		t.Fatal(err)
	}
	ins := p.Stmt.(*Insert)
	if ins.Columns[1] != "Quoted" || ins.Values[0].Text != "-5" || ins.Values[1].Kind != TermMap || ins.Values[1].Fields[0] != "a" {
		t.Errorf("unexpected insert: %+v %+v", ins.Columns, ins.Values)
	}
}

func TestUnsupportedStatements(t *testing.T) {
	for q, want := range map[string]string{
		"CREATE TRIGGER tr ON t USING 'x'":              "CREATE TRIGGER",
		"CREATE MATERIALIZED VIEW v AS SELECT * FROM t": "CREATE MATERIALIZED VIEW",
		"CREATE OR REPLACE FUNCTION f() ...":            "CREATE FUNCTION",
		"GRANT SELECT ON t TO r":                        "GRANT",
	} {
		p, err := Parse(q)
		if err != nil {
			t.Errorf("Parse(%q): %v", q, err)
			continue
		}
		if u, ok := p.Stmt.(*Unsupported); !ok || u.What != want {
			t.Errorf("Parse(%q) = %#v, want Unsupported{%q}", q, p.Stmt, want)
		}
	}
}

func TestNestingLimit(t *testing.T) {
	q := "INSERT INTO t (k) VALUES (" + strings.Repeat("[", 200) + strings.Repeat("]", 200) + ")"
	if _, err := Parse(q); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("deep nesting: err = %v", err)
	}
}

// A statement of a hundred thousand literals parses (each number used to make the duration
// check lower-case the whole rest of the statement: quadratic), and duration units are still
// matched in any case.
func TestLongStatementAndDurationCase(t *testing.T) {
	q := "SELECT * FROM t WHERE k IN (" + strings.Repeat("1, ", 99_999) + "1)"
	if _, err := Parse(q); err != nil {
		t.Fatalf("IN list of 100000 literals: %v", err)
	}
	for _, q := range []string{"INSERT INTO t (d) VALUES (1H30M)", "INSERT INTO t (d) VALUES (2Ms5uS)"} {
		if _, err := Parse(q); err != nil {
			t.Errorf("Parse(%q): %v", q, err)
		}
	}
}

// ORDER BY column ANN OF vector: Cassandra 5.0's vector search, with a literal, a cast or a bind
// marker, keywords in any case; a column named ann is still ordered by; ANN without OF fails
// in Cassandra's words (checked against Cassandra 5.0.9). CREATE INDEX takes WITH OPTIONS with
// or without USING (the engine refuses options on a non-custom index, as Cassandra does).
func TestParseANN(t *testing.T) {
	p, err := Parse("SELECT k FROM t WHERE k = ? ORDER BY v ANN OF [1.0, 2.5] LIMIT ?")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Stmt.(*Select)
	if len(s.OrderBy) != 1 || s.OrderBy[0].Column != "v" || s.OrderBy[0].ANN == nil || s.OrderBy[0].ANN.Kind != TermList ||
		len(s.OrderBy[0].ANN.Elems) != 2 || s.OrderBy[0].Desc || s.Limit == nil || s.Limit.BindIdx != 1 {
		t.Errorf("unexpected ANN ordering: %+v limit %+v", s.OrderBy, s.Limit)
	}
	p, err = Parse("select k from t order by \"V\" ann of :q desc limit 3")
	if err != nil {
		t.Fatal(err)
	}
	s = p.Stmt.(*Select)
	if ob := s.OrderBy[0]; ob.Column != "V" || ob.ANN == nil || ob.ANN.Kind != TermBind || ob.ANN.BindName != "q" || !ob.Desc || p.Markers != 1 {
		t.Errorf("unexpected ANN ordering with a named marker: %+v", s.OrderBy)
	}
	p, err = Parse("SELECT k FROM t ORDER BY v ANN OF (vector<float, 2>) [1.0, 0.0], ann ASC LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	s = p.Stmt.(*Select)
	if len(s.OrderBy) != 2 || s.OrderBy[0].ANN == nil || s.OrderBy[0].ANN.Kind != TermCast || s.OrderBy[1].Column != "ann" || s.OrderBy[1].ANN != nil {
		t.Errorf("unexpected orderings: %+v", s.OrderBy)
	}
	q := "SELECT k FROM a ORDER BY v ANN [1.0, 0.0] LIMIT 1"
	if _, err := Parse(q); err == nil || err.Error() != "line 1:31 mismatched input '[' expecting K_OF (...a ORDER BY v ANN [[]...)" {
		t.Errorf("Parse(%q) = %v", q, err)
	}
	p, err = Parse("CREATE INDEX ON t (v) WITH OPTIONS = {'similarity_function': 'cosine'}")
	if err != nil {
		t.Fatal(err)
	}
	if ci := p.Stmt.(*CreateIndex); ci.Using != "" || ci.Options["options"] == nil {
		t.Errorf("unexpected index: %+v", ci)
	}
}

// TestParseCompatibleAssignments checks the SET items of one column that Cassandra accepts
// together (anything but setting the whole column, a user type's field once).
func TestParseCompatibleAssignments(t *testing.T) {
	for _, q := range []string{
		"UPDATE t SET m['a'] = 1, m = m + {'b': 2}, m = m - {'c'} WHERE k = 1",
		"UPDATE t SET l = l + [1], l = [0] + l, l[0] = 5 WHERE k = 1",
		"UPDATE t SET u.a = 1, u.b = 2 WHERE k = 1",
		"UPDATE t SET n = n + 1, n = n - 2 WHERE k = 1",
	} {
		if _, err := Parse(q); err != nil {
			t.Errorf("Parse(%q): %v", q, err)
		}
	}
}
