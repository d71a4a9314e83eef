package difftest

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// runCompared runs steps in a fresh keyspace on the reference node and on a fresh cqlsim node
// and requires identical outcomes, and failures exactly where steps want them on Cassandra.
func runCompared(t *testing.T, hosts []string, steps []Step) {
	t.Helper()
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	steps = append([]Step{
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TYPE {ks}.u (a int, b text)"},
	}, steps...)
	want := Run(session(t, hosts[0]), ks, steps)
	sim := cqlsim.StartT(t, cqlsim.Options{})
	got := Run(session(t, sim.Addrs()[0]), ks, steps)
	for i := range steps {
		if (want[i].Error != "") != steps[i].WantErr {
			t.Errorf("step %d on Cassandra: %+v", i, want[i])
		}
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("step %d (%s): Cassandra (-) vs cqlsim (+):\n%s", i, want[i].Query, d)
		}
	}
}

// TestConditionsAndBatches compares lightweight transactions and batches between cqlsim and a
// real Cassandra node: conditions of every kind and the rows a condition that fails answers,
// conditional batches, counter batches, and the errors for what Cassandra refuses.
func TestConditionsAndBatches(t *testing.T) {
	hosts := referenceHosts(t)
	for _, g := range []struct {
		name  string
		steps func() []Step
	}{
		{"condition", conditionSteps},
		{"containsCondition", containsConditionSteps},
		{"batch", batchSteps},
		{"batchRule", batchRuleSteps},
		{"casKey", casKeySteps},
		{"conditionSyntax", conditionSyntaxSteps},
		{"staticCondition", staticConditionSteps},
	} {
		t.Run(g.name, func(t *testing.T) { runCompared(t, hosts, g.steps()) })
	}
}

