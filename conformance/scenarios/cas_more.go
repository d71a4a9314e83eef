package scenarios

import "github.com/gocql/gocql"

func casMoreScenarios() []Scenario {
	lwtTable := func(e *Env) (string, bool) {
		tbl := e.Table("lwt")
		if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text, n int)") != nil {
			return "", false
		}
		return tbl, e.Exec("INSERT INTO "+tbl+" (k, v, n) VALUES (1, 'a', 1)") == nil
	}
	return []Scenario{
		{"cas/delete_if_exists", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			applied, err := e.Session.Query("DELETE FROM "+tbl+" WHERE k = ? IF EXISTS", 1).ScanCAS()
			e.R.Record("delete existing", err, applied)
			applied, err = e.Session.Query("DELETE FROM "+tbl+" WHERE k = ? IF EXISTS", 1).ScanCAS()
			e.R.Record("delete missing", err, applied)
		}},
		{"cas/multiple_conditions_not_applied", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			var v string
			var n int
			applied, err := e.Session.Query("UPDATE "+tbl+" SET n = 5 WHERE k = 1 IF v = ? AND n = ?", "a", 2).ScanCAS(&v, &n)
			e.R.Record("not applied", err, applied, v, n)
			m := map[string]any{}
			applied, err = e.Session.Query("UPDATE "+tbl+" SET n = 5 WHERE k = 1 IF v = ? AND n = ?", "b", 1).MapScanCAS(m)
			e.R.Record("map not applied", err, applied, m)
			applied, err = e.Session.Query("UPDATE "+tbl+" SET n = 5 WHERE k = 1 IF v = ? AND n = ?", "a", 1).ScanCAS(&v, &n)
			e.R.Record("applied", err, applied)
			applied, err = e.Session.Query("UPDATE "+tbl+" SET n = 6 WHERE k = 1 IF n > ?", 3).ScanCAS(&n)
			e.R.Record("comparison applied", err, applied)
			applied, err = e.Session.Query("UPDATE "+tbl+" SET n = 6 WHERE k = 1 IF n IN (?, ?)", 1, 2).ScanCAS(&n)
			e.R.Record("in not applied", err, applied, n)
		}},
		{"cas/mapscancas_non_lwt", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			m := map[string]any{}
			// gocql v1.7.0 panics here (no [applied] column); the shim returns an error (G2).
			applied, err := e.Session.Query("SELECT k, v FROM "+tbl+" WHERE k = ?", 1).MapScanCAS(m)
			e.R.Record("mapscancas on select", err, applied, m)
		}},
		{"cas/scancas_on_select", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			var v string
			applied, err := e.Session.Query("SELECT v, n FROM "+tbl+" WHERE k = ?", 1).ScanCAS(&v)
			e.R.Record("scancas two columns", err, applied, v)
			applied, err = e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 9).ScanCAS(&v)
			e.R.Record("scancas no rows", err, applied, err == gocql.ErrNotFound)
		}},
		{"cas/serial_consistency", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			for _, sc := range []gocql.SerialConsistency{gocql.Serial, gocql.LocalSerial} {
				var v string
				applied, err := e.Session.Query("UPDATE "+tbl+" SET n = 1 WHERE k = 1 IF v = ?", "a").SerialConsistency(sc).ScanCAS(&v)
				e.R.Record("lwt "+sc.String(), err, applied)
			}
			var n int
			err := e.Session.Query("SELECT n FROM "+tbl+" WHERE k = ?", 1).Consistency(gocql.Consistency(gocql.Serial)).Scan(&n)
			e.R.Record("serial read", err, n)
			err = e.Session.Query("SELECT n FROM "+tbl+" WHERE k = ?", 1).Consistency(gocql.Consistency(gocql.LocalSerial)).Scan(&n)
			e.R.Record("local serial read", err, n)
			err = e.Session.Query("INSERT INTO " + tbl + " (k, v) VALUES (5, 'x')").Consistency(gocql.Consistency(gocql.Serial)).Exec()
			e.R.Record("serial write (invalid)", err)
		}},
		{"cas/insert_if_not_exists_with_ttl", func(e *Env) {
			tbl, ok := lwtTable(e)
			if !ok {
				return
			}
			var k, n int
			var v string
			applied, err := e.Session.Query("INSERT INTO "+tbl+" (k, v, n) VALUES (?, ?, ?) IF NOT EXISTS USING TTL 5000", 2, "t", 2).ScanCAS(&k, &v, &n)
			e.R.Record("applied", err, applied)
			var ttl int
			err = e.Session.Query("SELECT ttl(v) FROM "+tbl+" WHERE k = ?", 2).Scan(&ttl)
			e.R.Record("ttl in (4900, 5000]", err, ttl > 4900 && ttl <= 5000)
		}},
		{"cas/batch_cas_not_applied_rows", func(e *Env) {
			tbl := e.Table("blwt")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))") != nil {
				return
			}
			if e.Exec("INSERT INTO "+tbl+" (p, c, v) VALUES (1, 1, 'one')") != nil || e.Exec("INSERT INTO "+tbl+" (p, c, v) VALUES (1, 2, 'two')") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch)
			b.Query("UPDATE "+tbl+" SET v = 'x' WHERE p = 1 AND c = 1 IF v = ?", "nope")
			b.Query("UPDATE "+tbl+" SET v = 'y' WHERE p = 1 AND c = 2 IF v = ?", "two")
			var p, c int
			var v string
			applied, it, err := e.Session.ExecuteBatchCAS(b, &p, &c, &v)
			e.R.Record("batch", err, applied, p, c, v)
			if it != nil {
				var more bool
				for it.Scan(&more, &p, &c, &v) {
					e.R.Record("next row", nil, more, p, c, v)
				}
				e.R.Record("close", it.Close())
			}
			rows, err := e.Session.Query("SELECT c, v FROM " + tbl + " WHERE p = 1").Iter().SliceMap()
			e.R.Record("unchanged", err, rows)
		}},
		{"cas/batch_cas_mixed_applied", func(e *Env) {
			tbl := e.Table("blwt")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			b.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 1, 1, "a")
			b.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?)", 1, 2, "b")
			applied, it, err := e.Session.ExecuteBatchCAS(b)
			e.R.Record("applied", err, applied)
			if it != nil {
				e.R.Record("close", it.Close())
			}
			m := map[string]any{}
			applied, it, err = e.Session.MapExecuteBatchCAS(b, m)
			e.R.Record("again (not applied)", err, applied, m)
			if it != nil {
				e.R.Record("close", it.Close())
			}
			b2 := e.Session.NewBatch(gocql.LoggedBatch)
			b2.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 2, 1, "a")
			b2.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 3, 1, "a")
			applied, _, err = e.Session.ExecuteBatchCAS(b2)
			e.R.Record("conditions on two partitions", err, applied)
		}},
	}
}
