package scenarios

import (
	"context"
	"errors"
	"time"

	"github.com/gocql/gocql"
)

// recordRequestError records the fields an application branches on: RequestError code and the
// typed error's fields.
func recordRequestError(e *Env, step string, err error) {
	var re gocql.RequestError
	isRE := errors.As(err, &re)
	code := 0
	if isRE {
		code = re.Code()
	}
	e.R.Record(step, err, isRE, code)
}

func errorMoreScenarios() []Scenario {
	return []Scenario{
		{"errors/already_exists_keyspace", func(e *Env) {
			err := e.Session.Query("CREATE KEYSPACE " + e.Keyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec()
			var ae *gocql.RequestErrAlreadyExists
			ok := errors.As(err, &ae)
			e.R.Record("create existing keyspace", err, ok)
			if ok {
				e.R.Record("fields", nil, ae.Keyspace, ae.Table)
			}
			e.R.Record("if not exists", e.Session.Query("CREATE KEYSPACE IF NOT EXISTS "+e.Keyspace+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec())
		}},
		{"errors/already_exists_type_and_index", func(e *Env) {
			tbl := e.Table("aei")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil || e.Exec("CREATE TYPE "+tbl+"_t (a int)") != nil {
				return
			}
			recordRequestError(e, "type again", e.Session.Query("CREATE TYPE "+tbl+"_t (a int)").Exec())
		}},
		{"errors/drop_missing", func(e *Env) {
			recordRequestError(e, "drop table", e.Session.Query("DROP TABLE no_such_table_drop").Exec())
			recordRequestError(e, "drop table if exists", e.Session.Query("DROP TABLE IF EXISTS no_such_table_drop").Exec())
			recordRequestError(e, "drop keyspace", e.Session.Query("DROP KEYSPACE no_such_keyspace_drop").Exec())
			recordRequestError(e, "drop keyspace if exists", e.Session.Query("DROP KEYSPACE IF EXISTS no_such_keyspace_drop").Exec())
		}},
		{"errors/bad_replication", func(e *Env) {
			ks := e.Keyspace + "_repl"
			defer e.Session.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
			recordRequestError(e, "unknown strategy", e.Session.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'NoSuchStrategy'}").Exec())
			recordRequestError(e, "unknown option", e.Session.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1, 'bogus': 2}").Exec())
			recordRequestError(e, "bad factor", e.Session.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 'x'}").Exec())
		}},
		{"errors/unknown_column_prepared", func(e *Env) {
			tbl := e.Table("uc")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			recordRequestError(e, "select prepared", e.Session.Query("SELECT nope FROM "+tbl+" WHERE k = ?", 1).Exec())
			recordRequestError(e, "insert prepared", e.Session.Query("INSERT INTO "+tbl+" (k, nope) VALUES (?, ?)", 1, 2).Exec())
			recordRequestError(e, "update literal", e.Session.Query("UPDATE "+tbl+" SET nope = 1 WHERE k = 1").Exec())
			it := e.Session.Query("SELECT nope FROM "+tbl+" WHERE k = ?", 1).Iter()
			var x int
			e.R.Record("iter scan", nil, it.Scan(&x))
			recordRequestError(e, "iter close", it.Close())
		}},
		{"errors/unknown_function_and_type", func(e *Env) {
			recordRequestError(e, "function", e.Session.Query("SELECT no_such_fn(key) FROM system.local").Exec())
			recordRequestError(e, "type", e.Session.Query("CREATE TABLE uft_x (k no_such_type PRIMARY KEY)").Exec())
		}},
		{"errors/invalid_queries", func(e *Env) {
			tbl := e.Table("iq")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v int, PRIMARY KEY (p, c))") != nil {
				return
			}
			recordRequestError(e, "order by non clustering", e.Session.Query("SELECT * FROM "+tbl+" WHERE p = 1 ORDER BY v").Exec())
			recordRequestError(e, "range on partition key", e.Session.Query("SELECT * FROM "+tbl+" WHERE p > 1").Exec())
			recordRequestError(e, "update primary key", e.Session.Query("UPDATE "+tbl+" SET c = 2 WHERE p = 1 AND c = 1").Exec())
			recordRequestError(e, "negative limit", e.Session.Query("SELECT * FROM "+tbl+" LIMIT 0").Exec())
			recordRequestError(e, "null partition key bound", e.Session.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?)", nil, 1, 1).Exec())
		}},
		{"errors/unknown_keyspace_variants", func(e *Env) {
			recordRequestError(e, "insert", e.Session.Query("INSERT INTO no_such_ks_y.t (k) VALUES (1)").Exec())
			recordRequestError(e, "create table", e.Session.Query("CREATE TABLE no_such_ks_y.t (k int PRIMARY KEY)").Exec())
			_, err := e.Session.KeyspaceMetadata("no_such_ks_y")
			e.R.Record("metadata", err, err == gocql.ErrKeyspaceDoesNotExist)
		}},
		{"errors/truncate", func(e *Env) {
			tbl := e.Table("tr")
			if !fill(e, tbl, 3) {
				return
			}
			e.R.Record("truncate", e.Session.Query("TRUNCATE "+tbl).Exec())
			var n int64
			err := e.Session.Query("SELECT count(*) FROM " + tbl).Scan(&n)
			e.R.Record("count", err, n)
			recordRequestError(e, "truncate missing", e.Session.Query("TRUNCATE no_such_table_tr").Exec())
		}},
		{"errors/alter_table", func(e *Env) {
			tbl := e.Table("alt")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			e.R.Record("add column", e.Session.Query("ALTER TABLE "+tbl+" ADD w text").Exec())
			recordRequestError(e, "add existing", e.Session.Query("ALTER TABLE "+tbl+" ADD w text").Exec())
			recordRequestError(e, "drop missing", e.Session.Query("ALTER TABLE "+tbl+" DROP nope").Exec())
			e.R.Record("insert new column", e.Session.Query("INSERT INTO "+tbl+" (k, v, w) VALUES (?, ?, ?)", 1, 2, "w").Exec())
			var w string
			err := e.Session.Query("SELECT w FROM "+tbl+" WHERE k = ?", 1).Scan(&w)
			e.R.Record("read new column", err, w)
		}},
	}
}

