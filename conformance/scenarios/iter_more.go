package scenarios

import (
	"github.com/gocql/gocql"
)

func iterMoreScenarios() []Scenario {
	return []Scenario{
		{"iter/scan_wrong_type", func(e *Env) {
			tbl := e.Table("it")
			if !fill(e, tbl, 3) {
				return
			}
			it := e.Session.Query("SELECT v FROM "+tbl+" WHERE p = ?", 1).Iter()
			var n int
			e.R.Record("scan text into int", nil, it.Scan(&n))
			var s string
			e.R.Record("scan again", nil, it.Scan(&s))
			e.R.Record("close", it.Close())
			err := e.Session.Query("SELECT v FROM "+tbl+" WHERE p = ?", 1).Scan(&n)
			e.R.Record("query scan", err)
		}},
		{"iter/error_iter_state", func(e *Env) {
			it := e.Session.Query("SELECT * FROM no_such_table_it").Iter()
			var x int
			e.R.Record("scan", nil, it.Scan(&x))
			e.R.Record("state", nil, len(it.Columns()), it.NumRows(), len(it.PageState()), it.WillSwitchPage())
			rd, err := it.RowData()
			e.R.Record("rowdata", err, rd.Columns)
			rows, err := it.SliceMap()
			e.R.Record("slicemap", err, rows)
			m := map[string]any{}
			e.R.Record("mapscan", nil, it.MapScan(m), m)
			e.R.Record("close", it.Close())
			e.R.Record("close again", it.Close())
		}},
		{"iter/scanner_on_error_and_empty", func(e *Env) {
			sc := e.Session.Query("SELECT * FROM no_such_table_it").Iter().Scanner()
			e.R.Record("next on error", nil, sc.Next())
			e.R.Record("err", sc.Err())
			tbl := e.Table("it")
			if !fill(e, tbl, 0) {
				return
			}
			sc = e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).Iter().Scanner()
			e.R.Record("next on empty", nil, sc.Next())
			e.R.Record("err", sc.Err())
		}},
		{"iter/mapscan_pointer_destinations", func(e *Env) {
			tbl := e.Table("it")
			if !fill(e, tbl, 2) {
				return
			}
			it := e.Session.Query("SELECT c, v FROM "+tbl+" WHERE p = ?", 1).Iter()
			var c int
			m := map[string]any{"c": &c}
			e.R.Record("mapscan", nil, it.MapScan(m), m, c)
			e.R.Record("close", it.Close())
		}},
		{"iter/host_and_columns", func(e *Env) {
			tbl := e.Table("it")
			if !fill(e, tbl, 2) {
				return
			}
			it := e.Session.Query("SELECT * FROM "+tbl+" WHERE p = ?", 1).Iter()
			var cols []string
			for _, c := range it.Columns() {
				cols = append(cols, c.Keyspace+"."+c.Table+"."+c.Name+":"+c.TypeInfo.Type().String())
			}
			e.R.Record("columns", nil, cols, it.Host() != nil)
			e.R.Record("close", it.Close())
		}},
		{"iter/select_star_column_order", func(e *Env) {
			tbl := e.Table("ord")
			if e.Exec("CREATE TABLE "+tbl+" (zeta int, alpha int, mid text, beta text, omega int, PRIMARY KEY ((zeta, alpha), mid))") != nil {
				return
			}
			if e.Exec("INSERT INTO "+tbl+" (zeta, alpha, mid, beta, omega) VALUES (1, 2, 'm', 'b', 3)") != nil {
				return
			}
			rows, err := e.Session.Query("SELECT * FROM " + tbl).Iter().SliceMap()
			e.R.Record("rows", err, rows)
			it := e.Session.Query("SELECT * FROM " + tbl).Iter()
			var names []string
			for _, c := range it.Columns() {
				names = append(names, c.Name)
			}
			e.R.Record("order", it.Close(), names)
		}},
		{"iter/aggregates", func(e *Env) {
			tbl := e.Table("agg")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, d double, PRIMARY KEY (p, c))") != nil {
				return
			}
			for c := 1; c <= 4; c++ {
				if e.Exec("INSERT INTO "+tbl+" (p, c, d) VALUES (1, ?, ?)", c, float64(c)/2) != nil {
					return
				}
			}
			var cnt int64
			var mn, mx, sum, avg int
			var dsum float64
			err := e.Session.Query("SELECT count(*), min(c), max(c), sum(c), avg(c), sum(d) FROM "+tbl+" WHERE p = ?", 1).Scan(&cnt, &mn, &mx, &sum, &avg, &dsum)
			e.R.Record("aggregates", err, cnt, mn, mx, sum, avg, dsum)
			m := map[string]any{}
			err = e.Session.Query("SELECT count(*) AS n, max(c) FROM "+tbl+" WHERE p = ?", 2).MapScan(m)
			e.R.Record("empty partition aggregates", err, m)
		}},
		{"iter/order_by_and_filtering", func(e *Env) {
			tbl := e.Table("it")
			if !fill(e, tbl, 6) {
				return
			}
			var got []int
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? ORDER BY c DESC", 1).PageSize(4).Iter()
			var c int
			for it.Scan(&c) {
				got = append(got, c)
			}
			e.R.Record("desc", it.Close(), got)
			rows, err := e.Session.Query("SELECT c FROM "+tbl+" WHERE v = ? ALLOW FILTERING", "v3").Iter().SliceMap()
			e.R.Record("filtering", err, rows)
			rows, err = e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? AND c IN (5, 1, 3)", 1).Iter().SliceMap()
			e.R.Record("clustering IN", err, rows)
		}},
		{"iter/select_json", func(e *Env) {
			tbl := e.Table("js")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, t text, l list<int>, m map<text, double>)") != nil {
				return
			}
			if e.Exec("INSERT INTO "+tbl+" (k, t, l, m) VALUES (1, 'q\"x', [1, 2], {'a': 1.5})") != nil {
				return
			}
			e.R.Record("insert json", e.Session.Query("INSERT INTO "+tbl+" JSON ?", `{"k": 2, "t": "j", "l": [], "m": null}`).Exec())
			rows, err := e.Session.Query("SELECT JSON k, t, l, m FROM " + tbl + " WHERE k IN (1, 2)").Iter().SliceMap()
			e.R.Record("json rows", err, rows)
		}},
		{"iter/token_and_writetime_functions", func(e *Env) {
			tbl := e.Table("tok")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			for k := 0; k < 3; k++ {
				if e.Exec("INSERT INTO "+tbl+" (k, v) VALUES (?, ?) USING TIMESTAMP 1000", k, "x") != nil {
					return
				}
			}
			rows, err := e.Session.Query("SELECT k, token(k), writetime(v) FROM " + tbl).Iter().SliceMap()
			e.R.Record("tokens", err, rows)
			var tok int64
			err = e.Session.Query("SELECT token(k) FROM "+tbl+" WHERE k = ?", 1).Scan(&tok)
			e.R.Record("token of 1", err, tok)
		}},
		{"iter/query_values_and_rebind", func(e *Env) {
			tbl := e.Table("it")
			if !fill(e, tbl, 4) {
				return
			}
			q := e.Session.Query("SELECT v FROM "+tbl+" WHERE p = ? AND c = ?", 1, 1)
			var v string
			e.R.Record("first", q.Scan(&v), v, q.Values())
			q.Bind(1, 3)
			e.R.Record("rebound", q.Scan(&v), v, q.Values())
			q.Bind(1, 99)
			e.R.Record("rebound missing", q.Scan(&v), v)
		}},
		{"iter/nil_iter_scanner", func(e *Env) {
			var it *gocql.Iter
			e.R.Record("nil iter scanner is nil", nil, it.Scanner() == nil)
		}},
	}
}
