package difftest

import (
	"math/big"
	"testing"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

// TestSelectsAndPaging compares SELECT features and paging between cqlsim and a real Cassandra
// node: restrictions, ordering, limits, DISTINCT, token ranges, filtering, aggregates, GROUP
// BY and JSON, and with Step.Pages the rows and the paging state of every page.
func TestSelectsAndPaging(t *testing.T) {
	hosts := referenceHosts(t)
	for _, g := range []struct {
		name  string
		steps func() []Step
	}{
		{"select", selectSteps},
		{"selectRule", selectRuleSteps},
		{"paging", pagingSteps},
		{"pageEnd", pageEndSteps},
	} {
		t.Run(g.name, func(t *testing.T) { runCompared(t, hosts, append(selectData(), g.steps()...)) })
	}
}

// selectData creates and fills the tables the steps of TestSelectsAndPaging read: s (a static
// column, clustering in mixed order, numbers of every kind) with partitions 0-4 and a partition
// 7 holding only its static column, and p (a composite partition key).
func selectData() []Step {
	steps := []Step{
		{Query: "CREATE TABLE {ks}.s (k int, c int, d text, s int static, v int, w text, de decimal, vi varint, f float, do double, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)"},
		{Query: "CREATE TABLE {ks}.p (a int, b int, c int, v int, PRIMARY KEY ((a, b), c))"},
	}
	for k := 0; k < 5; k++ {
		for c := 0; c < 4; c++ {
			for _, d := range []string{"x", "y"} {
				steps = append(steps, Step{Query: "INSERT INTO {ks}.s (k, c, d, v, w, de, vi, f, do) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
					Args: []any{k, c, d, k*10 + c, d + "w", inf.NewDec(int64(k*100+c), 2), big.NewInt(int64(k - c)), float32(c) / 3, float64(k) / 7}})
			}
		}
		steps = append(steps, Step{Query: "UPDATE {ks}.s SET s = ? WHERE k = ?", Args: []any{k * 100, k}})
	}
	steps = append(steps, Step{Query: "INSERT INTO {ks}.s (k, s) VALUES (7, 700)"})
	for a := 0; a < 3; a++ {
		for b := 0; b < 2; b++ {
			for c := 0; c < 3; c++ {
				steps = append(steps, Step{Query: "INSERT INTO {ks}.p (a, b, c, v) VALUES (?, ?, ?, ?)", Args: []any{a, b, c, a + b + c}})
			}
		}
	}
	return steps
}

// selectSteps returns steps on IN on partition and clustering keys, ORDER BY, LIMIT and PER
// PARTITION LIMIT, DISTINCT, token() ranges, filtering, aggregates and GROUP BY, JSON, static-only
// partitions.
func selectSteps() []Step {
	return []Step{
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (3, 1, 3)"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (3, 1) AND c IN (2, 0) AND d = 'x'"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (3, 1) AND c IN (2, 0) ORDER BY c ASC", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c IN (2, 0) ORDER BY c ASC, d DESC"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c IN (2, 0) ORDER BY c DESC LIMIT 3"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 ORDER BY c ASC"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 ORDER BY d ASC", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 ORDER BY c DESC, d DESC", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s ORDER BY c DESC", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) ORDER BY c DESC", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) ORDER BY c DESC LIMIT 3", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) PER PARTITION LIMIT 2"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN ? AND c = ?", Args: []any{[]int{2, 1}, 3}},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN ()"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c IN ()"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT ?", Args: []any{2}},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT ?", Args: []any{0}, WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT ?", Args: []any{nil}, WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT ?", Args: []any{gocql.UnsetValue}},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT -1", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.s PER PARTITION LIMIT ? LIMIT ?", Args: []any{1, 3}},
		{Query: "SELECT k, c, d FROM {ks}.s PER PARTITION LIMIT 0", WantErr: true},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE a = 1 AND b IN (0, 1)"},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE a IN (2, 1) AND b IN (1, 0) AND c > 0"},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE a = 1", WantErr: true},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE a = 1 ALLOW FILTERING"},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE b = 1 ALLOW FILTERING"},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE a = 1 AND b = 1 AND c IN (2, 0) ORDER BY c DESC"},
		{Query: "SELECT DISTINCT a, b FROM {ks}.p"},
		{Query: "SELECT DISTINCT a FROM {ks}.p", WantErr: true},
		{Query: "SELECT DISTINCT a, b FROM {ks}.p WHERE a = 1 AND b = 1"},
		{Query: "SELECT DISTINCT a, b FROM {ks}.p WHERE a = 1 ALLOW FILTERING"},
		{Query: "SELECT DISTINCT a, b FROM {ks}.p LIMIT 2"},
		{Query: "SELECT DISTINCT k, s FROM {ks}.s"},
		{Query: "SELECT DISTINCT k, s FROM {ks}.s WHERE k IN (7, 1, 9)"},
		{Query: "SELECT a, b, token(a, b) FROM {ks}.p WHERE token(a, b) > token(1, 1)"},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > ? AND token(a, b) <= ?", Args: []any{int64(-3000000000000000000), int64(3000000000000000000)}},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a) > 0", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(b, a) > 0", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) = token(1, 1)"},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) IN (0)", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND token(a, b) > 5", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND a = 1", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND a = 1 AND b = 1"},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 'x'", WantErr: true},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE token(a, b) > 0 AND c = 1 ALLOW FILTERING"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE token(k) > token(2) AND token(k) < token(2)"},
		{Query: "SELECT k FROM {ks}.s WHERE token(k) >= -9223372036854775808 PER PARTITION LIMIT 1"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE v > 20 AND w = 'xw' ALLOW FILTERING"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE s = 100 ALLOW FILTERING"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE s > 100 AND c = 1 ALLOW FILTERING"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE k = 1 AND v IN (10, 12) ALLOW FILTERING"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE v != 10 ALLOW FILTERING", WantErr: true},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE v = null ALLOW FILTERING", WantErr: true},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE w > 'x' AND w < 'y' ALLOW FILTERING"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE d = 'x' AND c = 1 ALLOW FILTERING"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE c > 1 ALLOW FILTERING"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE c > 1", WantErr: true},
		{Query: "SELECT count(*), count(v), count(s), count(1), sum(v), avg(v), min(w), max(w), min(c), max(d) FROM {ks}.s"},
		{Query: "SELECT count(*), sum(v), avg(v), min(v), max(v) FROM {ks}.s WHERE k = 99"},
		{Query: "SELECT sum(de), avg(de), sum(vi), avg(vi), sum(f), avg(f), sum(do), avg(do), min(de), max(vi) FROM {ks}.s"},
		{Query: "SELECT k, sum(de), avg(vi) FROM {ks}.s GROUP BY k"},
		{Query: "SELECT avg(c), sum(c) FROM {ks}.s WHERE k = 1"},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k = 1 GROUP BY c ORDER BY c ASC"},
		{Query: "SELECT k, c, count(*), s FROM {ks}.s GROUP BY k, c"},
		{Query: "SELECT k, s, count(*) FROM {ks}.s GROUP BY k"},
		{Query: "SELECT k, count(*) FROM {ks}.s GROUP BY k PER PARTITION LIMIT 1"},
		{Query: "SELECT k, c, count(*) FROM {ks}.s GROUP BY k, c PER PARTITION LIMIT 2"},
		{Query: "SELECT k, c, count(*) FROM {ks}.s GROUP BY k, c LIMIT 3"},
		{Query: "SELECT k, count(*) FROM {ks}.s WHERE v > 10 GROUP BY k ALLOW FILTERING"},
		{Query: "SELECT a, b, count(*) FROM {ks}.p GROUP BY a, b"},
		{Query: "SELECT a, b, c, count(*) FROM {ks}.p WHERE a = 1 AND b = 1 GROUP BY c"},
		{Query: "SELECT k, c, d, count(*) FROM {ks}.s GROUP BY k, c, d LIMIT 4"},
		{Query: "SELECT k, count(*) FROM {ks}.s GROUP BY k, d", WantErr: true},
		{Query: "SELECT k, v, count(*) FROM {ks}.s GROUP BY k"},
		{Query: "SELECT k, max(v) AS m, min(v) AS \"Min\" FROM {ks}.s WHERE k IN (1, 2) GROUP BY k"},
		{Query: "SELECT count(*) FROM {ks}.s WHERE k = 1 GROUP BY k"},
		{Query: "SELECT DISTINCT k FROM {ks}.s GROUP BY k"},
		{Query: "SELECT k, count(*) FROM {ks}.s GROUP BY k ORDER BY k", WantErr: true},
		{Query: "SELECT max(k), count(DISTINCT k) FROM {ks}.s", WantErr: true},
		{Query: "SELECT JSON k, count(*) FROM {ks}.s GROUP BY k"},
		{Query: "SELECT JSON DISTINCT k, s FROM {ks}.s"},
		{Query: "SELECT JSON k, c, d, v AS \"V\", w FROM {ks}.s WHERE k = 1 LIMIT 2"},
		{Query: "SELECT JSON de, vi, f, do FROM {ks}.s WHERE k = 1 LIMIT 2"},
		{Query: "SELECT JSON * FROM {ks}.p WHERE a = 1 AND b = 1"},
		{Query: "SELECT DISTINCT JSON k FROM {ks}.s", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND c > 1 AND c < 3 ORDER BY c ASC"},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d) IN ((1, 'x'), (2, 'y'))"},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d) IN ((1, 'x'), (2, 'y')) ORDER BY c ASC"},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d) > (1, 'x') AND (c, d) < (3, 'x')"},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d) = (1, 'x')"},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (d, c) = ('x', 1)", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d) > (1, 'x') AND c < 3"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c = 1 AND d IN ('y', 'x')"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c = 1 AND d IN ('y', 'x') ORDER BY c ASC"},
		{Query: "SELECT * FROM {ks}.s WHERE k = 7"},
		{Query: "SELECT k, c, v FROM {ks}.s WHERE k = 7"},
		{Query: "SELECT k, s FROM {ks}.s WHERE k = 7"},
		{Query: "SELECT count(*) FROM {ks}.s WHERE k = 7"},
		{Query: "SELECT k, c, s FROM {ks}.s WHERE k = 7 AND c = 1"},
		{Query: "SELECT k, c, s FROM {ks}.s WHERE k = 7 AND c > 1"},
		{Query: "SELECT k, s FROM {ks}.s WHERE k = 7 AND s = 700 ALLOW FILTERING"},
		{Query: "SELECT k, s, v FROM {ks}.s WHERE s = 700 ALLOW FILTERING"},
		{Query: "SELECT k, s FROM {ks}.s PER PARTITION LIMIT 1"},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c = 1 AND d = 'x' AND v = 11", WantErr: true},
		{Query: "SELECT k AS \"K\", writetime(v) AS w, c AS c2 FROM {ks}.s WHERE k = 7"},
		{Query: "SELECT k, k, c FROM {ks}.s WHERE k = 1 LIMIT 1"},
		{Query: "SELECT k AS x, c AS x FROM {ks}.s WHERE k = 1 LIMIT 1"},
		{Query: "SELECT * FROM {ks}.s WHERE k = 1 AND c = 1 LIMIT 1"},
		{Query: "SELECT uuid(), now() FROM {ks}.s WHERE k = 99"},
		{Query: "SELECT currentTimestamp() FROM {ks}.s WHERE k = 99"},
	}
}

