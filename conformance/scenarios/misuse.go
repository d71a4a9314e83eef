package scenarios

import (
	"context"
)

// misuseScenarios cover API misuse on which gocql v1.7.0 panics and the shim returns an
// error (docs/deviations.md G41); each is a pinned deviation.
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
		{"session/await_schema_agreement_nil_context", func(e *Env) {
			//lint:ignore SA1012 the nil context is the case
			e.R.Record("await", e.Session.AwaitSchemaAgreement(nilContext()))
		}},
	}
}

// nilContext returns a nil context (a variable, so that vet does not flag the call).
func nilContext() context.Context { return nil }
