package difftest

import (
	"math/big"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

func mustUUID(s string) gocql.UUID {
	u, err := gocql.ParseUUID(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Scenario is the statement list run against both servers. {ks} is the test keyspace.
func Scenario() []Step {
	steps := []Step{
		// DDL
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", WantErr: true},
		{Query: "CREATE KEYSPACE IF NOT EXISTS {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TYPE {ks}.addr (street text, zip int)"},
		{Query: "CREATE TABLE {ks}.kv (k int PRIMARY KEY, v text)"},
		{Query: "CREATE TABLE {ks}.kv (k int PRIMARY KEY, v text)", WantErr: true},
		{Query: "CREATE TABLE IF NOT EXISTS {ks}.kv (k int PRIMARY KEY, v text)"},
		{Query: "ALTER TABLE {ks}.kv ADD extra int"},
		{Query: "CREATE TABLE {ks}.ts (k text, c int, d text, v int, PRIMARY KEY ((k), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC) AND comment = 'rows'"},
		{Query: `CREATE TABLE {ks}.types (k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, da date, de decimal,
			do double, du duration, f float, i inet, s smallint, t text, tm time, tsp timestamp, tu timeuuid, ti tinyint,
			u uuid, vi varint, l list<int>, st set<text>, m map<text, int>, fl frozen<list<int>>, tup tuple<int, text>,
			ad frozen<addr>, vec vector<float, 3>, nested map<text, frozen<list<int>>>)`},
		{Query: "CREATE TABLE {ks}.cnt (k int PRIMARY KEY, c counter, d counter)"},
		{Query: "CREATE TABLE {ks}.comp (a int, b text, c int, v int, PRIMARY KEY ((a, b), c))"},
		{Query: "CREATE TABLE {ks}.st (k int, c int, s int static, v int, PRIMARY KEY (k, c))"},
		{Query: "CREATE TABLE {ks}.bad (k int, v text)", WantErr: true},
		{Query: "CREATE TABLE {ks}.bad (k int PRIMARY KEY, l list<list<int>>)", WantErr: true},

		// every type, as literals
		{Query: `INSERT INTO {ks}.types (k, a, b, bl, bo, da, de, do, du, f, i, s, t, tm, tsp, tu, ti, u, vi, l, st, m, fl, tup, ad, vec, nested)
			VALUES (1, 'ascii', -9000000000, 0xcafe, true, '2024-02-29', 12.345, 3.5, 1h30m, 1.25, '10.0.0.1', -7, 'text é',
			'13:45:01.123456789', '2024-01-02 03:04:05.678+0000', 8c3dcb4e-5e33-11ee-8c99-0242ac120002, 12,
			123e4567-e89b-12d3-a456-426614174000, 123456789012345678901234567890, [3, 1, 2], {'b', 'a', 'c'},
			{'y': 2, 'x': 1}, [9, 8], (7, 'seven'), {street: 'Main', zip: 12345}, [1.0, 2.5, -3.0], {'n': [1, 2]})`},
		{Query: "SELECT * FROM {ks}.types WHERE k = 1"},
		// every type, as bound values
		{Query: `INSERT INTO {ks}.types (k, a, b, bl, bo, da, de, do, du, f, i, s, t, tm, tsp, tu, ti, u, vi, l, st, m, fl, ad, nested)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			Args: []any{2, "asc", int64(42), []byte{1, 2}, false, time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), inf.NewDec(-15, 1), 2.25,
				gocql.Duration{Months: 1, Days: 2, Nanoseconds: 3}, float32(0.5), "::1", int16(300), "bound", 90 * time.Minute,
				time.UnixMilli(1700000000123), mustUUID("d2177dd0-eaa2-11de-a572-001b779c76e3"), int8(-3),
				mustUUID("01234567-89ab-4def-8123-456789abcdef"), big.NewInt(-1234567890123), []int{5}, []string{"q", "a"},
				map[string]int{"k": 9, "b": 1}, []int{}, map[string]any{"street": "S", "zip": 7},
				map[string][]int{"z": {1}, "a": {2}}}},
		{Query: "UPDATE {ks}.types SET nested = ? WHERE k = 2", Args: []any{map[string][]int{"z": {1}, "a": nil}}, WantErr: true},
		{Query: "UPDATE {ks}.types SET l = [1, null] WHERE k = 2", WantErr: true},
		{Query: "SELECT * FROM {ks}.types WHERE k = 2"},
		{Query: "SELECT k, a, t FROM {ks}.types WHERE k = ?", Args: []any{"not an int"}, WantErr: true},
		// collection updates
		{Query: "UPDATE {ks}.types SET l = l + [4], st = st + {'z'}, m['q'] = 7 WHERE k = 1"},
		{Query: "UPDATE {ks}.types SET l = [0] + l, st = st - {'a'}, m = m - {'x'} WHERE k = 1"},
		{Query: "UPDATE {ks}.types SET l[1] = 99, m = m + {'w': 0} WHERE k = 1"},
		{Query: "DELETE m['q'] FROM {ks}.types WHERE k = 1"},
		{Query: "UPDATE {ks}.types SET ad = {street: 'Side', zip: 1}, tup = (2, 'b'), l = l - [1, 2] WHERE k = 1"},
		{Query: "SELECT l, st, m, ad, tup FROM {ks}.types WHERE k = 1"},
		{Query: "UPDATE {ks}.types SET l[10] = 1 WHERE k = 1", WantErr: true},
		// key-value rows, USING TIMESTAMP, TTL
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (100, 'new') USING TIMESTAMP 2000"},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (100, 'old') USING TIMESTAMP 1000"},
		{Query: "SELECT v, writetime(v) FROM {ks}.kv WHERE k = 100"},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (101, 'ttl') USING TTL 86400"},
		{Query: "SELECT k, v FROM {ks}.kv WHERE k IN (101, 100, 999)"},
		{Query: "DELETE v FROM {ks}.kv WHERE k = 101"},
		{Query: "SELECT * FROM {ks}.kv WHERE k = 101"},
		{Query: "SELECT k AS key, v AS value FROM {ks}.kv WHERE k = 100"},
		// counters
		{Query: "UPDATE {ks}.cnt SET c = c + 5, d = d - 1 WHERE k = 1"},
		{Query: "UPDATE {ks}.cnt SET c = c - 2 WHERE k = 1"},
		{Query: "SELECT * FROM {ks}.cnt"},
		{Query: "UPDATE {ks}.cnt SET c = 3 WHERE k = 1", WantErr: true},
		{Query: "INSERT INTO {ks}.cnt (k, c) VALUES (2, 1)", WantErr: true},
		// lightweight transactions
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (1, 'one') IF NOT EXISTS"},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (1, 'uno') IF NOT EXISTS"},
		{Query: "UPDATE {ks}.kv SET v = 'eins' WHERE k = 1 IF v = 'uno'"},
		{Query: "UPDATE {ks}.kv SET v = 'eins' WHERE k = 1 IF v = 'one' AND extra = null"},
		{Query: "UPDATE {ks}.kv SET v = 'x' WHERE k = 999 IF EXISTS"},
		{Query: "UPDATE {ks}.kv SET v = 'x' WHERE k = 999 IF v = 'y'"},
		{Query: "DELETE FROM {ks}.kv WHERE k = 1 IF v IN ('a', 'b')"},
		{Query: "DELETE FROM {ks}.kv WHERE k = 1 IF EXISTS"},
		{Query: "SELECT * FROM {ks}.kv WHERE k = 1"},
		// batches
		{Query: "BEGIN BATCH INSERT INTO {ks}.kv (k, v) VALUES (10, 'b10'); UPDATE {ks}.kv SET v = 'b11' WHERE k = 11; DELETE FROM {ks}.kv WHERE k = 100; APPLY BATCH"},
		{Query: "SELECT k, v FROM {ks}.kv WHERE k IN (10, 11, 100)"},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?) IF NOT EXISTS", Args: []any{40, "c40"}},
			{Query: "UPDATE {ks}.kv SET v = ? WHERE k = ? IF v = ?", Args: []any{"c41", 40, "c40"}},
		}, BatchTyp: gocql.LoggedBatch, CAS: true, WantErr: true},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?) IF NOT EXISTS", Args: []any{40, "c40"}},
		}, BatchTyp: gocql.LoggedBatch, CAS: true},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?) IF NOT EXISTS", Args: []any{40, "c40"}},
		}, BatchTyp: gocql.LoggedBatch, CAS: true},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.ts (k, c, d, v) VALUES (?, ?, ?, ?) IF NOT EXISTS", Args: []any{"cas", 1, "a", 1}},
			{Query: "UPDATE {ks}.ts SET v = ? WHERE k = ? AND c = ? AND d = ? IF v = ?", Args: []any{7, "cas", 2, "a", nil}},
		}, BatchTyp: gocql.LoggedBatch, CAS: true},
		{Batch: []Step{
			{Query: "UPDATE {ks}.ts SET v = ? WHERE k = ? AND c = ? AND d = ? IF v = ?", Args: []any{8, "cas", 1, "a", 5}},
			{Query: "UPDATE {ks}.ts SET v = ? WHERE k = ? AND c = ? AND d = ? IF v = ?", Args: []any{8, "cas", 2, "a", 7}},
		}, BatchTyp: gocql.LoggedBatch, CAS: true},
		{Query: "SELECT * FROM {ks}.ts WHERE k = 'cas'"},
		{Query: "DELETE FROM {ks}.ts WHERE k = 'cas'"},
		{Batch: []Step{
			{Query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?)", Args: []any{20, "u20"}},
			{Query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?)", Args: []any{21, "u21"}},
		}, BatchTyp: gocql.UnloggedBatch},
		{Batch: []Step{
			{Query: "UPDATE {ks}.cnt SET c = c + ? WHERE k = ?", Args: []any{int64(10), 3}},
			{Query: "UPDATE {ks}.cnt SET d = d + 1 WHERE k = 3"},
		}, BatchTyp: gocql.CounterBatch},
		{Query: "SELECT * FROM {ks}.cnt WHERE k = 3"},
		{Query: "BEGIN BATCH UPDATE {ks}.cnt SET c = c + 1 WHERE k = 3; APPLY BATCH", WantErr: true},
		{Query: "SELECT k, v FROM {ks}.kv WHERE k IN (20, 21)"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.ts (k, c, d, v) VALUES ('lwt', 1, 'a', 1) IF NOT EXISTS; INSERT INTO {ks}.ts (k, c, d, v) VALUES ('lwt', 2, 'a', 2); APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.ts SET v = 10 WHERE k = 'lwt' AND c = 1 AND d = 'a' IF v = 5; UPDATE {ks}.ts SET v = 20 WHERE k = 'lwt' AND c = 2 AND d = 'a' IF v = 2; APPLY BATCH"},
		{Query: "BEGIN BATCH UPDATE {ks}.ts SET v = 10 WHERE k = 'lwt' AND c = 1 AND d = 'a' IF v = 1; UPDATE {ks}.ts SET v = 20 WHERE k = 'lwt' AND c = 2 AND d = 'a' IF v = 2; APPLY BATCH"},
		{Query: "SELECT * FROM {ks}.ts WHERE k = 'lwt'"},
		{Query: "BEGIN BATCH INSERT INTO {ks}.kv (k, v) VALUES (30, 'a') IF NOT EXISTS; INSERT INTO {ks}.kv (k, v) VALUES (31, 'b') IF NOT EXISTS; APPLY BATCH", WantErr: true},
		{Query: "DELETE FROM {ks}.ts WHERE k = 'lwt'"},
	}
	// rows for paging, clustering ranges and token order
	for _, k := range []string{"a", "b", "c", "d"} {
		for c := 0; c < 6; c++ {
			for _, d := range []string{"x", "y"} {
				steps = append(steps, Step{Query: "INSERT INTO {ks}.ts (k, c, d, v) VALUES (?, ?, ?, ?)", Args: []any{k, c, d, c * 10}})
			}
		}
	}
	for i := 0; i < 30; i++ {
		steps = append(steps, Step{Query: "INSERT INTO {ks}.comp (a, b, c, v) VALUES (?, ?, ?, ?)", Args: []any{i % 5, "p", i, i}})
	}
	steps = append(steps, []Step{
		// paging across partitions, LIMIT and PER PARTITION LIMIT
		{Query: "SELECT k, c, d, v FROM {ks}.ts", PageSize: 7},
		{Query: "SELECT k, c, d FROM {ks}.ts LIMIT 13", PageSize: 5},
		{Query: "SELECT k, c, d FROM {ks}.ts PER PARTITION LIMIT 3", PageSize: 4},
		{Query: "SELECT k, c, d FROM {ks}.ts PER PARTITION LIMIT 2 LIMIT 5", PageSize: 3},
		{Query: "SELECT a, b, c FROM {ks}.comp", PageSize: 4},
		{Query: "SELECT a, b, token(a, b) FROM {ks}.comp PER PARTITION LIMIT 1"},
		{Query: "SELECT DISTINCT k FROM {ks}.ts", PageSize: 2},
		// IN on the partition key
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k IN ('d', 'b', 'zz')", PageSize: 5},
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k IN ('d', 'b') ORDER BY c ASC LIMIT 4", WantErr: true},
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k IN ('d', 'b') ORDER BY c ASC", WantErr: true},
		// clustering ranges and ORDER BY
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' AND c >= 2 AND c < 5"},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' AND c = 3 AND d > 'x'"},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' AND (c, d) > (4, 'x')"},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' AND c IN (1, 4, 2)"},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' ORDER BY c ASC, d DESC LIMIT 5", PageSize: 2},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' ORDER BY d DESC", WantErr: true},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' AND d = 'x'", WantErr: true},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'a' AND d = 'x' ALLOW FILTERING"},
		// token ranges
		{Query: "SELECT k, token(k) FROM {ks}.ts WHERE token(k) > 0 PER PARTITION LIMIT 1"},
		{Query: "SELECT k FROM {ks}.ts WHERE token(k) >= token('b') AND token(k) < 9223372036854775807 PER PARTITION LIMIT 1"},
		{Query: "SELECT k, token(k) FROM {ks}.kv WHERE token(k) <= 0"},
		// filtering on regular columns
		{Query: "SELECT k, c, d, v FROM {ks}.ts WHERE v >= 40 ALLOW FILTERING", PageSize: 3},
		{Query: "SELECT k, c, v FROM {ks}.ts WHERE v = 50", WantErr: true},
		{Query: "SELECT COUNT(*) FROM {ks}.ts WHERE k = 'a'"},
		{Query: "SELECT COUNT(*), max(v), min(c) FROM {ks}.ts"},
		// deletes: ranges, rows, partitions
		{Query: "DELETE FROM {ks}.ts WHERE k = 'c' AND c > 3"},
		{Query: "DELETE FROM {ks}.ts WHERE k = 'c' AND c = 1 AND d = 'x'"},
		{Query: "SELECT c, d FROM {ks}.ts WHERE k = 'c'"},
		{Query: "DELETE FROM {ks}.ts WHERE k = 'd'"},
		{Query: "SELECT DISTINCT k FROM {ks}.ts"},
		{Query: "DELETE v FROM {ks}.ts WHERE k = 'c' AND c > 1", WantErr: true},
		// static columns
		{Query: "INSERT INTO {ks}.st (k, c, s, v) VALUES (1, 1, 100, 1)"},
		{Query: "INSERT INTO {ks}.st (k, c, v) VALUES (1, 2, 2)"},
		{Query: "INSERT INTO {ks}.st (k, s) VALUES (2, 200)"},
		{Query: "UPDATE {ks}.st SET s = 101 WHERE k = 1"},
		{Query: "SELECT * FROM {ks}.st"},
		// more LWT, static and collection semantics
		{Query: "CREATE TABLE {ks}.nf (k int, c int, s text static, a addr, m map<text, int>, l list<text>, PRIMARY KEY (k, c))"},
		{Query: "INSERT INTO {ks}.nf (k, c, s, a, m, l) VALUES (1, 1, 'st', {street: 'A', zip: 1}, {'x': 1}, ['p', 'q', 'p'])"},
		{Query: "UPDATE {ks}.nf SET a.zip = 2, l = l - ['p'] WHERE k = 1 AND c = 1"},
		{Query: "SELECT a, a.zip, l FROM {ks}.nf WHERE k = 1"},
		{Query: "UPDATE {ks}.nf SET m['y'] = 2 WHERE k = 1 AND c = 1 IF m['x'] = 1"},
		{Query: "UPDATE {ks}.nf SET m['z'] = 3 WHERE k = 1 AND c = 1 IF m['x'] = 5"},
		{Query: "UPDATE {ks}.nf SET l[0] = 'r' WHERE k = 1 AND c = 1 IF l[0] = 'q'"},
		{Query: "UPDATE {ks}.nf SET s = 'st2' WHERE k = 1 IF s = 'st'"},
		{Query: "UPDATE {ks}.nf SET s = 'st3' WHERE k = 1 IF s = 'nope'"},
		{Query: "UPDATE {ks}.nf SET a = {street: 'B'} WHERE k = 1 AND c = 1 IF a.street = 'A'"},
		{Query: "DELETE a.zip FROM {ks}.nf WHERE k = 1 AND c = 1"},
		{Query: "SELECT * FROM {ks}.nf"},
		{Query: "INSERT INTO {ks}.nf (k, c) VALUES (1, 2)"},
		{Query: "SELECT k, c, s FROM {ks}.nf WHERE k = 1"},
		{Query: "SELECT DISTINCT k, s FROM {ks}.nf"},
		{Query: "DELETE s FROM {ks}.nf WHERE k = 1"},
		{Query: "SELECT k, c, s FROM {ks}.nf"},
		{Query: "DELETE FROM {ks}.nf WHERE k = 1 AND c = 1"},
		{Query: "DELETE FROM {ks}.nf WHERE k = 1 AND c = 2"},
		{Query: "SELECT * FROM {ks}.nf"},
		{Query: "INSERT INTO {ks}.nf (k, s) VALUES (2, 'only static')"},
		{Query: "SELECT * FROM {ks}.nf WHERE k = 2"},
		{Query: "SELECT count(*) FROM {ks}.nf"},
		{Query: "SELECT * FROM {ks}.nf WHERE k = 2 AND c = 1"},
		{Query: "UPDATE {ks}.cnt SET c = c + 1 WHERE k = 1 IF c = 3", WantErr: true},
		{Query: "DELETE c FROM {ks}.cnt WHERE k = 1"},
		{Query: "SELECT * FROM {ks}.cnt WHERE k = 1"},
		{Query: "UPDATE {ks}.kv USING TIMESTAMP 5000 SET v = 'ts' WHERE k = 200"},
		{Query: "UPDATE {ks}.kv USING TIMESTAMP 4000 SET v = 'older' WHERE k = 200"},
		{Query: "DELETE FROM {ks}.kv USING TIMESTAMP 4500 WHERE k = 200"},
		{Query: "SELECT v, writetime(v) FROM {ks}.kv WHERE k = 200"},
		{Query: "BEGIN BATCH USING TIMESTAMP 7000 UPDATE {ks}.kv SET v = 'b1' WHERE k = 201; UPDATE {ks}.kv SET v = 'b2' WHERE k = 202; APPLY BATCH"},
		{Query: "SELECT k, v, writetime(v) FROM {ks}.kv WHERE k IN (201, 202)"},
		{Query: "BEGIN BATCH USING TIMESTAMP 7000 UPDATE {ks}.kv USING TIMESTAMP 1 SET v = 'b1' WHERE k = 201; APPLY BATCH", WantErr: true},
		{Query: "SELECT k, c FROM {ks}.ts WHERE k = 'a' AND c IN (1, 3) ORDER BY c ASC"},
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k = 'a' AND c IN (1, 3) AND d IN ('y', 'x')"},
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k = 'a' AND c = 2 AND d < 'y'"},
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k = 'a' AND c >= 4 AND c <= 4"},
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k = 'a' AND c > 10"},
		{Query: "SELECT k, c, d FROM {ks}.ts WHERE k = 'a' AND (c, d) >= (2, 'y') AND (c, d) < (4, 'x')"},
		{Query: "SELECT k, v FROM {ks}.ts WHERE k = 'a' AND v IN (10, 30) ALLOW FILTERING"},
		{Query: "SELECT count(*) FROM {ks}.ts WHERE v > 10 ALLOW FILTERING"},
		{Query: "SELECT k, c FROM {ks}.ts WHERE k = 'b' LIMIT 3", PageSize: 2},
		{Query: "SELECT max(c), min(d), count(v) FROM {ks}.ts WHERE k = 'b'"},
		{Query: "SELECT k, c FROM {ks}.ts WHERE k = 'b' AND c IN (5, 0) LIMIT 3"},
		// range tombstones shadow older writes; an aggregate's LIMIT bounds its output
		{Query: "INSERT INTO {ks}.ts (k, c, d, v) VALUES ('rt', 1, 'a', 1) USING TIMESTAMP 10"},
		{Query: "INSERT INTO {ks}.ts (k, c, d, v) VALUES ('rt', 2, 'a', 2) USING TIMESTAMP 10"},
		{Query: "INSERT INTO {ks}.ts (k, c, d, v) VALUES ('rt', 3, 'a', 3) USING TIMESTAMP 10"},
		{Query: "DELETE FROM {ks}.ts USING TIMESTAMP 20 WHERE k = 'rt' AND c >= 2"},
		{Query: "INSERT INTO {ks}.ts (k, c, d, v) VALUES ('rt', 4, 'a', 4) USING TIMESTAMP 15"},
		{Query: "INSERT INTO {ks}.ts (k, c, d, v) VALUES ('rt', 2, 'b', 5) USING TIMESTAMP 25"},
		{Query: "SELECT c, d, v FROM {ks}.ts WHERE k = 'rt'"},
		{Query: "SELECT count(*) FROM {ks}.ts WHERE k = 'rt' LIMIT 1"},
		{Query: "SELECT count(*) FROM {ks}.ts LIMIT 2"},
		{Query: "DELETE FROM {ks}.ts WHERE k = 'rt'"},
		// consistency levels on a one-node cluster
		{Query: "SELECT key FROM system.local", Consistency: gocql.Two, WantErr: true},
		{Query: "SELECT key FROM system.local", Consistency: gocql.All},
		{Query: "SELECT * FROM {ks}.kv WHERE k = 10", Consistency: gocql.Three, WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (10, 'b10')", Consistency: gocql.All},
		{Query: "CREATE KEYSPACE {ks}_rf3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}"},
		{Query: "CREATE TABLE {ks}_rf3.t (k int PRIMARY KEY)"},
		{Query: "INSERT INTO {ks}_rf3.t (k) VALUES (1)", Consistency: gocql.Quorum, WantErr: true},
		{Query: "INSERT INTO {ks}_rf3.t (k) VALUES (1)", Consistency: gocql.One},
		{Query: "SELECT * FROM {ks}_rf3.t", Consistency: gocql.LocalQuorum, WantErr: true},
		{Query: "SELECT * FROM {ks}_rf3.t", Consistency: gocql.LocalOne},
		{Query: "DROP KEYSPACE {ks}_rf3"},
		// errors
		{Query: "SELECT * FROM {ks}.nosuch", WantErr: true},
		{Query: "SELECT nosuch FROM {ks}.kv", WantErr: true},
		{Query: "SELECT * FROM nosuchks_difftest.kv", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES ('x', 'y')", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (1, 5)", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (v) VALUES ('x')", WantErr: true},
		{Query: "INSERT INTO {ks}.ts (k, v) VALUES ('x', 1)", WantErr: true},
		{Query: "UPDATE {ks}.kv SET k = 1 WHERE k = 1", WantErr: true},
		{Query: "UPDATE {ks}.kv SET v = 'a' WHERE v = 'b'", WantErr: true},
		{Query: "SELECT * FORM {ks}.kv", WantErr: true},
		{Query: "SELEC * FROM {ks}.kv", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv WHERE", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv WHERE k = 1 extra", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (1, 'x'", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (1, 'unterminated)", WantErr: true},
		{Query: "UPDATE {ks}.kv SET WHERE k = 1", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv WHERE k = 1 AND", WantErr: true},
		{Query: "CREATE TABLE {ks}.x (k int PRIMARY KEY, v text", WantErr: true},
		{Query: "DELETE FROM {ks}.kv", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv LIMIT 'x'", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv LIMIT 0", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv WHERE k = 1 ORDER BY k", WantErr: true},
		{Query: "SELECT k, count(*) FROM {ks}.kv WHERE k = 100 PER PARTITION LIMIT 1", WantErr: true},
		{Query: "SELECT * FROM {ks}.ts WHERE k = 'a' AND c > 1 AND c > 2", WantErr: true},
		{Query: "SELECT * FROM {ks}.ts WHERE k = 'a' AND d = 'x' AND c = 1", WantErr: false},
		{Query: "SELECT * FROM {ks}.kv WHERE token(k) > 0 AND k = 10"},
		{Query: "SELECT * FROM {ks}.kv WHERE token(k) < 0 AND k = 10"},
		{Query: "INSERT INTO {ks}.kv (k, v, v) VALUES (1, 'a', 'b')", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (1)", WantErr: true},
		{Query: "UPDATE {ks}.kv SET v = 'a' WHERE k = 1 AND k = 2", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv WHERE k = 1 AND k = 2", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, nosuch) VALUES (1, 'a')", WantErr: true},
		{Query: "UPDATE {ks}.kv SET nosuch = 'a' WHERE k = 1", WantErr: true},
		{Query: "DELETE nosuch FROM {ks}.kv WHERE k = 1", WantErr: true},
		{Query: "SELECT * FROM {ks}.kv WHERE nosuch = 1", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, l) VALUES (5, [1, 'a'])", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, m) VALUES (5, {'a': 'b'})", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, tup) VALUES (5, (1, 2, 3))", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, ad) VALUES (5, {street: 1})", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, u) VALUES (5, 'not-a-uuid')", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, tsp) VALUES (5, 'yesterday')", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, da) VALUES (5, '2024-13-01')", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, bl) VALUES (5, 'text')", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, vec) VALUES (5, [1.0, 2.0])", WantErr: true},
		{Query: "INSERT INTO {ks}.types (k, du) VALUES (5, 5)", WantErr: true},
		{Query: "UPDATE {ks}.types SET fl = fl + [1] WHERE k = 5", WantErr: true},
		{Query: "UPDATE {ks}.types SET b = b + 1 WHERE k = 5", WantErr: true},
		{Query: "UPDATE {ks}.types SET fl[0] = 1 WHERE k = 5", WantErr: true},
		{Query: "CREATE TABLE {ks}.bad2 (k int PRIMARY KEY, c counter, v int)", WantErr: true},
		{Query: "CREATE TABLE {ks}.bad3 (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (k DESC)", WantErr: true},
		{Query: "CREATE TABLE {ks}.bad4 (k int PRIMARY KEY, s int static)", WantErr: true},
		{Query: "CREATE TABLE {ks}.bad5 (k list<int> PRIMARY KEY)", WantErr: true},
		{Query: "CREATE TABLE {ks}.bad6 (k int PRIMARY KEY, v nosuchtype)", WantErr: true},
		{Query: "CREATE TABLE {ks}.bad7 (k int PRIMARY KEY) WITH nosuch_option = 1", WantErr: true},
		{Query: "CREATE KEYSPACE bad_difftest WITH replication = {'class': 'NoSuchStrategy'}", WantErr: true},
		{Query: "CREATE KEYSPACE bad_difftest WITH durable_writes = true", WantErr: true},
		{Query: "ALTER TABLE {ks}.kv ADD v text", WantErr: true},
		{Query: "ALTER TABLE {ks}.kv DROP k", WantErr: true},
		{Query: "CREATE TYPE {ks}.addr (a int)", WantErr: true},
		{Query: "BEGIN BATCH SELECT * FROM {ks}.kv; APPLY BATCH", WantErr: true},
		{Query: "BEGIN COUNTER BATCH INSERT INTO {ks}.kv (k, v) VALUES (1, 'a'); APPLY BATCH", WantErr: true},
		{Query: "SELECT * FROM {ks}.ts WHERE c = 1", WantErr: true},
		{Query: "SELECT * FROM {ks}.ts WHERE k = 'a' ORDER BY v", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (99999999999, 'x')", WantErr: true},
		{Query: "INSERT INTO {ks}.kv (k, v) VALUES (null, 'x')", WantErr: true},
		{Query: "DROP TABLE {ks}.nosuch", WantErr: true},
		{Query: "DROP KEYSPACE nosuchks_difftest", WantErr: true},
		{Query: "CREATE TABLE nosuchks_difftest.t (k int PRIMARY KEY)", WantErr: true},
		// truncate and drop
		{Query: "TRUNCATE {ks}.comp"},
		{Query: "SELECT COUNT(*) FROM {ks}.comp"},
		{Query: "SELECT * FROM {ks}.comp"},
		{Query: "DROP TABLE {ks}.comp"},
		{Query: "SELECT * FROM {ks}.comp", WantErr: true},
		{Query: "DROP TYPE {ks}.addr", WantErr: true},
		{Query: "ALTER TABLE {ks}.kv DROP extra"},
		{Query: "SELECT * FROM {ks}.kv WHERE k IN (10, 11)"},
		{Query: "SELECT keyspace_name, table_name, column_name, clustering_order, kind, position, type FROM system_schema.columns WHERE keyspace_name = '{ks}'", Sorted: true},
		{Query: "SELECT keyspace_name, type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name = '{ks}'"},
		{Query: "SELECT keyspace_name, durable_writes, replication FROM system_schema.keyspaces WHERE keyspace_name = '{ks}'"},
		{Query: "SELECT table_name, comment, default_time_to_live, flags FROM system_schema.tables WHERE keyspace_name = '{ks}'", Sorted: true},
	}...)
	steps = append(steps, OrderingSteps()...)
	steps = append(steps, Step{Query: "DROP KEYSPACE {ks}"})
	return steps
}