// selectRuleSteps returns steps on bind values of LIMIT, nulls in restrictions, token() and multi-
// column relations that conflict, sum and avg of every numeric type, GROUP BY with PER PARTITION
// LIMIT.
func selectRuleSteps() []Step {
	return []Step{
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 PER PARTITION LIMIT ?", Args: []any{nil}, WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 PER PARTITION LIMIT ?", Args: []any{0}, WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 PER PARTITION LIMIT ?", Args: []any{-1}, WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 LIMIT ?", Args: []any{-1}, WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 PER PARTITION LIMIT ?", Args: []any{gocql.UnsetValue}},
		{Query: "SELECT k FROM {ks}.s WHERE k = null", WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 AND c = null", WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 AND c > null"},
		{Query: "SELECT k FROM {ks}.s WHERE k = 1 AND c = 1 AND d = null", WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE v > null ALLOW FILTERING", WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE v IN (null) ALLOW FILTERING", WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE v IN (1, null) ALLOW FILTERING"},
		{Query: "SELECT k FROM {ks}.s WHERE v = ? ALLOW FILTERING", Args: []any{nil}, WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE s = null ALLOW FILTERING", WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE c = null ALLOW FILTERING", WantErr: true},
		{Query: "SELECT k FROM {ks}.s WHERE v != null ALLOW FILTERING", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) < 0 AND token(a, b) <= 5", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) = 0 AND token(a, b) > 5", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND token(a, b) = 5", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) = 0 AND token(a, b) = 5", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) >= 0 AND token(a, b) > 5", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND a = 1 ALLOW FILTERING"},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND a IN (1, 2) ALLOW FILTERING"},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND b = 1", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND a = 1 AND b IN (0, 1)"},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND c = 1", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE token(a, b) > 0 AND a > 1", WantErr: true},
		{Query: "SELECT a, b FROM {ks}.p WHERE a = 1 AND token(a, b) > 0", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d) > (1, 'x') AND (c, d) > (2, 'x')", CodeOnly: true, WantErr: true},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d) IN ((1, 'x')) AND (c, d) > (2, 'x')", CodeOnly: true, WantErr: true},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (d) = ('x')", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, d, k) = (1, 'x', 1)", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.s WHERE k = 1 AND (c, v) = (1, 1)", WantErr: true},
		{Query: "CREATE TABLE {ks}.dec (k int, c int, de decimal, vi varint, i int, bi bigint, si smallint, ti tinyint, PRIMARY KEY (k, c))"},
		{Query: "INSERT INTO {ks}.dec (k, c, de, vi, i, bi, si, ti) VALUES (1, 1, 1, 1, 2147483647, 9223372036854775807, 32767, 127)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de, vi, i, bi, si, ti) VALUES (1, 2, 2, 2, 2147483647, 9223372036854775807, 32767, 127)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de, vi, i, bi, si, ti) VALUES (1, 3, 2, -7, 1, 1, 1, 1)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de, vi, i, bi, si, ti) VALUES (2, 1, 1.5, 1, -3, -3, -3, -3)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de, vi, i, bi, si, ti) VALUES (2, 2, 2.25, 2, 2, 2, 2, 2)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de) VALUES (2, 3, 1E+2)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de) VALUES (3, 1, 0.001)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de) VALUES (3, 2, 0.002)"},
		{Query: "INSERT INTO {ks}.dec (k, c, de) VALUES (3, 3, 0.002)"},
		{Query: "SELECT k, sum(de), avg(de), sum(vi), avg(vi), sum(i), avg(i), sum(bi), avg(bi), sum(si), avg(si), sum(ti), avg(ti) FROM {ks}.dec GROUP BY k"},
		{Query: "SELECT sum(de), avg(de), sum(vi), avg(vi) FROM {ks}.dec WHERE k = 9"},
		{Query: "SELECT JSON sum(de), avg(de), avg(vi) FROM {ks}.dec"},
		{Query: "SELECT sum(k), avg(c), count(c), min(c), max(k) FROM {ks}.dec"},
		{Query: "SELECT sum(de) AS s, avg(vi) AS \"A\" FROM {ks}.dec"},
		{Query: "SELECT sum(d) FROM {ks}.s", CodeOnly: true, WantErr: true},
		{Query: "SELECT avg(w) FROM {ks}.s", CodeOnly: true, WantErr: true},
		{Query: "SELECT sum(s) FROM {ks}.s", CodeOnly: true},
		{Query: "SELECT k, count(*) FROM {ks}.s WHERE k IN (1, 2) GROUP BY k PER PARTITION LIMIT 1", PageSize: 1, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s GROUP BY k, c PER PARTITION LIMIT 2", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s GROUP BY k, c", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s GROUP BY k, c LIMIT 5", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k = 1 GROUP BY c LIMIT 2", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k = 1 GROUP BY c PER PARTITION LIMIT 3", PageSize: 2, Pages: true},
		{Query: "SELECT count(*) FROM {ks}.s PER PARTITION LIMIT 1", WantErr: true},
		{Query: "SELECT k, count(*) FROM {ks}.s GROUP BY k PER PARTITION LIMIT 0", WantErr: true},
		{Query: "SELECT DISTINCT k, count(*) FROM {ks}.s GROUP BY k"},
	}
}

