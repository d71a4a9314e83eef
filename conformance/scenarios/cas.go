package scenarios

import "github.com/gocql/gocql"

func casScenarios() []Scenario {
	lwtTable := func(e *Env) (string, bool) {
		tbl := e.Table("lwt")
		return tbl, e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text, n int)") == nil
	}
	return []Scenario{
		{"cas/insert_if_not_exists", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			var k, n int
			var v string
			applied, err := e.Session.Query("INSERT INTO "+tbl+" (k, v, n) VALUES (?, ?, ?) IF NOT EXISTS", 1, "a", 1).ScanCAS(&k, &v, &n)
			e.R.Record("first", err, applied, k, v, n)
			applied, err = e.Session.Query("INSERT INTO "+tbl+" (k, v, n) VALUES (?, ?, ?) IF NOT EXISTS", 1, "b", 2).ScanCAS(&k, &v, &n)
			e.R.Record("second (existing row)", err, applied, k, v, n)
		}},
		{"cas/update_if_condition", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok || e.Exec("INSERT INTO "+tbl+" (k, v, n) VALUES (1, 'a', 1)") != nil {
				return
			}
			var v string
			applied, err := e.Session.Query("UPDATE "+tbl+" SET n = ? WHERE k = ? IF v = ?", 2, 1, "a").ScanCAS(&v)
			e.R.Record("applied", err, applied, v)
			applied, err = e.Session.Query("UPDATE "+tbl+" SET n = ? WHERE k = ? IF v = ?", 3, 1, "zzz").ScanCAS(&v)
			e.R.Record("not applied", err, applied, v)
			applied, err = e.Session.Query("UPDATE "+tbl+" SET n = ? WHERE k = ? IF EXISTS", 4, 99).ScanCAS()
			e.R.Record("if exists on missing row", err, applied)
		}},
		{"cas/scancas_wrong_dest_count", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok || e.Exec("INSERT INTO "+tbl+" (k, v, n) VALUES (1, 'a', 1)") != nil {
				return
			}
			var a int
			applied, err := e.Session.Query("INSERT INTO " + tbl + " (k, v, n) VALUES (1, 'b', 2) IF NOT EXISTS").ScanCAS(&a)
			e.R.Record("scancas", err, applied)
		}},
		{"cas/mapscancas", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			m := map[string]any{}
			applied, err := e.Session.Query("INSERT INTO " + tbl + " (k, v, n) VALUES (1, 'a', 1) IF NOT EXISTS").MapScanCAS(m)
			e.R.Record("first", err, applied, m)
			m = map[string]any{}
			applied, err = e.Session.Query("INSERT INTO " + tbl + " (k, v, n) VALUES (1, 'b', 2) IF NOT EXISTS").MapScanCAS(m)
			e.R.Record("second", err, applied, m)
		}},
		{"cas/batch_cas", func(e *Env) {
			tbl := e.Table("blwt")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch)
			b.Query("INSERT INTO " + tbl + " (p, c, v) VALUES (1, 1, 'a') IF NOT EXISTS")
			b.Query("INSERT INTO " + tbl + " (p, c, v) VALUES (1, 2, 'b') IF NOT EXISTS")
			applied, it, err := e.Session.ExecuteBatchCAS(b)
			e.R.Record("first", err, applied, it != nil)
			if it != nil {
				e.R.Record("first close", it.Close())
			}
			b2 := e.Session.NewBatch(gocql.LoggedBatch)
			b2.Query("INSERT INTO " + tbl + " (p, c, v) VALUES (1, 1, 'x') IF NOT EXISTS")
			var p, c int
			var v string
			applied, it, err = e.Session.ExecuteBatchCAS(b2, &p, &c, &v)
			e.R.Record("second", err, applied, p, c, v)
			if it != nil {
				e.R.Record("second close", it.Close())
			}
			m := map[string]any{}
			applied, it, err = e.Session.MapExecuteBatchCAS(b2, m)
			e.R.Record("map", err, applied, m)
			if it != nil {
				e.R.Record("map close", it.Close())
			}
		}},
	}
}

func batchScenarios() []Scenario {
	return []Scenario{
		{"batch/logged_unlogged", func(e *Env) {
			tbl := e.Table("b")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))") != nil {
				return
			}
			for _, typ := range []gocql.BatchType{gocql.LoggedBatch, gocql.UnloggedBatch} {
				b := e.Session.NewBatch(typ)
				for i := 0; i < 3; i++ {
					b.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?)", int(typ), i, "x")
				}
				b.Query("INSERT INTO " + tbl + " (p, c, v) VALUES (9, 9, 'literal')")
				e.R.Record("batch", e.Session.ExecuteBatch(b), int(typ), b.Size())
			}
			var n int
			err := e.Session.Query("SELECT COUNT(*) FROM " + tbl).Scan(&n)
			e.R.Record("count", err, n)
		}},
		{"batch/counter", func(e *Env) {
			tbl := e.Table("cnt")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, c counter)") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.CounterBatch)
			b.Query("UPDATE "+tbl+" SET c = c + ? WHERE k = ?", 5, 1)
			b.Query("UPDATE "+tbl+" SET c = c - ? WHERE k = ?", 2, 1)
			e.R.Record("counter batch", e.Session.ExecuteBatch(b))
			e.R.Record("counter update", e.Session.Query("UPDATE "+tbl+" SET c = c + 10 WHERE k = ?", 1).Exec())
			var c int64
			err := e.Session.Query("SELECT c FROM "+tbl+" WHERE k = ?", 1).Scan(&c)
			e.R.Record("value", err, c)
		}},
		{"batch/counter_in_logged_batch_is_invalid", func(e *Env) {
			tbl := e.Table("cnt")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, c counter)") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch)
			b.Query("UPDATE "+tbl+" SET c = c + 1 WHERE k = ?", 1)
			e.R.Record("batch", e.Session.ExecuteBatch(b))
		}},
		{"batch/empty_and_idempotence", func(e *Env) {
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			e.R.Record("empty idempotent", nil, b.IsIdempotent(), b.Size())
			// The server runs an empty batch; a conditional one returns no rows.
			e.R.Record("execute empty", e.Session.ExecuteBatch(b))
			applied, iter, err := e.Session.ExecuteBatchCAS(e.Session.NewBatch(gocql.LoggedBatch))
			e.R.Record("execute empty CAS", err, applied, iter == nil)
			b.Query("INSERT INTO nowhere (k) VALUES (1)")
			e.R.Record("with query entry", nil, b.IsIdempotent())
		}},
		{"batch/syntax_error_entry", func(e *Env) {
			b := e.Session.NewBatch(gocql.LoggedBatch)
			b.Query("INSERT INTO bogus_table_x (k) VALUES (?)", 1)
			e.R.Record("batch", e.Session.ExecuteBatch(b))
		}},
	}
}
