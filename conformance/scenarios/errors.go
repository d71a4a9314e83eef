package scenarios

import (
	"context"
	"errors"
	"time"

	"github.com/gocql/gocql"
)

func errorScenarios() []Scenario {
	return []Scenario{
		{"errors/syntax", func(e *Env) {
			err := e.Session.Query("SELEKT * FROM nothing").Exec()
			var re gocql.RequestError
			e.R.Record("exec", err, errors.As(err, &re))
		}},
		{"errors/unknown_table", func(e *Env) {
			e.R.Record("select", e.Session.Query("SELECT * FROM no_such_table_x").Exec())
			e.R.Record("insert prepared", e.Session.Query("INSERT INTO no_such_table_x (k) VALUES (?)", 1).Exec())
		}},
		{"errors/unknown_keyspace", func(e *Env) {
			e.R.Record("select", e.Session.Query("SELECT * FROM no_such_ks_x.t").Exec())
		}},
		{"errors/already_exists", func(e *Env) {
			tbl := e.Table("ae")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY)") != nil {
				return
			}
			err := e.Session.Query("CREATE TABLE " + tbl + " (k int PRIMARY KEY)").Exec()
			var ae *gocql.RequestErrAlreadyExists
			ok := errors.As(err, &ae)
			e.R.Record("create again", err, ok)
			if ok {
				e.R.Record("fields", nil, ae.Table, ae.Code())
			}
			e.R.Record("if not exists", e.Session.Query("CREATE TABLE IF NOT EXISTS "+tbl+" (k int PRIMARY KEY)").Exec())
		}},
		{"errors/missing_partition_key", func(e *Env) {
			tbl := e.Table("mpk")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v int, PRIMARY KEY (p, c))") != nil {
				return
			}
			e.R.Record("insert without c", e.Session.Query("INSERT INTO "+tbl+" (p, v) VALUES (?, ?)", 1, 2).Exec())
			e.R.Record("select without pk, no filtering", e.Session.Query("SELECT * FROM "+tbl+" WHERE v = ?", 2).Exec())
		}},
		{"errors/bind_count_mismatch", func(e *Env) {
			tbl := e.Table("bc")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			e.R.Record("too few", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1).Exec())
			e.R.Record("too many", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, 2, 3).Exec())
		}},
		{"errors/use_statement", func(e *Env) {
			err := e.Session.Query("USE " + e.Keyspace).Exec()
			e.R.Record("use", err, err == gocql.ErrUseStmt)
		}},
		{"errors/wrong_type_server_side", func(e *Env) {
			tbl := e.Table("wt")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			e.R.Record("literal of wrong type", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (1, 'text')").Exec())
		}},
	}
}

func contextScenarios() []Scenario {
	return []Scenario{
		{"context/cancelled_before", func(e *Env) {
			ctx, cancel := context.WithCancel(e.Ctx)
			cancel()
			err := e.Session.Query("SELECT key FROM system.local").WithContext(ctx).Exec()
			e.R.Record("exec", err, errors.Is(err, context.Canceled))
		}},
		{"context/deadline_passed", func(e *Env) {
			ctx, cancel := context.WithDeadline(e.Ctx, time.Now().Add(-time.Second))
			defer cancel()
			err := e.Session.Query("SELECT key FROM system.local").WithContext(ctx).Exec()
			e.R.Record("exec", err, errors.Is(err, context.DeadlineExceeded))
		}},
		{"context/with_context_copies", func(e *Env) {
			q := e.Session.Query("SELECT key FROM system.local").Consistency(gocql.One)
			q2 := q.WithContext(e.Ctx)
			q2.Consistency(gocql.All)
			e.R.Record("original unchanged", nil, q != q2, q.GetConsistency(), q2.GetConsistency())
			e.R.Record("context", nil, q2.Context() == e.Ctx)
		}},
		{"context/batch_cancelled", func(e *Env) {
			ctx, cancel := context.WithCancel(e.Ctx)
			cancel()
			b := e.Session.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
			b.Query("INSERT INTO x (k) VALUES (1)")
			err := e.Session.ExecuteBatch(b)
			e.R.Record("batch", err, errors.Is(err, context.Canceled))
		}},
	}
}

// recorderObserver records observed queries and batches (fields that do not depend on timing or
// on which host answered).
type recorderObserver struct{ e *Env }

func (o recorderObserver) ObserveQuery(ctx context.Context, q gocql.ObservedQuery) {
	o.e.R.Record("observed query", q.Err, q.Keyspace, q.Statement, q.Values, q.Rows, q.Attempt, q.Host != nil, !q.End.Before(q.Start))
}

func (o recorderObserver) ObserveBatch(ctx context.Context, b gocql.ObservedBatch) {
	o.e.R.Record("observed batch", b.Err, b.Keyspace, b.Statements, b.Values, b.Attempt, b.Host != nil)
}

func observerScenarios() []Scenario {
	return []Scenario{
		{"observer/query_pages", func(e *Env) {
			tbl := e.Table("obs")
			if !fill(e, tbl, 5) {
				return
			}
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(2).Observer(recorderObserver{e}).Iter()
			var c int
			for it.Scan(&c) {
				e.R.Record("row", nil, c)
			}
			e.R.Record("close", it.Close())
		}},
		{"observer/query_error_and_empty", func(e *Env) {
			tbl := e.Table("obs")
			if !fill(e, tbl, 0) {
				return
			}
			e.R.Record("empty", e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).Observer(recorderObserver{e}).Exec())
			e.R.Record("error", e.Session.Query("SELECT nope FROM "+tbl).Observer(recorderObserver{e}).Exec())
		}},
		{"observer/attempts_accumulate", func(e *Env) {
			q := e.Session.Query("SELECT key FROM system.local").Observer(recorderObserver{e})
			e.R.Record("first", q.Exec(), q.Attempts())
			e.R.Record("second", q.Exec(), q.Attempts())
		}},
		{"observer/cancelled_context_still_observed", func(e *Env) {
			ctx, cancel := context.WithCancel(e.Ctx)
			cancel()
			err := e.Session.Query("SELECT key FROM system.local").WithContext(ctx).Observer(recorderObserver{e}).Exec()
			e.R.Record("exec", err)
		}},
		{"observer/batch", func(e *Env) {
			tbl := e.Table("obsb")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.UnloggedBatch).Observer(recorderObserver{e})
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, 2)
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 3, 4)
			e.R.Record("batch", e.Session.ExecuteBatch(b))
		}},
	}
}