// pagingSteps returns steps on paging with small page sizes over whole tables, partitions, IN
// lists, filters, DISTINCT, static rows, GROUP BY and deletions: rows and paging states per page.
func pagingSteps() []Step {
	return []Step{
		{Query: "SELECT k, c, d FROM {ks}.s", PageSize: 5, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s", PageSize: 8, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1", PageSize: 8, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 ORDER BY c ASC", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT 3", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT 4", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s LIMIT 10", PageSize: 5, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s LIMIT 10", PageSize: 4, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s PER PARTITION LIMIT 2", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s PER PARTITION LIMIT 2 LIMIT 5", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 3, 2)", PageSize: 5, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 3, 2)", PageSize: 8, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 3) AND c IN (1, 2)", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 3) AND c IN (1, 2) ORDER BY c ASC", PageSize: 3, Pages: true, WantErr: true},
		{Query: "SELECT k, c, d, v FROM {ks}.s WHERE v > 25 ALLOW FILTERING", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d, v FROM {ks}.s WHERE d = 'y' ALLOW FILTERING", PageSize: 4, Pages: true},
		{Query: "SELECT k, c, d, v FROM {ks}.s WHERE v = 999 ALLOW FILTERING", PageSize: 4, Pages: true},
		{Query: "SELECT k, c, d, v FROM {ks}.s WHERE k = 1 AND v > 11 ALLOW FILTERING", PageSize: 2, Pages: true},
		{Query: "SELECT DISTINCT k FROM {ks}.s", PageSize: 2, Pages: true},
		{Query: "SELECT DISTINCT k, s FROM {ks}.s", PageSize: 3, Pages: true},
		{Query: "SELECT DISTINCT a, b FROM {ks}.p", PageSize: 3, Pages: true},
		{Query: "SELECT k, s FROM {ks}.s", PageSize: 7, Pages: true},
		{Query: "SELECT * FROM {ks}.s WHERE k IN (7, 1)", PageSize: 4, Pages: true},
		{Query: "SELECT k, c, s FROM {ks}.s WHERE k IN (6, 7, 8)", PageSize: 1, Pages: true},
		{Query: "SELECT count(*) FROM {ks}.s", PageSize: 3, Pages: true},
		{Query: "SELECT count(*) FROM {ks}.s WHERE k = 1", PageSize: 3, Pages: true},
		{Query: "SELECT k, count(*) FROM {ks}.s GROUP BY k", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k = 1 GROUP BY c", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k IN (1, 2) GROUP BY k, c", PageSize: 3, Pages: true},
		{Query: "SELECT k, max(v) FROM {ks}.s GROUP BY k LIMIT 3", PageSize: 2, Pages: true},
		{Query: "SELECT a, b, token(a, b) FROM {ks}.p WHERE token(a, b) > 0", PageSize: 4, Pages: true},
		{Query: "SELECT JSON k, c, d FROM {ks}.s WHERE k = 2", PageSize: 3, Pages: true},
		{Query: "SELECT a, b, c FROM {ks}.p WHERE c = 1 ALLOW FILTERING", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 99", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c > 1", PageSize: 2, Pages: true},
		{Query: "DELETE FROM {ks}.s WHERE k = 2 AND c = 1"},
		{Query: "DELETE FROM {ks}.s WHERE k = 3"},
		{Query: "SELECT k, c, d FROM {ks}.s", PageSize: 6, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 2", PageSize: 2, Pages: true},
	}
}

// pageEndSteps returns steps (the last ones on a table of their own, with clustering in
// descending order) on where a page that ends a partition's rows carries a paging state:
// PER PARTITION LIMIT, DISTINCT and static rows on partition keys, LIMIT.
func pageEndSteps() []Step {
	return []Step{
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 PER PARTITION LIMIT 2", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 PER PARTITION LIMIT 2", PageSize: 1, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) PER PARTITION LIMIT 2", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) PER PARTITION LIMIT 2", PageSize: 4, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) PER PARTITION LIMIT 3", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s PER PARTITION LIMIT 1", PageSize: 6, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s PER PARTITION LIMIT 1", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s PER PARTITION LIMIT 2", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k = 1 GROUP BY c PER PARTITION LIMIT 2", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k = 1 GROUP BY c PER PARTITION LIMIT 2", PageSize: 1, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s WHERE k IN (1, 2) GROUP BY k, c PER PARTITION LIMIT 2", PageSize: 2, Pages: true},
		{Query: "SELECT k, count(*) FROM {ks}.s GROUP BY k PER PARTITION LIMIT 1", PageSize: 2, Pages: true},
		{Query: "SELECT k, count(*) FROM {ks}.s GROUP BY k PER PARTITION LIMIT 1", PageSize: 6, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.s GROUP BY k, c PER PARTITION LIMIT 1", PageSize: 3, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c = 1", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c = 1 AND d = 'x'", PageSize: 1, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c IN (1, 2)", PageSize: 4, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c IN (1, 2)", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 AND c = 1 AND d IN ('x', 'y')", PageSize: 2, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 1 LIMIT 8", PageSize: 8, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) LIMIT 16", PageSize: 8, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k IN (1, 2) LIMIT 20", PageSize: 8, Pages: true},
		{Query: "SELECT DISTINCT k FROM {ks}.s WHERE k IN (1, 2)", PageSize: 1, Pages: true},
		{Query: "SELECT DISTINCT k FROM {ks}.s WHERE k IN (1, 2)", PageSize: 2, Pages: true},
		{Query: "SELECT k, s FROM {ks}.s WHERE k = 7", PageSize: 1, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE k = 7", PageSize: 1, Pages: true},
		{Query: "SELECT k, c, d FROM {ks}.s WHERE token(k) > 0 AND token(k) < 9000000000000000000", PageSize: 3, Pages: true},
		{Query: "CREATE TABLE {ks}.t (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)"},
		{Query: "INSERT INTO {ks}.t (k, c, v) VALUES (1, 1, 1)"},
		{Query: "INSERT INTO {ks}.t (k, c, v) VALUES (1, 2, 2)"},
		{Query: "INSERT INTO {ks}.t (k, c, v) VALUES (1, 3, 3)"},
		{Query: "INSERT INTO {ks}.t (k, c, v) VALUES (2, 1, 1)"},
		{Query: "SELECT k, c FROM {ks}.t WHERE k = 1 AND c IN (3, 1, 2) ORDER BY c ASC", PageSize: 1, Pages: true},
		{Query: "SELECT k, c FROM {ks}.t WHERE k = 1 AND c IN (3, 1, 2)", PageSize: 2, Pages: true},
		{Query: "SELECT k, c FROM {ks}.t WHERE k = 1 AND c > 1 ORDER BY c ASC LIMIT 1", PageSize: 1, Pages: true},
		{Query: "SELECT k, c FROM {ks}.t WHERE k IN (2, 1) AND c IN (1, 3) LIMIT 3", PageSize: 2, Pages: true},
		{Query: "SELECT k, c FROM {ks}.t WHERE k IN (2, 1) PER PARTITION LIMIT 1 LIMIT 1", PageSize: 1, Pages: true},
		{Query: "SELECT k, max(c), min(v), count(v) FROM {ks}.t WHERE k IN (1, 2) GROUP BY k LIMIT 1", PageSize: 1, Pages: true},
		{Query: "SELECT k, c, count(*) FROM {ks}.t WHERE k = 1 GROUP BY k, c ORDER BY c ASC", PageSize: 2, Pages: true},
		{Query: "SELECT DISTINCT k FROM {ks}.t WHERE token(k) > 0", PageSize: 1, Pages: true},
		{Query: "SELECT k, c FROM {ks}.t WHERE v > 1 ALLOW FILTERING", PageSize: 1, Pages: true},
		{Query: "SELECT k, c FROM {ks}.t WHERE k = 1 AND v > 1 ALLOW FILTERING", PageSize: 1, Pages: true},
		{Query: "SELECT k, c FROM {ks}.t WHERE c = 1 ALLOW FILTERING", PageSize: 1, Pages: true},
	}
}
