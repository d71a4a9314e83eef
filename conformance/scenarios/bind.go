package scenarios

import (
	"errors"
	"fmt"

	"github.com/gocql/gocql"
)

// describeQueryInfo renders what a binder is told about a prepared statement (the id is an
// opaque server value, recorded by presence).
func describeQueryInfo(qi *gocql.QueryInfo) []string {
	out := []string{fmt.Sprint("id:", len(qi.Id) > 0), fmt.Sprint("pk:", qi.PKeyColumns)}
	for _, c := range qi.Args {
		out = append(out, "arg "+c.Name+":"+c.TypeInfo.Type().String())
	}
	for _, c := range qi.Rval {
		out = append(out, "rval "+c.Name+":"+c.TypeInfo.Type().String())
	}
	return out
}

var errBinder = errors.New("binder refused")

func bindScenarios() []Scenario {
	return []Scenario{
		{"bind/session_bind_query_info", func(e *Env) {
			tbl := e.Table("bd")
			if !fill(e, tbl, 3) {
				return
			}
			var info []string
			q := e.Session.Bind("SELECT c, v FROM "+tbl+" WHERE p = ? AND c >= ?", func(qi *gocql.QueryInfo) ([]any, error) {
				info = describeQueryInfo(qi)
				return []any{1, 1}, nil
			})
			rows, err := q.Iter().SliceMap()
			e.R.Record("rows", err, rows)
			e.R.Record("query info", nil, info)
		}},
		{"bind/binder_error", func(e *Env) {
			tbl := e.Table("bd")
			if !fill(e, tbl, 1) {
				return
			}
			err := e.Session.Bind("SELECT v FROM "+tbl+" WHERE p = ?", func(*gocql.QueryInfo) ([]any, error) {
				return nil, errBinder
			}).Exec()
			e.R.Record("exec", err, errors.Is(err, errBinder))
		}},
		{"bind/batch_bind", func(e *Env) {
			tbl := e.Table("bdb")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch)
			for k := 1; k <= 2; k++ {
				k := k
				b.Bind("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", func(qi *gocql.QueryInfo) ([]any, error) {
					return []any{k, fmt.Sprint("b", k)}, nil
				})
			}
			e.R.Record("batch", e.Session.ExecuteBatch(b), b.Size())
			rows, err := e.Session.Query("SELECT k, v FROM " + tbl + " WHERE k IN (1, 2)").Iter().SliceMap()
			e.R.Record("rows", err, rows)
		}},
		{"bind/direct_marshal_unmarshal", func(e *Env) {
			intType := gocql.NewNativeType(4, gocql.TypeInt, "")
			b, err := gocql.Marshal(intType, 258)
			e.R.Record("marshal int", err, b)
			var n int64
			e.R.Record("unmarshal int", gocql.Unmarshal(intType, b, &n), n)
			_, err = gocql.Marshal(intType, "x")
			e.R.Record("marshal bad", err)
			e.R.Record("unmarshal short", gocql.Unmarshal(intType, []byte{1}, &n))
			textType := gocql.NewNativeType(4, gocql.TypeVarchar, "")
			b, err = gocql.Marshal(textType, nil)
			e.R.Record("marshal nil", err, b, b == nil)
			var s *string
			e.R.Record("unmarshal nil into pointer", gocql.Unmarshal(textType, nil, &s), s)
			e.R.Record("type strings", nil, intType.Type().String(), textType.String(), gocql.TypeTimeUUID.String(), gocql.TypeDuration.String())
		}},
		{"bind/mapscan_all_types_one_row", func(e *Env) {
			tbl := e.Table("allt")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, d date, dc decimal, db double, "+
				"du duration, f float, i inet, sm smallint, t text, tm time, ts timestamp, tu timeuuid, ti tinyint, u uuid, vi varint)") != nil {
				return
			}
			err := e.Session.Query("INSERT INTO " + tbl + " (k, a, b, bl, bo, d, dc, db, du, f, i, sm, t, tm, ts, tu, ti, u, vi) VALUES " +
				"(1, 'a', 2, 0x03, true, '2020-01-02', 4.5, 6.25, 1mo2d3ns, 7.5, '10.0.0.1', 8, 'text', '01:02:03.000000004', " +
				"'2020-01-02T03:04:05.006Z', 2a3bdd2c-7f6b-11ee-b962-0242ac120002, 9, 01234567-89ab-cdef-0123-456789abcdef, 123456789012345678901234567890)").Exec()
			e.R.Record("insert literals", err)
			m := map[string]any{}
			err = e.Session.Query("SELECT * FROM "+tbl+" WHERE k = ?", 1).MapScan(m)
			e.R.Record("mapscan", err, m)
			e.R.Record("insert nulls", e.Session.Query("INSERT INTO "+tbl+" (k) VALUES (2)").Exec())
			m = map[string]any{}
			err = e.Session.Query("SELECT * FROM "+tbl+" WHERE k = ?", 2).MapScan(m)
			e.R.Record("mapscan nulls", err, m)
		}},
		{"bind/markers_in_in_limit_ttl_timestamp", func(e *Env) {
			tbl := e.Table("bm")
			if !fill(e, tbl, 6) {
				return
			}
			rows, err := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? AND c IN ?", 1, []int{4, 1, 9}).Iter().SliceMap()
			e.R.Record("IN ?", err, rows)
			rows, err = e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? LIMIT ?", 1, 2).Iter().SliceMap()
			e.R.Record("LIMIT ?", err, rows)
			err = e.Session.Query("UPDATE "+tbl+" USING TTL ? AND TIMESTAMP ? SET v = ? WHERE p = ? AND c = ?", 4000, int64(777), "t", 1, 100).Exec()
			e.R.Record("USING TTL ? AND TIMESTAMP ?", err)
			var ttl int
			var wt int64
			err = e.Session.Query("SELECT ttl(v), writetime(v) FROM "+tbl+" WHERE p = ? AND c = ?", 1, 100).Scan(&ttl, &wt)
			e.R.Record("ttl in (3900, 4000], writetime", err, ttl > 3900 && ttl <= 4000, wt)
			err = e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? LIMIT ?", 1, 0).Exec()
			e.R.Record("LIMIT 0 bound", err)
		}},
		{"bind/named_markers", func(e *Env) {
			tbl := e.Table("bn")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (:k, :v)", 1, "named").Exec())
			var v string
			err := e.Session.Query("SELECT v FROM "+tbl+" WHERE k = :key", 1).Scan(&v)
			e.R.Record("select", err, v)
		}},
		{"bind/null_in_where_and_numeric_widening", func(e *Env) {
			tbl := e.Table("bw")
			if e.Exec("CREATE TABLE "+tbl+" (k bigint PRIMARY KEY, s smallint, d double)") != nil {
				return
			}
			e.R.Record("int into bigint and smallint", e.Session.Query("INSERT INTO "+tbl+" (k, s, d) VALUES (?, ?, ?)", 1, 2, 3.5).Exec())
			e.R.Record("int into double", e.Session.Query("INSERT INTO "+tbl+" (k, d) VALUES (?, ?)", 4, 3).Exec())
			e.R.Record("overflowing smallint", e.Session.Query("INSERT INTO "+tbl+" (k, s) VALUES (?, ?)", 2, 70000).Exec())
			e.R.Record("string into bigint", e.Session.Query("INSERT INTO "+tbl+" (k, s) VALUES (?, ?)", "3", 1).Exec())
			var s int16
			var d float64
			err := e.Session.Query("SELECT s, d FROM "+tbl+" WHERE k = ?", 1).Scan(&s, &d)
			e.R.Record("read", err, s, d)
			err = e.Session.Query("SELECT s FROM "+tbl+" WHERE k = ?", nil).Scan(&s)
			e.R.Record("null key in where", err)
		}},
		{"bind/consistency_any_and_serial_misuse", func(e *Env) {
			tbl := e.Table("bca")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			e.R.Record("write at ANY", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (1, 1)").Consistency(gocql.Any).Exec())
			e.R.Record("read at ANY", e.Session.Query("SELECT v FROM "+tbl+" WHERE k = 1").Consistency(gocql.Any).Exec())
			e.R.Record("read at EACH_QUORUM", e.Session.Query("SELECT v FROM "+tbl+" WHERE k = 1").Consistency(gocql.EachQuorum).Exec())
			e.R.Record("write at LOCAL_QUORUM", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (2, 2)").Consistency(gocql.LocalQuorum).Exec())
		}},
		{"bind/use_statement_iter_and_case", func(e *Env) {
			it := e.Session.Query("  USE " + e.Keyspace).Iter()
			e.R.Record("iter", it.Close())
			err := e.Session.Query("Use " + e.Keyspace).Exec()
			e.R.Record("mixed case", err, err == gocql.ErrUseStmt)
		}},
	}
}
