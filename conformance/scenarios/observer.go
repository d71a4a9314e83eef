package scenarios

import (
	"context"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// filteredObserver records only the observations whose statements mention marker (a session-wide
// observer also sees the set-up queries of the driver).
type filteredObserver struct {
	e      *Env
	marker string
}

func (o filteredObserver) ObserveQuery(ctx context.Context, q gocql.ObservedQuery) {
	if strings.Contains(q.Statement, o.marker) {
		recorderObserver{o.e}.ObserveQuery(ctx, q)
		o.e.R.Record("observed metrics", nil, q.Metrics != nil && q.Metrics.Attempts >= 1)
	}
}

func (o filteredObserver) ObserveBatch(ctx context.Context, b gocql.ObservedBatch) {
	for _, s := range b.Statements {
		if strings.Contains(s, o.marker) {
			recorderObserver{o.e}.ObserveBatch(ctx, b)
			return
		}
	}
}

func observerMoreScenarios() []Scenario {
	return []Scenario{
		{"observer/context_live_after_exec", func(e *Env) {
			tbl := e.Table("obsctx")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			// An observer that keeps the context it is given (to export the observation later)
			// finds the statement's own context, still live after the execution, also for an
			// idempotent statement with a speculative execution policy.
			kept := &keptContexts{}
			spec := &gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: time.Minute}
			type key struct{}
			ctx := context.WithValue(context.Background(), key{}, "mine")
			q := e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, 1).WithContext(ctx).
				Idempotent(true).SetSpeculativeExecutionPolicy(spec).Observer(kept)
			e.R.Record("insert", q.Exec())
			b := e.Session.NewBatch(gocql.UnloggedBatch).WithContext(ctx).SpeculativeExecutionPolicy(spec).Observer(kept)
			b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: "INSERT INTO " + tbl + " (k, v) VALUES (2, 2)", Idempotent: true})
			e.R.Record("batch", e.Session.ExecuteBatch(b))
			for i, c := range kept.ctxs {
				e.R.Record("kept context", c.Err(), i, c.Value(key{}))
			}
		}},
		{"observer/session_observers", func(e *Env) {
			tbl := e.Table("obss")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			c := e.Cluster()
			obs := filteredObserver{e, tbl}
			c.QueryObserver = obs
			c.BatchObserver = obs
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			e.R.Record("insert", s.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, 10).Exec())
			var v int
			e.R.Record("select", s.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Scan(&v), v)
			b := s.NewBatch(gocql.LoggedBatch)
			b.Query("UPDATE "+tbl+" SET v = ? WHERE k = ?", 11, 1)
			b.Query("DELETE FROM " + tbl + " WHERE k = 2")
			e.R.Record("batch", s.ExecuteBatch(b))
		}},
		{"observer/values_rows_and_statement", func(e *Env) {
			tbl := e.Table("obsv")
			if !fill(e, tbl, 4) {
				return
			}
			q := e.Session.Query("SELECT c, v FROM "+tbl+" WHERE p = ? AND c > ?", 1, 0).Observer(recorderObserver{e})
			rows, err := q.Iter().SliceMap()
			e.R.Record("rows", err, len(rows))
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?)", 2, 2, nil).Observer(recorderObserver{e}).Exec())
		}},
		{"observer/scancas_and_scan", func(e *Env) {
			tbl := e.Table("obsc")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			applied, err := e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?) IF NOT EXISTS", 1, "a").Observer(recorderObserver{e}).ScanCAS()
			e.R.Record("scancas", err, applied)
			var v string
			err = e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 2).Observer(recorderObserver{e}).Scan(&v)
			e.R.Record("scan not found", err)
		}},
		{"observer/keyspace_is_session_keyspace", func(e *Env) {
			c := e.Cluster()
			c.Keyspace = ""
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			e.R.Record("exec", s.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", e.Keyspace).Observer(recorderObserver{e}).Exec())
		}},
		{"observer/batch_cas_observed", func(e *Env) {
			tbl := e.Table("obsbc")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.LoggedBatch).Observer(recorderObserver{e})
			b.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 1, 1, "a")
			applied, it, err := e.Session.ExecuteBatchCAS(b)
			e.R.Record("batch cas", err, applied)
			if it != nil {
				e.R.Record("close", it.Close())
			}
		}},
	}
}

// keptContexts is an observer that keeps the contexts it is given.
type keptContexts struct{ ctxs []context.Context }

func (k *keptContexts) ObserveQuery(ctx context.Context, _ gocql.ObservedQuery) {
	k.ctxs = append(k.ctxs, ctx)
}

func (k *keptContexts) ObserveBatch(ctx context.Context, _ gocql.ObservedBatch) {
	k.ctxs = append(k.ctxs, ctx)
}
