package scenarios

import (
	"context"

	"github.com/gocql/gocql"
)

// misuseScenarios cover API misuse: where gocql v1.7.0 panics the shim returns an error
// (docs/deviations.md G41, pinned deviations); an empty statement and duplicate named
// values behave as in gocql.
func misuseScenarios() []Scenario {
	return []Scenario{
		{"iter/mapscan_nil_map", func(e *Env) {
			tbl := e.Table("it")
			if !fill(e, tbl, 2) {
				return
			}
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).Iter()
			e.R.Record("mapscan nil", nil, it.MapScan(nil))
			e.R.Record("close", it.Close())
		}},
		{"iter/scanner_next_after_err", func(e *Env) {
			tbl := e.Table("it")
			if !fill(e, tbl, 2) {
				return
			}
			sc := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).Iter().Scanner()
			e.R.Record("err", sc.Err())
			e.R.Record("next after err", nil, sc.Next())
			e.R.Record("err again", sc.Err())
		}},
		{"batch/execute_nil", func(e *Env) {
			e.R.Record("execute nil batch", e.Session.ExecuteBatch(nil))
		}},
		{"session/empty_statement", func(e *Env) {
			// Sent as it is: the server refuses it (a syntax error), in a batch too.
			e.R.Record("exec empty", e.Session.Query("").Exec())
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			b.Query("")
			e.R.Record("batch with an empty statement", e.Session.ExecuteBatch(b))
		}},
		{"bind/named_values_same_name", func(e *Env) {
			// Two values named after one column: the server binds both markers of that
			// name to the first (c > 0 AND c < 0: no row).
			tbl := e.Table("it")
			if !fill(e, tbl, 3) {
				return
			}
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? AND c > ? AND c < ?",
				gocql.NamedValue("p", 1), gocql.NamedValue("c", 0), gocql.NamedValue("c", 2)).Iter()
			var c, n int
			for it.Scan(&c) {
				n++
			}
			e.R.Record("rows", it.Close(), n)
		}},
		{"session/await_schema_agreement_nil_context", func(e *Env) {
			e.R.Record("await", e.Session.AwaitSchemaAgreement(nilContext()))
		}},
	}
}

// nilContext returns a nil context (a variable, so that vet does not flag the call).
func nilContext() context.Context { return nil }