// conditionSteps returns steps on IF conditions on regular, static, collection and user type
// columns: results, [applied] rows and errors.
func conditionSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.l (k int, c int, s int static, v int, w text, m map<text, int>, st set<int>, li list<int>, u u, fu frozen<u>, PRIMARY KEY (k, c))"},
		{Query: "INSERT INTO {ks}.l (k, c, s, v, w) VALUES (1, 1, 10, 100, 'a') IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.l (k, c, s, v, w) VALUES (1, 1, 11, 101, 'b') IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.l (k, c, v) VALUES (1, 2, 200) IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.l (k, c, v) VALUES (1, 2, 201) IF NOT EXISTS USING TTL 100"},
		{Query: "INSERT INTO {ks}.l (k, c, v) VALUES (1, 3, 1) IF NOT EXISTS USING TIMESTAMP 5", WantErr: true},
		{Query: "UPDATE {ks}.l USING TIMESTAMP 5 SET v = 1 WHERE k = 1 AND c = 1 IF v = 100", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c = 1 IF NOT EXISTS", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS AND v = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k IN (1, 2) AND c = 1 IF v = 100", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c IN (1, 2) IF v = 100", WantErr: true},
		{Query: "DELETE FROM {ks}.l WHERE k = 1 AND c > 1 IF v = 100", WantErr: true},
		{Query: "DELETE FROM {ks}.l WHERE k = 1 IF EXISTS", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 2 WHERE k = 1 AND c = 1 IF w = 'x' AND v = 100"},
		{Query: "UPDATE {ks}.l SET v = 2 WHERE k = 1 AND c = 1 IF v = 100 AND w = 'x'"},
		{Query: "UPDATE {ks}.l SET v = 2 WHERE k = 1 AND c = 1 IF s = 1 AND v = 100 AND w = 'x'"},
		{Query: "UPDATE {ks}.l SET v = 2 WHERE k = 1 AND c = 1 IF v = 100 AND v = 101"},
		{Query: "UPDATE {ks}.l SET v = 2 WHERE k = 1 AND c = 1 IF v > 99 AND v < 101 AND w != 'b'"},
		{Query: "UPDATE {ks}.l SET v = 3 WHERE k = 1 AND c = 1 IF v >= 3 AND v <= 1"},
		{Query: "UPDATE {ks}.l SET v = 3 WHERE k = 1 AND c = 1 IF v != null"},
		{Query: "UPDATE {ks}.l SET v = 4 WHERE k = 1 AND c = 1 IF m = null AND w IN ('a', null)"},
		{Query: "UPDATE {ks}.l SET v = 4 WHERE k = 1 AND c = 1 IF v > null", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 4 WHERE k = 1 AND c = 1 IF k = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 4 WHERE k = 1 AND c = 1 IF c = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 4 WHERE k = 1 AND c = 1 IF nope = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 4 WHERE k = 1 AND c = 1 IF v = 'x'", WantErr: true},
		{Query: "UPDATE {ks}.l SET m = {'a': 1, 'b': 2}, st = {1, 2}, li = [1, 2], u = {a: 1, b: 'x'}, fu = {a: 2} WHERE k = 1 AND c = 1 IF EXISTS"},
		{Query: "UPDATE {ks}.l SET v = 5 WHERE k = 1 AND c = 1 IF m['a'] > 0 AND m['z'] = null"},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF m['a'] IN (2, 3)"},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF li[1] = 2 AND li[5] = null"},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF li[5] = 3"},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF st[1] = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 7 WHERE k = 1 AND c = 1 IF st = {2, 1} AND li = [1, 2] AND m = {'b': 2, 'a': 1}"},
		{Query: "UPDATE {ks}.l SET v = 7 WHERE k = 1 AND c = 1 IF st > {1}"},
		{Query: "UPDATE {ks}.l SET v = 8 WHERE k = 1 AND c = 1 IF st CONTAINS 1"},
		{Query: "UPDATE {ks}.l SET v = 8 WHERE k = 1 AND c = 1 IF m CONTAINS KEY 'a'"},
		{Query: "UPDATE {ks}.l SET v = 8 WHERE k = 1 AND c = 1 IF li CONTAINS 5"},
		{Query: "UPDATE {ks}.l SET v = 8 WHERE k = 1 AND c = 1 IF v CONTAINS 5", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 9 WHERE k = 1 AND c = 1 IF u.a = 1 AND u.b > 'w' AND fu.a = 2"},
		{Query: "UPDATE {ks}.l SET v = 9 WHERE k = 1 AND c = 1 IF u.a IN (5, 6) AND fu = {a: 2}"},
		{Query: "UPDATE {ks}.l SET v = 9 WHERE k = 1 AND c = 1 IF u = {a: 1, b: 'x'}"},
		{Query: "UPDATE {ks}.l SET v = 9 WHERE k = 1 AND c = 1 IF u.z = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 10 WHERE k = 1 AND c = 1 IF v = ? AND w = ?", Args: []any{9, "a"}},
		{Query: "UPDATE {ks}.l SET v = 10 WHERE k = 1 AND c = 1 IF v = ? AND w = ?", Args: []any{nil, "a"}},
		{Query: "UPDATE {ks}.l SET v = 10 WHERE k = 1 AND c = 1 IF v IN ?", Args: []any{[]int{1, 9}}},
		{Query: "UPDATE {ks}.l SET v = 11 WHERE k = 1 AND c = 1 IF m[?] = ?", Args: []any{"a", 1}},
		{Query: "UPDATE {ks}.l SET v = 11 WHERE k = 1 AND c = 1 IF m[?] = ?", Args: []any{nil, 1}, WantErr: true},
		{Query: "SELECT * FROM {ks}.l"},
		{Query: "DELETE w FROM {ks}.l WHERE k = 1 AND c = 1 IF EXISTS"},
		{Query: "DELETE w FROM {ks}.l WHERE k = 1 AND c = 5 IF EXISTS"},
		{Query: "DELETE FROM {ks}.l WHERE k = 1 AND c = 5 IF v = 1"},
		{Query: "DELETE m['a'], li[0] FROM {ks}.l WHERE k = 1 AND c = 1 IF m['a'] = 1"},
		{Query: "DELETE s FROM {ks}.l WHERE k = 1 IF s = 10"},
		{Query: "SELECT * FROM {ks}.l"},
		{Query: "INSERT INTO {ks}.l (k, c, v) VALUES (2, 1, 1) IF NOT EXISTS USING TTL 1000"},
		{Query: "INSERT INTO {ks}.l (k, c, v) VALUES (2, 1, 1) IF NOT EXISTS"},
		{Query: "DELETE FROM {ks}.l WHERE k = 2 AND c = 1 IF EXISTS"},
		{Query: "DELETE FROM {ks}.l WHERE k = 2 AND c = 1 IF EXISTS"},
		{Query: "INSERT INTO {ks}.l (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{3, 1, 5}},
		{Query: "INSERT INTO {ks}.l (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{3, 1, 6}},
		{Query: "INSERT INTO {ks}.l JSON '{\"k\": 4, \"c\": 1, \"v\": 5}' IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.l JSON '{\"k\": 4, \"c\": 1, \"v\": 6}' IF NOT EXISTS"},
		{Query: "CREATE TABLE {ks}.lk (k int PRIMARY KEY, v int, c counter)", WantErr: true},
		{Query: "CREATE TABLE {ks}.lc (k int PRIMARY KEY, c counter)"},
		{Query: "UPDATE {ks}.lc SET c = c + 1 WHERE k = 1 IF EXISTS", WantErr: true},
		{Query: "CREATE TABLE {ks}.l1 (k int PRIMARY KEY, v int, w int)"},
		{Query: "UPDATE {ks}.l1 SET v = 1 WHERE k = 1 IF EXISTS"},
		{Query: "UPDATE {ks}.l1 SET v = 1 WHERE k = 1 IF v = null"},
		{Query: "UPDATE {ks}.l1 SET w = 1 WHERE k = 1 IF v = null"},
		{Query: "UPDATE {ks}.l1 SET w = 2 WHERE k = 1 IF v = 1 AND w = 1"},
		{Query: "UPDATE {ks}.l1 SET w = 3 WHERE k = 1 IF w = 1 AND v = 2"},
		{Query: "UPDATE {ks}.l1 SET v = null, w = null WHERE k = 1 IF EXISTS"},
		{Query: "UPDATE {ks}.l1 SET v = 1 WHERE k = 1 IF EXISTS"},
		{Query: "SELECT * FROM {ks}.l1"},
		{Query: "INSERT INTO {ks}.l1 (k) VALUES (2) IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.l1 (k) VALUES (2) IF NOT EXISTS"},
		{Query: "SELECT * FROM {ks}.l1 WHERE k = 2"},
		{Query: "SELECT * FROM {ks}.l1 WHERE k = 1", Consistency: gocql.Consistency(gocql.Serial)},
		{Query: "SELECT * FROM {ks}.l1 WHERE k = 1", Consistency: gocql.Consistency(gocql.LocalSerial)},
		{Query: "SELECT * FROM {ks}.l1 WHERE k IN (1, 2)", Consistency: gocql.Consistency(gocql.Serial)},
		{Query: "SELECT * FROM {ks}.l1", Consistency: gocql.Consistency(gocql.Serial)},
		{Query: "INSERT INTO {ks}.l1 (k, v) VALUES (5, 5)", Consistency: gocql.Consistency(gocql.Serial), WantErr: true},
		{Query: "UPDATE {ks}.l1 SET v = 1 WHERE k = 5 IF EXISTS", Consistency: gocql.Consistency(gocql.Serial), WantErr: true},
	}
}

// containsConditionSteps returns steps on IF col CONTAINS v and IF col CONTAINS KEY k (Cassandra
// 5.0), element access in conditions.
func containsConditionSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.cc (k int, c int, s set<int> static, l list<text>, m map<text, int>, fs frozen<set<int>>, fl frozen<list<int>>, fm frozen<map<int, text>>, v int, u u, PRIMARY KEY (k, c))"},
		{Query: "INSERT INTO {ks}.cc (k, c, s, l, m, fs, fl, fm, v) VALUES (1, 1, {1, 2}, ['a', 'b'], {'x': 1, 'y': 2}, {3}, [4, 5], {6: 'six'}, 0)"},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF l CONTAINS 'a'"},
		{Query: "UPDATE {ks}.cc SET v = 2 WHERE k = 1 AND c = 1 IF l CONTAINS 'z'"},
		{Query: "UPDATE {ks}.cc SET v = 2 WHERE k = 1 AND c = 1 IF m CONTAINS 2 AND m CONTAINS KEY 'x'"},
		{Query: "UPDATE {ks}.cc SET v = 3 WHERE k = 1 AND c = 1 IF m CONTAINS 'x'", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 3 WHERE k = 1 AND c = 1 IF m CONTAINS KEY 2", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 3 WHERE k = 1 AND c = 1 IF l CONTAINS KEY 'a'", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 3 WHERE k = 1 AND c = 1 IF s CONTAINS KEY 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 3 WHERE k = 1 AND c = 1 IF s CONTAINS 2"},
		{Query: "UPDATE {ks}.cc SET v = 4 WHERE k = 1 AND c = 1 IF fs CONTAINS 3 AND fl CONTAINS 5 AND fm CONTAINS KEY 6 AND fm CONTAINS 'six'"},
		{Query: "UPDATE {ks}.cc SET v = 5 WHERE k = 1 AND c = 1 IF fs CONTAINS 9"},
		{Query: "UPDATE {ks}.cc SET v = 5 WHERE k = 1 AND c = 1 IF l CONTAINS null", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 5 WHERE k = 1 AND c = 1 IF m CONTAINS KEY null", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 5 WHERE k = 1 AND c = 1 IF l CONTAINS ?", Args: []any{nil}, WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 5 WHERE k = 1 AND c = 1 IF l CONTAINS ?", Args: []any{"b"}},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 1 AND c = 1 IF m CONTAINS KEY ?", Args: []any{"q"}},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 1 AND c = 1 IF u CONTAINS 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 1 AND c = 1 IF u.a CONTAINS 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 1 AND c = 1 IF m['x'] CONTAINS 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 1 AND c = 1 IF l CONTAINS 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 2 AND c = 1 IF l CONTAINS 'a'"},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 1 AND c = 1 IF v = 5 AND l CONTAINS 'q'"},
		{Query: "UPDATE {ks}.cc SET s = {7} WHERE k = 1 IF s CONTAINS 1"},
		{Query: "UPDATE {ks}.cc SET s = {8} WHERE k = 1 IF s CONTAINS 1"},
		{Query: "DELETE FROM {ks}.cc WHERE k = 1 AND c = 1 IF m CONTAINS 9"},
		{Query: "INSERT INTO {ks}.cc (k, c, v) VALUES (3, 1, 1)"},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 3 AND c = 1 IF l CONTAINS 'a'"},
		{Query: "UPDATE {ks}.cc SET v = 6 WHERE k = 3 AND c = 1 IF m CONTAINS KEY 'a'"},
		{Query: "SELECT * FROM {ks}.cc"},
		{Query: "BEGIN BATCH UPDATE {ks}.cc SET v = 7 WHERE k = 1 AND c = 1 IF l CONTAINS 'a'; UPDATE {ks}.cc SET v = 7 WHERE k = 1 AND c = 2 IF m CONTAINS 1; APPLY BATCH"},
		{Query: "UPDATE {ks}.cc SET st = {1} WHERE k = 1 AND c = 1 IF st CONTAINS 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF s[1] = 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF fs[1] = 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF fl[1] = 5"},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF fm[6] = 'six'"},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF v[0] = 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF u[0] = 1", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF l[?] = 'a'", Args: []any{nil}, WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF l[-1] = 'a'", WantErr: true},
		{Query: "UPDATE {ks}.cc SET v = 1 WHERE k = 1 AND c = 1 IF m[null] = 1", WantErr: true},
	}
}