func contextMoreScenarios() []Scenario {
	return []Scenario{
		{"context/iter_cancelled", func(e *Env) {
			ctx, cancel := context.WithCancel(e.Ctx)
			cancel()
			it := e.Session.Query("SELECT key FROM system.local").WithContext(ctx).Iter()
			var k string
			e.R.Record("scan", nil, it.Scan(&k))
			err := it.Close()
			e.R.Record("close", err, errors.Is(err, context.Canceled))
		}},
		{"context/scan_and_mapscan_cancelled", func(e *Env) {
			ctx, cancel := context.WithCancel(e.Ctx)
			cancel()
			var k string
			err := e.Session.Query("SELECT key FROM system.local").WithContext(ctx).Scan(&k)
			e.R.Record("scan", err, errors.Is(err, context.Canceled))
			m := map[string]any{}
			err = e.Session.Query("SELECT key FROM system.local").WithContext(ctx).MapScan(m)
			e.R.Record("mapscan", err, errors.Is(err, context.Canceled), m)
			applied, err := e.Session.Query("UPDATE x SET v = 1 WHERE k = 1 IF EXISTS").WithContext(ctx).ScanCAS()
			e.R.Record("scancas", err, applied, errors.Is(err, context.Canceled))
		}},
		{"context/batch_deadline_passed", func(e *Env) {
			ctx, cancel := context.WithDeadline(e.Ctx, time.Now().Add(-time.Second))
			defer cancel()
			b := e.Session.NewBatch(gocql.LoggedBatch).WithContext(ctx)
			b.Query("INSERT INTO x (k) VALUES (1)")
			err := e.Session.ExecuteBatch(b)
			e.R.Record("batch", err, errors.Is(err, context.DeadlineExceeded))
			applied, _, err := e.Session.ExecuteBatchCAS(b)
			e.R.Record("batch cas", err, applied, errors.Is(err, context.DeadlineExceeded))
		}},
		{"context/cancel_between_pages", func(e *Env) {
			tbl := e.Table("cx")
			if !fill(e, tbl, 6) {
				return
			}
			ctx, cancel := context.WithCancel(e.Ctx)
			defer cancel()
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(2).Prefetch(0).WithContext(ctx).Iter()
			var c int
			e.R.Record("first row", nil, it.Scan(&c), c)
			cancel()
			e.R.Record("second row (same page)", nil, it.Scan(&c), c)
			e.R.Record("third row (next page)", nil, it.Scan(&c))
			err := it.Close()
			e.R.Record("close", err, errors.Is(err, context.Canceled))
		}},
		{"context/generous_deadline", func(e *Env) {
			ctx, cancel := context.WithTimeout(e.Ctx, time.Minute)
			defer cancel()
			var k string
			err := e.Session.Query("SELECT key FROM system.local").WithContext(ctx).Scan(&k)
			e.R.Record("scan", err, k)
			b := e.Session.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
			e.R.Record("batch copy", nil, b.Context() == ctx)
		}},
		{"context/batch_with_context_copies", func(e *Env) {
			b := e.Session.NewBatch(gocql.LoggedBatch)
			b2 := b.WithContext(e.Ctx)
			b2.Query("INSERT INTO x (k) VALUES (1)")
			b2.SetConsistency(gocql.All)
			e.R.Record("copy", nil, b != b2, b.Size(), b2.Size(), b.GetConsistency(), b2.GetConsistency())
		}},
	}
}
