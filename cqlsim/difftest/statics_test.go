package difftest

import "testing"

// TestStaticsIndexesAndDeletes compares static columns, range and cell deletions and secondary
// index queries between cqlsim and a real Cassandra node.
func TestStaticsIndexesAndDeletes(t *testing.T) {
	hosts := referenceHosts(t)
	for _, g := range []struct {
		name  string
		steps func() []Step
	}{
		{"staticDelete", staticDeleteSteps},
		{"index", indexSteps},
	} {
		t.Run(g.name, func(t *testing.T) { runCompared(t, hosts, g.steps()) })
	}
}

// staticDeleteSteps returns steps on static columns with deletions of rows, ranges and cells, and
// UPDATE and DELETE of static columns under clustering restrictions.
func staticDeleteSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.st (k int, c int, d int, s int static, s2 text static, v int, PRIMARY KEY (k, c, d))"},
		{Query: "INSERT INTO {ks}.st (k, c, d, s, v) VALUES (1, 1, 1, 10, 1)"},
		{Query: "INSERT INTO {ks}.st (k, c, d, v) VALUES (1, 1, 2, 2)"},
		{Query: "INSERT INTO {ks}.st (k, c, d, v) VALUES (1, 2, 1, 3)"},
		{Query: "INSERT INTO {ks}.st (k, c, d, v) VALUES (1, 3, 1, 4)"},
		{Query: "INSERT INTO {ks}.st (k, s) VALUES (2, 20)"},
		{Query: "DELETE FROM {ks}.st WHERE k = 1 AND c = 1 AND d > 1"},
		{Query: "DELETE FROM {ks}.st WHERE k = 1 AND c >= 2 AND c < 3"},
		{Query: "DELETE FROM {ks}.st WHERE k = 1 AND (c, d) > (3, 0)"},
		{Query: "SELECT * FROM {ks}.st WHERE k = 1"},
		{Query: "DELETE FROM {ks}.st WHERE k = 1 AND c > 0"},
		{Query: "SELECT * FROM {ks}.st WHERE k = 1"},
		{Query: "SELECT count(*), count(s), max(s) FROM {ks}.st WHERE k = 1"},
		{Query: "DELETE s FROM {ks}.st WHERE k = 1"},
		{Query: "SELECT * FROM {ks}.st"},
		{Query: "DELETE s FROM {ks}.st WHERE k = 2 AND c = 1", WantErr: true},
		{Query: "DELETE s, v FROM {ks}.st WHERE k = 2 AND c = 1", WantErr: true},
		{Query: "DELETE FROM {ks}.st WHERE k = 2 AND d = 1", WantErr: true},
		{Query: "DELETE FROM {ks}.st WHERE k = 2 AND c IN (1, 2) AND d > 0"},
		{Query: "DELETE FROM {ks}.st WHERE k = 2 AND c > 1 AND c < 1"},
		{Query: "DELETE FROM {ks}.st WHERE k = 2 AND c = 1 AND d IN (1, 2)"},
		{Query: "DELETE FROM {ks}.st WHERE k IN (1, 2) AND c = 1 AND d = 1"},
		{Query: "DELETE FROM {ks}.st WHERE k = 2 AND (c, d) IN ((1, 1), (2, 2))"},
		{Query: "DELETE s FROM {ks}.st WHERE k IN (1, 2)"},
		{Query: "UPDATE {ks}.st SET s = 5 WHERE k IN (3, 4)"},
		{Query: "UPDATE {ks}.st SET s = 5 WHERE k = 3 AND c = 1", WantErr: true},
		{Query: "UPDATE {ks}.st SET s = 5, v = 5 WHERE k = 3 AND c = 1", WantErr: true},
		{Query: "SELECT * FROM {ks}.st"},
		{Query: "SELECT k, s, s2 FROM {ks}.st WHERE k IN (3, 4)"},
		{Query: "SELECT DISTINCT k, s FROM {ks}.st WHERE s > 1 ALLOW FILTERING"},
		{Query: "CREATE TABLE {ks}.st (k int, c int, d int, s int static, v int, PRIMARY KEY (k, c, d))", WantErr: true},
		{Query: "UPDATE {ks}.st SET s = 5 WHERE k = 3 AND c = 1 AND d = 1", WantErr: true},
		{Query: "DELETE s FROM {ks}.st WHERE k = 3 AND c = 1 AND d = 1", WantErr: true},
		{Query: "UPDATE {ks}.st SET s = 5 WHERE k = 3 AND c > 1", WantErr: true},
		{Query: "DELETE s FROM {ks}.st WHERE k = 3 AND c > 1", WantErr: true},
		{Query: "DELETE v FROM {ks}.st WHERE k = 3 AND c = 1", WantErr: true},
		{Query: "DELETE v FROM {ks}.st WHERE k = 3", WantErr: true},
		{Query: "UPDATE {ks}.st SET v = 5 WHERE k = 3 AND c = 1", WantErr: true},
		{Query: "UPDATE {ks}.st SET v = 5, s = 1 WHERE k = 3 AND c = 1", WantErr: true},
		{Query: "DELETE s FROM {ks}.st WHERE k = 3 AND d = 1", WantErr: true},
		{Query: "SELECT * FROM {ks}.st"},
	}
}