// batchSteps returns steps on logged, unlogged and counter batches: reconciliation of writes to
// one cell, conditional batches over one partition.
func batchSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.b (k int, c int, s int static, v int, w text, PRIMARY KEY (k, c))"},
		{Query: "CREATE TABLE {ks}.b2 (k int PRIMARY KEY, v int)"},
		{Query: "CREATE TABLE {ks}.bc (k int PRIMARY KEY, c counter)"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET w = 'a' WHERE k = 1 AND c = 1; UPDATE {ks}.b SET w = 'b' WHERE k = 1 AND c = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET w = 'd' WHERE k = 2 AND c = 1; UPDATE {ks}.b SET w = 'c' WHERE k = 2 AND c = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (3, 1, 1); DELETE FROM {ks}.b WHERE k = 3 AND c = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH DELETE FROM {ks}.b WHERE k = 4; INSERT INTO {ks}.b (k, c, v) VALUES (4, 1, 1); APPLY BATCH"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (5, 1, 1) USING TIMESTAMP 10; INSERT INTO {ks}.b (k, c, v) VALUES (5, 1, 2) USING TIMESTAMP 5; APPLY BATCH"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL 1000; INSERT INTO {ks}.b2 (k, v) VALUES (6, 6); APPLY BATCH"},
		{Query: "BEGIN UNLOGGED BATCH INSERT INTO {ks}.b (k, c, v) VALUES (7, 1, 1); INSERT INTO {ks}.b2 (k, v) VALUES (7, 7); APPLY BATCH"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (8, 1, 1); UPDATE {ks}.bc SET c = c + 1 WHERE k = 8; APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH INSERT INTO {ks}.b (k, c, v) VALUES (8, 1, 1); UPDATE {ks}.bc SET c = c + 1 WHERE k = 8; APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH UPDATE {ks}.bc SET c = c + 1 WHERE k = 8; APPLY BATCH"},
		{Query: "BEGIN COUNTER BATCH UPDATE {ks}.bc SET c = c + 1 WHERE k = 8; UPDATE {ks}.bc SET c = c + 2 WHERE k = 8; UPDATE {ks}.bc SET c = c - 1 WHERE k = 9; APPLY BATCH"},
		{Query: "BEGIN COUNTER BATCH USING TIMESTAMP 5 UPDATE {ks}.bc SET c = c + 1 WHERE k = 8; APPLY BATCH", WantErr: true},
		{Query: "BEGIN COUNTER BATCH UPDATE {ks}.bc SET c = c + 1 WHERE k = 8 IF c = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN COUNTER BATCH DELETE FROM {ks}.bc WHERE k = 9; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.bc"},
		{Query: "BEGIN BATCH APPLY BATCH"},
		{Query: "BEGIN BATCH USING TTL 5 INSERT INTO {ks}.b2 (k, v) VALUES (1, 1); APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b2 (k, v) VALUES (10, 1) IF NOT EXISTS; UPDATE {ks}.b2 SET v = 2 WHERE k = 10 IF EXISTS; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b2 (k, v) VALUES (10, 1) IF NOT EXISTS; UPDATE {ks}.b2 SET v = 2 WHERE k = 10 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b2 (k, v) VALUES (10, 1) IF NOT EXISTS; UPDATE {ks}.b2 SET v = 2 WHERE k = 10; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.b2 WHERE k = 10"},
		{Query: "BEGIN BATCH UPDATE {ks}.b2 SET v = 3 WHERE k = 10 IF v = 2; UPDATE {ks}.b2 SET v = 4 WHERE k = 10 IF v = 2; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b2 SET v = 3 WHERE k = 10 IF v = 4; UPDATE {ks}.b2 SET v = 5 WHERE k = 10 IF v = 4; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.b2 WHERE k = 10"},
		{Query: "BEGIN BATCH USING TIMESTAMP 5 UPDATE {ks}.b2 SET v = 3 WHERE k = 10 IF v = 4; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b2 USING TIMESTAMP 5 SET v = 3 WHERE k = 10 IF v = 4; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b2 SET v = 3 WHERE k = 10 IF v = 4; INSERT INTO {ks}.b (k, c) VALUES (10, 1); APPLY BATCH", WantErr: true},
		// conditional batch over one partition: rows for each condition's row
		{Query: "INSERT INTO {ks}.b (k, c, s, v, w) VALUES (20, 1, 7, 1, 'x')"},
		{Query: "INSERT INTO {ks}.b (k, c, v, w) VALUES (20, 2, 2, 'y')"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 10 WHERE k = 20 AND c = 1 IF v = 5; UPDATE {ks}.b SET v = 20 WHERE k = 20 AND c = 2 IF w = 'z'; UPDATE {ks}.b SET s = 1 WHERE k = 20 IF s = 7; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 10 WHERE k = 20 AND c = 2 IF v = 5; UPDATE {ks}.b SET v = 20 WHERE k = 20 AND c = 1 IF w = 'z'; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 10 WHERE k = 20 AND c = 3 IF v = 5; INSERT INTO {ks}.b (k, c, v) VALUES (20, 1, 0) IF NOT EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 10 WHERE k = 20 IF s = 5; INSERT INTO {ks}.b (k, c, v) VALUES (20, 4, 0) IF NOT EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 11 WHERE k = 20 AND c = 1 IF v = 1; UPDATE {ks}.b SET v = 22 WHERE k = 20 AND c = 2 IF w = 'y'; UPDATE {ks}.b SET s = 8 WHERE k = 20 IF s = 7; DELETE FROM {ks}.b WHERE k = 20 AND c = 5; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.b WHERE k = 20"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 20 AND c = 1 IF v = 1; DELETE FROM {ks}.b WHERE k = 20 AND c > 1; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 20 AND c = 1 IF v = 11; DELETE FROM {ks}.b WHERE k = 20 AND c > 1; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.b WHERE k = 20"},
		{Batch: []Step{
			{Query: "UPDATE {ks}.b SET v = ? WHERE k = ? AND c = ? IF v = ?", Args: []any{1, 20, 1, 99}},
			{Query: "UPDATE {ks}.b SET v = ? WHERE k = ? AND c = ? IF EXISTS", Args: []any{1, 20, 7}},
			{Query: "UPDATE {ks}.b SET s = ? WHERE k = ? IF s = ?", Args: []any{1, 20, 3}},
		}, BatchTyp: gocql.LoggedBatch, CAS: true},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{21, 1, 1}},
			{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{21, 2, 2}},
		}, BatchTyp: gocql.UnloggedBatch, CAS: true},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{21, 1, 1}},
			{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{21, 2, 2}},
		}, BatchTyp: gocql.UnloggedBatch, CAS: true},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{21, 3, 3}},
			{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", Args: []any{21, 2, 2}},
		}, BatchTyp: gocql.UnloggedBatch, CAS: true},
		{Batch: []Step{
			{Query: "UPDATE {ks}.bc SET c = c + ? WHERE k = ?", Args: []any{int64(1), 30}},
			{Query: "INSERT INTO {ks}.b2 (k, v) VALUES (?, ?)", Args: []any{30, 1}},
		}, BatchTyp: gocql.CounterBatch, WantErr: true},
		{Batch: []Step{
			{Query: "UPDATE {ks}.bc SET c = c + ? WHERE k = ?", Args: []any{int64(1), 30}},
		}, BatchTyp: gocql.LoggedBatch, WantErr: true},
		{Batch: []Step{
			{Query: "SELECT * FROM {ks}.b2", Args: []any{}},
		}, BatchTyp: gocql.LoggedBatch, WantErr: true},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.b2 (k, v) VALUES (?, ?)", Args: []any{31, 1}},
			{Query: "INSERT INTO {ks}.b2 (k, v) VALUES (?, ?)", Args: []any{31}},
		}, BatchTyp: gocql.LoggedBatch, WantErr: true},
		{Query: "SELECT * FROM {ks}.b2"},
		{Query: "SELECT k, c, v, w, writetime(v) FROM {ks}.b WHERE k IN (1, 2, 3, 4, 5)"},
		{Query: "SELECT k, c, v, w FROM {ks}.b WHERE k IN (6, 7)"},
	}
}

