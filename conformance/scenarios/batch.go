package scenarios

import (
	"github.com/gocql/gocql"
)

func batchMoreScenarios() []Scenario {
	kvTable := func(e *Env) (string, bool) {
		tbl := e.Table("bt")
		return tbl, e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") == nil
	}
	return []Scenario{
		{"batch/builders_and_getters", func(e *Env) {
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			e.R.Record("defaults", nil, b.GetConsistency(), b.Size(), b.Attempts(), b.Keyspace(), b.Type)
			b.Query("INSERT INTO t (k) VALUES (?)", 1)
			b.Query("INSERT INTO t (k) VALUES (2)")
			b.SetConsistency(gocql.Quorum)
			same := b.WithTimestamp(77) == b && b.SerialConsistency(gocql.LocalSerial) == b && b.DefaultTimestamp(true) == b
			var stmts []string
			var args [][]any
			for _, en := range b.Entries {
				stmts = append(stmts, en.Stmt)
				args = append(args, en.Args)
			}
			e.R.Record("built", nil, same, b.GetConsistency(), b.Size(), stmts, args, b.IsIdempotent())
			b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: "INSERT INTO t (k) VALUES (3)", Idempotent: true})
			e.R.Record("appended entry", nil, b.Size(), b.IsIdempotent())
			ib := e.Session.NewBatch(gocql.LoggedBatch)
			ib.Entries = append(ib.Entries, gocql.BatchEntry{Stmt: "INSERT INTO t (k) VALUES (3)", Idempotent: true})
			e.R.Record("all idempotent entries", nil, ib.IsIdempotent())
		}},
		{"batch/with_timestamp", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch).WithTimestamp(1234567)
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, "a")
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?) USING TIMESTAMP 99", 2, "b")
			e.R.Record("batch", e.Session.ExecuteBatch(b))
			rows, err := e.Session.Query("SELECT k, writetime(v) FROM " + tbl + " WHERE k IN (1, 2)").Iter().SliceMap()
			e.R.Record("writetimes", err, rows)
		}},
		{"batch/using_ttl_entries", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?) USING TTL 3000", 1, "a")
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 2, "b")
			e.R.Record("batch", e.Session.ExecuteBatch(b))
			for k := 1; k <= 2; k++ {
				var ttl *int
				err := e.Session.Query("SELECT ttl(v) FROM "+tbl+" WHERE k = ?", k).Scan(&ttl)
				e.R.Record("ttl set, in (2900, 3000]", err, k, ttl != nil, ttl != nil && *ttl > 2900 && *ttl <= 3000)
			}
		}},
		{"batch/deprecated_new_batch", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			//lint:ignore SA1019 the deprecated constructor is the case
			b := gocql.NewBatch(gocql.LoggedBatch)
			e.R.Record("no session defaults", nil, b.GetConsistency(), b.Keyspace(), b.Size())
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, "old")
			b.SetConsistency(gocql.One)
			e.R.Record("execute", e.Session.ExecuteBatch(b))
			var v string
			err := e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Scan(&v)
			e.R.Record("read", err, v)
		}},
		{"batch/too_many_statements", func(e *Env) {
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			for i := 0; i <= 65535; i++ {
				b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: "INSERT INTO t (k) VALUES (1)"})
			}
			err := e.Session.ExecuteBatch(b)
			e.R.Record("batch", err, err == gocql.ErrTooManyStmts, b.Size())
		}},
		{"batch/counter_batch_mixed_invalid", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			b := e.Session.NewBatch(gocql.CounterBatch)
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, "x")
			e.R.Record("regular insert in counter batch", e.Session.ExecuteBatch(b))
		}},
		{"batch/counter_with_observer", func(e *Env) {
			tbl := e.Table("cntb")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, c counter)") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.CounterBatch).Observer(recorderObserver{e})
			b.Query("UPDATE "+tbl+" SET c = c + ? WHERE k = ?", int64(7), 1)
			b.Query("UPDATE " + tbl + " SET c = c + 1 WHERE k = 2")
			e.R.Record("counter batch", e.Session.ExecuteBatch(b), b.Attempts())
			rows, err := e.Session.Query("SELECT k, c FROM " + tbl + " WHERE k IN (1, 2)").Iter().SliceMap()
			e.R.Record("values", err, rows)
		}},
		{"batch/unlogged_with_observer", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			b := e.Session.NewBatch(gocql.UnloggedBatch).Observer(recorderObserver{e})
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, "a")
			b.Query("INSERT INTO " + tbl + " (k, v) VALUES (2, 'b')")
			e.R.Record("batch", e.Session.ExecuteBatch(b))
			e.R.Record("again", e.Session.ExecuteBatch(b), b.Attempts())
		}},
		{"batch/bind_count_mismatch", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch)
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1)
			e.R.Record("batch", e.Session.ExecuteBatch(b))
		}},
		{"batch/same_row_last_wins", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch)
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, "first")
			b.Query("UPDATE "+tbl+" SET v = ? WHERE k = ?", "second", 1)
			b.Query("DELETE FROM "+tbl+" WHERE k = ?", 2)
			e.R.Record("batch", e.Session.ExecuteBatch(b))
			rows, err := e.Session.Query("SELECT k, v FROM " + tbl).Iter().SliceMap()
			e.R.Record("rows", err, rows)
		}},
		{"batch/observer_error_and_attempts", func(e *Env) {
			tbl, ok := kvTable(e)
			if !ok {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch).Observer(recorderObserver{e})
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, "a")
			b.Query("INSERT INTO "+tbl+" (k, nope) VALUES (?, ?)", 2, "b")
			e.R.Record("failing batch", e.Session.ExecuteBatch(b), b.Attempts())
			b.Entries = b.Entries[:1]
			e.R.Record("same batch fixed", e.Session.ExecuteBatch(b), b.Attempts())
		}},
	}
}
