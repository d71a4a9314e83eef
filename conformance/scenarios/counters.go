package scenarios

func counterScenarios() []Scenario {
	counterTable := func(e *Env) (string, bool) {
		tbl := e.Table("ctr")
		return tbl, e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, a counter, b counter)") == nil
	}
	return []Scenario{
		{"counter/increment_decrement", func(e *Env) {
			tbl, ok := counterTable(e)
			if !ok {
				return
			}
			e.R.Record("add int", e.Session.Query("UPDATE "+tbl+" SET a = a + ? WHERE k = ?", 3, 1).Exec())
			e.R.Record("add int64", e.Session.Query("UPDATE "+tbl+" SET a = a + ?, b = b - ? WHERE k = ?", int64(40), int64(2), 1).Exec())
			e.R.Record("literal", e.Session.Query("UPDATE "+tbl+" SET b = b - 5 WHERE k = 1").Exec())
			var a, b int64
			err := e.Session.Query("SELECT a, b FROM "+tbl+" WHERE k = ?", 1).Scan(&a, &b)
			e.R.Record("read int64", err, a, b)
			var ai int
			var bs string
			err = e.Session.Query("SELECT a, b FROM "+tbl+" WHERE k = ?", 1).Scan(&ai, &bs)
			e.R.Record("read int and string", err, ai, bs)
			m := map[string]any{}
			err = e.Session.Query("SELECT a, b FROM "+tbl+" WHERE k = ?", 1).MapScan(m)
			e.R.Record("mapscan", err, m)
		}},
		{"counter/missing_row_and_delete", func(e *Env) {
			tbl, ok := counterTable(e)
			if !ok {
				return
			}
			var a int64
			err := e.Session.Query("SELECT a FROM "+tbl+" WHERE k = ?", 9).Scan(&a)
			e.R.Record("missing", err)
			e.R.Record("add", e.Session.Query("UPDATE "+tbl+" SET a = a + 1 WHERE k = 2").Exec())
			var b *int64
			err = e.Session.Query("SELECT a, b FROM "+tbl+" WHERE k = ?", 2).Scan(&a, &b)
			e.R.Record("untouched counter is null", err, a, b)
			e.R.Record("delete", e.Session.Query("DELETE FROM "+tbl+" WHERE k = 2").Exec())
			err = e.Session.Query("SELECT a FROM "+tbl+" WHERE k = ?", 2).Scan(&a)
			e.R.Record("after delete", err)
		}},
		{"counter/invalid_operations", func(e *Env) {
			tbl, ok := counterTable(e)
			if !ok {
				return
			}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, a) VALUES (1, 1)").Exec())
			e.R.Record("set absolute", e.Session.Query("UPDATE "+tbl+" SET a = 5 WHERE k = 1").Exec())
			e.R.Record("mixed table", e.Exec("CREATE TABLE "+tbl+"_mixed (k int PRIMARY KEY, c counter, v int)"))
		}},
	}
}

func staticScenarios() []Scenario {
	staticTable := func(e *Env) (string, bool) {
		tbl := e.Table("st")
		return tbl, e.Exec("CREATE TABLE "+tbl+" (p int, c int, s text static, v text, PRIMARY KEY (p, c))") == nil
	}
	return []Scenario{
		{"static/shared_across_rows", func(e *Env) {
			tbl, ok := staticTable(e)
			if !ok {
				return
			}
			for c := 0; c < 3; c++ {
				if e.Exec("INSERT INTO "+tbl+" (p, c, s, v) VALUES (1, ?, ?, ?)", c, "s"+string(rune('a'+c)), "v") != nil {
					return
				}
			}
			e.R.Record("update static", e.Session.Query("UPDATE "+tbl+" SET s = ? WHERE p = ?", "final", 1).Exec())
			rows, err := e.Session.Query("SELECT p, c, s, v FROM "+tbl+" WHERE p = ?", 1).Iter().SliceMap()
			e.R.Record("rows", err, rows)
			rows, err = e.Session.Query("SELECT DISTINCT p, s FROM " + tbl).Iter().SliceMap()
			e.R.Record("distinct", err, rows)
		}},
		{"static/only_static_row", func(e *Env) {
			tbl, ok := staticTable(e)
			if !ok {
				return
			}
			e.R.Record("insert static only", e.Session.Query("INSERT INTO "+tbl+" (p, s) VALUES (?, ?)", 2, "lonely").Exec())
			it := e.Session.Query("SELECT p, c, s, v FROM "+tbl+" WHERE p = ?", 2).Iter()
			var p int
			var c *int
			var s string
			var v *string
			for it.Scan(&p, &c, &s, &v) {
				e.R.Record("row", nil, p, c, s, v)
			}
			e.R.Record("close", it.Close())
			e.R.Record("insert static without partition", e.Session.Query("INSERT INTO "+tbl+" (c, s) VALUES (1, 'x')").Exec())
		}},
		{"static/metadata_kind", func(e *Env) {
			tbl, ok := staticTable(e)
			if !ok {
				return
			}
			_, t := freshTable(e, tbl)
			if t == nil {
				return
			}
			for _, name := range []string{"p", "c", "s", "v"} {
				if col := t.Columns[name]; col != nil {
					e.R.Record("column "+name, nil, col.Kind.String(), col.ComponentIndex, col.Type.Type().String())
				}
			}
		}},
	}
}