// batchRuleSteps returns steps on what a batch may mix (counters, timestamps, kinds of
// conditions), in Cassandra's order of checks.
func batchRuleSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.b (k int, c int, s int static, v int, PRIMARY KEY (k, c))"},
		{Query: "CREATE TABLE {ks}.b2 (k int PRIMARY KEY, v int)"},
		{Query: "CREATE TABLE {ks}.bc (k int PRIMARY KEY, c counter)"},
		{Query: "BEGIN BATCH UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; INSERT INTO {ks}.b2 (k, v) VALUES (1, 1); APPLY BATCH", WantErr: true},
		{Query: "BEGIN COUNTER BATCH INSERT INTO {ks}.b2 (k, v) VALUES (1, 1); UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN COUNTER BATCH UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; INSERT INTO {ks}.b2 (k, v) VALUES (1, 1); APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH USING TIMESTAMP 5 UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH USING TIMESTAMP 5 UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN COUNTER BATCH USING TIMESTAMP 5 INSERT INTO {ks}.b2 (k, v) VALUES (1, 1); APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH USING TIMESTAMP 5 INSERT INTO {ks}.b2 (k, v) VALUES (1, 1) IF NOT EXISTS; UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH USING TIMESTAMP 5 INSERT INTO {ks}.b2 (k, v) VALUES (1, 1) USING TIMESTAMP 3; UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH USING TIMESTAMP 5 INSERT INTO {ks}.b2 (k, v) VALUES (1, 1); UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b2 SET v = 1 WHERE k = 1 IF v = 1; UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH UPDATE {ks}.b2 SET v = 1 WHERE k = 1 IF v = 1; UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; UPDATE {ks}.bc SET c = c + 1 WHERE k = 1 IF c = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN UNLOGGED BATCH UPDATE {ks}.bc SET c = c + 1 WHERE k = 1; UPDATE {ks}.bc SET c = c + 1 WHERE k = 1 IF EXISTS; APPLY BATCH", WantErr: true},
		{Query: "DELETE FROM {ks}.bc WHERE k = 1 IF EXISTS", WantErr: true},
		{Query: "DELETE c FROM {ks}.bc WHERE k = 1 IF c = 1", WantErr: true},
		{Query: "INSERT INTO {ks}.bc (k, c) VALUES (1, 1) IF NOT EXISTS", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; INSERT INTO {ks}.b (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS; INSERT INTO {ks}.b (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 1 WHERE k = 1 IF s = 1; INSERT INTO {ks}.b (k, c, v) VALUES (1, 1, 1) IF NOT EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 1 WHERE k = 1 IF s = 1; INSERT INTO {ks}.b (k, s) VALUES (1, 1) IF NOT EXISTS; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, s) VALUES (1, 1) IF NOT EXISTS; UPDATE {ks}.b SET s = 1 WHERE k = 1 IF s = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 2; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.b2 SET v = 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b2 SET v = 1 WHERE k = 1; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.b SET v = 1 WHERE k = 2 AND c = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 2 AND c = 1; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k IN (1, 2) AND c = 1; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c IN (1, 2); UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c IN (1, 2) IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH DELETE FROM {ks}.b WHERE k = 1 AND c > 1; UPDATE {ks}.b SET v = 5 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH DELETE FROM {ks}.b WHERE k = 1; UPDATE {ks}.b SET v = 6 WHERE k = 1 AND c = 1 IF v = 5; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.b"},
		{Query: "BEGIN BATCH DELETE FROM {ks}.b WHERE k = 1 IF EXISTS; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH DELETE FROM {ks}.b WHERE k = 1 IF s = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH DELETE FROM {ks}.b WHERE k = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3, v = 3 WHERE k = 1 IF s = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 1 IF EXISTS; APPLY BATCH"},
		{Query: "INSERT INTO {ks}.b (k, c, s, v) VALUES (9, 1, 9, 9)"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 9 IF EXISTS; UPDATE {ks}.b SET v = 3 WHERE k = 9 AND c = 2 IF EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 9 IF s = 9; UPDATE {ks}.b SET v = 3 WHERE k = 9 AND c = 2 IF v = 9; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 9 IF s = 8; UPDATE {ks}.b SET v = 3 WHERE k = 9 AND c = 1 IF v = 8; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 3 WHERE k = 9 AND c = 1 IF v = 8; UPDATE {ks}.b SET s = 3 WHERE k = 9 IF s = 8;  APPLY BATCH"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (9, 1, 1) IF NOT EXISTS; INSERT INTO {ks}.b (k, c, v) VALUES (9, 1, 2) IF NOT EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (9, 3, 1) IF NOT EXISTS; INSERT INTO {ks}.b (k, c, v) VALUES (9, 3, 2) IF NOT EXISTS; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.b WHERE k = 9"},
	}
}