// indexSteps returns steps on secondary indexes on regular columns and collections (values, keys,
// entries), CONTAINS and CONTAINS KEY, paging over them, what they refuse.
func indexSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.ix (k int, c int, v int, t text, l list<int>, s set<text>, m map<text, int>, fm frozen<map<text, int>>, PRIMARY KEY (k, c))"},
		{Query: "CREATE INDEX ON {ks}.ix (v)"},
		{Query: "CREATE INDEX ON {ks}.ix (l)"},
		{Query: "CREATE INDEX ON {ks}.ix (s)"},
		{Query: "CREATE INDEX ON {ks}.ix (keys(m))"},
		{Query: "CREATE INDEX ON {ks}.ix (entries(m))"},
		{Query: "CREATE INDEX ON {ks}.ix (values(fm))", WantErr: true},
		{Query: "INSERT INTO {ks}.ix (k, c, v, t, l, s, m, fm) VALUES (1, 1, 1, 'a', [1, 2], {'x'}, {'p': 1}, {'q': 2})"},
		{Query: "INSERT INTO {ks}.ix (k, c, v, t, l, s, m, fm) VALUES (1, 2, 2, 'b', [2, 3], {'y'}, {'p': 2}, {'q': 3})"},
		{Query: "INSERT INTO {ks}.ix (k, c, v, t, l, s, m, fm) VALUES (2, 1, 1, 'c', [3], {'x', 'y'}, {'r': 1}, {'q': 2})"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE v = 1", AwaitIndexes: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE l CONTAINS 2"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE s CONTAINS 'y'"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE m CONTAINS KEY 'p'"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE m CONTAINS 1", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE m['p'] = 2"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE fm CONTAINS 2", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE fm CONTAINS KEY 'q'", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE l CONTAINS 2 AND s CONTAINS 'x'", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE l CONTAINS 2 AND s CONTAINS 'x' ALLOW FILTERING"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE k = 1 AND l CONTAINS 2"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE v = 1 AND t = 'a'", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE v = 1 AND t = 'a' ALLOW FILTERING"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE l CONTAINS KEY 1", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE t CONTAINS 'a' ALLOW FILTERING", WantErr: true},
		{Query: "SELECT k, c, v FROM {ks}.ix WHERE v = 1", PageSize: 1, Pages: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE s CONTAINS 'y'", PageSize: 1, Pages: true},
		{Query: "SELECT count(*) FROM {ks}.ix WHERE v = 1"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE v IN (1, 2)", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE v > 1", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE v = 1 ORDER BY c DESC", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE k = 1 AND v = 1 ORDER BY c DESC", WantErr: true},
		{Query: "SELECT k, c, v FROM {ks}.ix WHERE v = 1 LIMIT 1"},
		{Query: "SELECT k, c, v FROM {ks}.ix WHERE v = 1 PER PARTITION LIMIT 1"},
		{Query: "SELECT DISTINCT k FROM {ks}.ix WHERE v = 1", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ix WHERE v = 1 GROUP BY k"},
		{Query: "SELECT JSON k, c, l, s, m, fm FROM {ks}.ix WHERE k = 1"},
		{Query: "SELECT k, c, t AS \"T\", v AS x FROM {ks}.ix WHERE k = 1 AND c = 1"},
		{Query: "SELECT k, c FROM {ks}.ix WHERE k = 1 ORDER BY c DESC", PageSize: 1, Pages: true},
		{Query: "CREATE TABLE {ks}.fz (k int PRIMARY KEY, fl frozen<list<int>>, fs frozen<set<int>>, fm frozen<map<int, int>>, v int)"},
		{Query: "CREATE INDEX ON {ks}.fz (keys(fm))", WantErr: true},
		{Query: "CREATE INDEX ON {ks}.fz (entries(fm))", WantErr: true},
		{Query: "CREATE INDEX ON {ks}.fz (values(fl))", WantErr: true},
		{Query: "CREATE INDEX ON {ks}.fz (keys(fl))", WantErr: true},
		{Query: "CREATE INDEX ON {ks}.fz (keys(v))", WantErr: true},
		{Query: "CREATE INDEX ON {ks}.fz (values(v))", WantErr: true},
		{Query: "CREATE INDEX ON {ks}.fz (fs)", WantErr: true},
		{Query: "SELECT k FROM {ks}.fz WHERE fs = {1}", AwaitIndexes: true, WantErr: true},
		{Query: "SELECT k FROM {ks}.fz WHERE fs CONTAINS 1", WantErr: true},
	}
}