// casKeySteps returns steps on IN on keys of conditional statements and batches, element keys of
// conditions, USING values.
func casKeySteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.b (k int, c int, s int static, v int, l list<int>, m map<int, int>, PRIMARY KEY (k, c))"},
		{Query: "UPDATE {ks}.b SET v = 1 WHERE k IN (1) AND c = 1 IF v = 1"},
		{Query: "UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c IN (1) IF v = 1"},
		{Query: "DELETE FROM {ks}.b WHERE k IN (1) AND c = 1 IF v = 1"},
		{Query: "DELETE FROM {ks}.b WHERE k = 1 AND c IN (1) IF v = 1"},
		{Query: "DELETE FROM {ks}.b WHERE k = 1 AND c IN (1, 2) IF v = 1", WantErr: true},
		{Query: "UPDATE {ks}.b SET s = 1 WHERE k IN (1) IF s = 1"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k IN (1) AND c = 1; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c IN (1); UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH DELETE FROM {ks}.b WHERE k = 1 AND c IN (1, 2); UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.b SET v = 1 WHERE k = 2 AND c = 1 IF v = 1; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c IN (1, 2); APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c IN (1, 2); UPDATE {ks}.b SET v = 1 WHERE k = 2 AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 1 IF v = 1; UPDATE {ks}.b SET v = 3 WHERE k = 1 AND c = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 1; UPDATE {ks}.b SET v = 3 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 1 IF s = 1; UPDATE {ks}.b SET v = 3 WHERE k = 1 AND c = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET s = 3 WHERE k = 1 IF s = null AND v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b2 SET v = 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; UPDATE nosuch_ks.b2 SET v = 1 WHERE k = 1; APPLY BATCH", WantErr: true},
		{Query: "UPDATE {ks}.b SET v = 1 WHERE k = 5 AND c = 1 IF l[-1] = 1", WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (5, 1, 1)"},
		{Query: "UPDATE {ks}.b SET v = 1 WHERE k = 5 AND c = 1 IF l[-1] = 1", WantErr: true},
		{Query: "UPDATE {ks}.b SET v = 1 WHERE k = 5 AND c = 1 IF l[?] = 1", Args: []any{gocql.UnsetValue}, WantErr: true},
		{Query: "UPDATE {ks}.b SET v = 1 WHERE k = 5 AND c = 1 IF m[?] = 1", Args: []any{gocql.UnsetValue}},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k IN (1, 2) AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.b SET v = 1 WHERE k IN (1, 2) AND c = 1 IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c IN (1, 2) IF v = 1; APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH INSERT INTO {ks}.b (k, c, v) VALUES (1, 1, 1) USING TIMESTAMP 5; UPDATE {ks}.b SET v = 1 WHERE k = 1 AND c = 1 IF v = 1; APPLY BATCH"},
		{Query: "BEGIN BATCH USING TIMESTAMP ? INSERT INTO {ks}.b (k, c, v) VALUES (1, 1, 1); APPLY BATCH", Args: []any{nil}, WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL 'x'", WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TIMESTAMP 'x'", WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL -1", WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL 1.5", WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL null", WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL 630720001", WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL ?", Args: []any{-5}, WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL ?", Args: []any{nil}},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TIMESTAMP ?", Args: []any{nil}, WantErr: true},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TTL ?", Args: []any{gocql.UnsetValue}},
		{Query: "INSERT INTO {ks}.b (k, c, v) VALUES (6, 1, 1) USING TIMESTAMP -5"},
		{Query: "DELETE FROM {ks}.b USING TTL 5 WHERE k = 1", WantErr: true},
		{Query: "UPDATE {ks}.b USING TTL 5 AND TTL 6 SET v = 1 WHERE k = 6 AND c = 1"},
		{Query: "UPDATE {ks}.b USING TIMESTAMP 5 AND TIMESTAMP 6 SET v = 1 WHERE k = 6 AND c = 1"},
		{Query: "SELECT k, c, v FROM {ks}.b WHERE k = 6"},
	}
}

// conditionSyntaxSteps returns steps on syntax errors around IF clauses and USING.
func conditionSyntaxSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.l (k int, c int, v int, PRIMARY KEY (k, c))"},
		{Query: "SELECT * FORM {ks}.l", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS AND v = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS v = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c = 1 IF EXISTS AND", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 IF EXISTS AND v = 1 AND c = 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c = 1 IF v = 1 AND EXISTS", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 1 WHERE k = 1 AND c = 1 IF NOT EXISTS", WantErr: true},
		{Query: "INSERT INTO {ks}.l (k, c) VALUES (1, 1) IF EXISTS", WantErr: true},
		{Query: "INSERT INTO {ks}.l (k, c) VALUES (1, 1) IF v = 1", WantErr: true},
		{Query: "DELETE FROM {ks}.l WHERE k = 1 AND c = 1 IF NOT EXISTS", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF v.a CONTAINS 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF v['x'] CONTAINS 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF v['x'] CONTAINS KEY 1", WantErr: true},
		{Query: "UPDATE {ks}.l SET v = 6 WHERE k = 1 AND c = 1 IF v.a CONTAINS KEY 1", WantErr: true},
		{Query: "BEGIN BATCH USING TTL 5 INSERT INTO {ks}.l (k, c) VALUES (1, 1); APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH USING TTL 5 AND TIMESTAMP 4 INSERT INTO {ks}.l (k, c) VALUES (1, 1); APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH USING TIMESTAMP 4 AND TTL 5 INSERT INTO {ks}.l (k, c) VALUES (1, 1); APPLY BATCH", WantErr: true},
		{Query: "BEGIN BATCH USING TIMESTAMP 4 AND TIMESTAMP 5 INSERT INTO {ks}.l (k, c) VALUES (1, 1); APPLY BATCH"},
		{Query: "BEGIN BATCH USING TTL ? INSERT INTO {ks}.l (k, c) VALUES (1, 1); APPLY BATCH", Args: []any{5}, WantErr: true},
		{Query: "BEGIN BATCH USING TIMESTAMP ? INSERT INTO {ks}.l (k, c) VALUES (1, 1); APPLY BATCH", Args: []any{5}},
		{Query: "BEGIN BATCH USING TTL 'x' INSERT INTO {ks}.l (k, c) VALUES (1, 1); APPLY BATCH", WantErr: true},
	}
}

// staticConditionSteps returns steps on conditions mixing static and regular columns, in
// statements and batches, with the rows a failed condition answers, and a SERIAL read paged by one
// row.
func staticConditionSteps() []Step {
	return []Step{
		{Query: "CREATE TABLE {ks}.ls (k int, c int, s int static, t text static, v int, w int, PRIMARY KEY (k, c))"},
		{Query: "INSERT INTO {ks}.ls (k, c, s, t, v, w) VALUES (1, 1, 1, 'a', 1, 1)"},
		{Query: "INSERT INTO {ks}.ls (k, c, v) VALUES (1, 2, 2)"},
		{Query: "UPDATE {ks}.ls SET v = 9 WHERE k = 1 AND c = 2 IF s = 2 AND w = 5"},
		{Query: "UPDATE {ks}.ls SET v = 9 WHERE k = 1 AND c = 2 IF w = 5 AND t = 'b'"},
		{Query: "UPDATE {ks}.ls SET v = 9, s = 3 WHERE k = 1 AND c = 2 IF v = 2 AND s = 1"},
		{Query: "UPDATE {ks}.ls SET v = 9, s = 3 WHERE k = 1 AND c = 2 IF v = 3"},
		{Query: "UPDATE {ks}.ls SET s = 4 WHERE k = 1 IF t = 'z'"},
		{Query: "UPDATE {ks}.ls SET s = 4 WHERE k = 1 IF t = 'a' AND s = 3"},
		{Query: "INSERT INTO {ks}.ls (k, c, v) VALUES (1, 3, 3) IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.ls (k, c, v) VALUES (1, 3, 3) IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.ls (k, c, v, s) VALUES (1, 3, 3, 7) IF NOT EXISTS"},
		{Query: "DELETE FROM {ks}.ls WHERE k = 1 AND c = 3 IF EXISTS"},
		{Query: "DELETE FROM {ks}.ls WHERE k = 1 AND c = 3 IF EXISTS"},
		{Query: "DELETE v FROM {ks}.ls WHERE k = 1 AND c = 2 IF s = 4"},
		{Query: "DELETE t FROM {ks}.ls WHERE k = 1 IF s = 4"},
		{Query: "SELECT * FROM {ks}.ls"},
		{Query: "BEGIN BATCH UPDATE {ks}.ls SET v = 7 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.ls SET s = 8 WHERE k = 1 IF s = 0; INSERT INTO {ks}.ls (k, c, v) VALUES (1, 5, 5) IF NOT EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.ls SET v = 7 WHERE k = 1 AND c = 1 IF v = 1; UPDATE {ks}.ls SET s = 8 WHERE k = 1 IF s = 4; INSERT INTO {ks}.ls (k, c, v) VALUES (1, 5, 5) IF NOT EXISTS; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.ls"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.ls (k, c, v) VALUES (2, 1, 1) IF NOT EXISTS; INSERT INTO {ks}.ls (k, s) VALUES (2, 5) IF NOT EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.ls (k, c, v) VALUES (2, 1, 1) IF NOT EXISTS; INSERT INTO {ks}.ls (k, s) VALUES (2, 5) IF NOT EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.ls SET w = 1 WHERE k = 2 AND c = 1 IF EXISTS; UPDATE {ks}.ls SET w = 2 WHERE k = 2 AND c = 9 IF EXISTS; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.ls SET w = 1 WHERE k = 3 AND c = 1 IF v = null; UPDATE {ks}.ls SET w = 2 WHERE k = 3 AND c = 2 IF v = null; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.ls WHERE k IN (2, 3)"},
		{Query: "UPDATE {ks}.ls USING TTL 1000 SET v = 1 WHERE k = 4 AND c = 1 IF NOT EXISTS", WantErr: true},
		{Query: "UPDATE {ks}.ls USING TTL 1000 SET v = 1 WHERE k = 4 AND c = 1 IF v = null"},
		{Query: "SELECT k, c, v FROM {ks}.ls WHERE k = 4"},
		{Query: "SELECT k, c, v FROM {ks}.ls WHERE k = 4", Consistency: gocql.Consistency(gocql.Serial), PageSize: 1, Pages: true},
	}
}
