package scenarios

import (
	"context"
	"errors"
	"time"

	"github.com/gocql/gocql"
)

// legacyCScenarios pin items of section C of the legacy-semantics catalogue (gocql v1.7.0)
// that no other scenario compared: what a WithContext copy shares with its query (C2), the
// state of an iterator whose next page failed (C15), Query.Scan reading the first page only
// (C22), a done context ending the retry loop (C28), statements that never reach a node not
// being observed (C33), the session defaults a batch takes (C37), and which batch entries are
// prepared (C38).
func legacyCScenarios() []Scenario {
	return []Scenario{
		{"context/with_context_shares_values_and_routing", func(e *Env) {
			tbl := e.Table("wcs")
			if !fill(e, tbl, 2) {
				return
			}
			q := e.Session.Query("SELECT v FROM "+tbl+" WHERE p = ? AND c = ?", 1, 0)
			c := q.WithContext(e.Ctx)
			// The copy shares the values slice: a value changed through it is the original's.
			c.Values()[1] = 1
			e.R.Record("values", nil, q.Values(), c.Values())
			// It shares the routing information too: what the copy learns, the original reports.
			_, err := c.GetRoutingKey()
			e.R.Record("routing key of the copy", err, q.Table() == tbl, c.Table() == tbl, q.Keyspace() == e.Keyspace)
			var v string
			e.R.Record("scan copy", c.Scan(&v), v, q.Attempts(), c.Attempts())
			q.Cancel() // deprecated, does nothing
			e.R.Record("scan original after Cancel", q.Scan(&v), v, q.Attempts(), c.Attempts())
			// A batch's copy shares its metrics likewise.
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			b.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?)", 2, 0, "b")
			b2 := b.WithContext(e.Ctx)
			e.R.Record("batch copy executed", e.Session.ExecuteBatch(b2), b.Attempts(), b2.Attempts())
		}},
		{"paging/next_page_failure_state", func(e *Env) {
			tbl := e.Table("npf")
			if !fill(e, tbl, 4) {
				return
			}
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(2).Prefetch(0).Iter()
			var c int
			for i := 0; i < 2; i++ {
				e.R.Record("row", nil, it.Scan(&c), c)
			}
			recordIterState(e, "end of first page", it)
			// The table disappears between the pages: the fetch of the second page fails.
			if e.Exec("DROP TABLE "+tbl) != nil {
				return
			}
			e.R.Record("scan into the failed page", nil, it.Scan(&c))
			e.R.Record("failed page state", nil, len(it.Columns()), it.NumRows(), len(it.PageState()), it.WillSwitchPage(), it.Host() != nil)
			e.R.Record("scan again", nil, it.Scan(&c))
			recordRequestError(e, "close", it.Close())
			recordRequestError(e, "close again", it.Close())
		}},
		{"iter/query_scan_first_page_only", func(e *Env) {
			tbl := e.Table("qsf")
			if !fill(e, tbl, 5) {
				return
			}
			q := e.Session.Query("SELECT c, v FROM "+tbl+" WHERE p = ?", 1).PageSize(2).Observer(recorderObserver{e})
			var c int
			var v string
			e.R.Record("scan", q.Scan(&c, &v), c, v, q.Attempts())
			m := map[string]any{}
			q = e.Session.Query("SELECT c, v FROM "+tbl+" WHERE p = ?", 1).PageSize(2).Observer(recorderObserver{e})
			e.R.Record("mapscan", q.MapScan(m), m, q.Attempts())
			applied, err := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(2).Observer(recorderObserver{e}).ScanCAS(&v)
			e.R.Record("scancas", err, applied, v)
		}},
		{"retry/done_context_not_retried", func(e *Env) {
			const bad = "SELECT nope FROM system.local"
			cancelled, cancel := context.WithCancel(e.Ctx)
			cancel()
			for _, typ := range []gocql.RetryType{gocql.Retry, gocql.RetryNextHost} {
				q := e.Session.Query(bad).WithContext(cancelled).RetryPolicy(fixedRetry{3, typ}).Observer(recorderObserver{e})
				err := q.Exec()
				e.R.Record("cancelled", err, errors.Is(err, context.Canceled), q.Attempts())
			}
			expired, cancel2 := context.WithDeadline(e.Ctx, time.Now().Add(-time.Second))
			defer cancel2()
			q := e.Session.Query(bad).WithContext(expired).RetryPolicy(fixedRetry{3, gocql.Retry}).Observer(recorderObserver{e})
			err := q.Exec()
			e.R.Record("deadline passed", err, errors.Is(err, context.DeadlineExceeded), q.Attempts())
			b := e.Session.NewBatch(gocql.LoggedBatch).WithContext(cancelled).RetryPolicy(fixedRetry{3, gocql.Retry}).Observer(recorderObserver{e})
			b.Query("INSERT INTO no_such_table_dc (k) VALUES (1)")
			err = e.Session.ExecuteBatch(b)
			e.R.Record("batch cancelled", err, errors.Is(err, context.Canceled), b.Attempts())
		}},
		{"observer/not_called_without_execution", func(e *Env) {
			// A USE statement is refused before it is sent, a closed session sends nothing, and
			// a plan without hosts reaches no node: no attempt, so no observation.
			obs := recorderObserver{e}
			err := e.Session.Query("USE " + e.Keyspace).Observer(obs).Exec()
			e.R.Record("use", err, err == gocql.ErrUseStmt)
			if s := policySession(e, emptyPlan{gocql.RoundRobinHostPolicy()}); s != nil {
				q := s.Query("SELECT key FROM system.local").Observer(obs)
				err = q.Exec()
				e.R.Record("no host", err, err == gocql.ErrNoConnections, q.Attempts())
				b := s.NewBatch(gocql.UnloggedBatch).Observer(obs)
				b.Query("INSERT INTO no_such_table_nh (k) VALUES (1)")
				err = s.ExecuteBatch(b)
				e.R.Record("no host batch", err, err == gocql.ErrNoConnections, b.Attempts())
				s.Close()
			}
			s, err := e.Cluster().CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			s.Close()
			q := s.Query("SELECT key FROM system.local").Observer(obs)
			err = q.Exec()
			e.R.Record("closed", err, err == gocql.ErrSessionClosed, q.Attempts())
			b := s.NewBatch(gocql.UnloggedBatch).Observer(obs)
			b.Query("INSERT INTO no_such_table_nh (k) VALUES (1)")
			err = s.ExecuteBatch(b)
			e.R.Record("closed batch", err, err == gocql.ErrSessionClosed, b.Attempts())
		}},
		{"batch/session_defaults_retry_observer_tracer", func(e *Env) {
			tbl := e.Table("bsd")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			c := e.Cluster()
			c.RetryPolicy = fixedRetry{1, gocql.Retry}
			c.BatchObserver = recorderObserver{e}
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			// The session's retry policy and batch observer: the failing batch is tried twice,
			// and both attempts are observed.
			b := s.NewBatch(gocql.LoggedBatch)
			b.Query("INSERT INTO no_such_table_bsd (k) VALUES (1)")
			e.R.Record("failing batch", s.ExecuteBatch(b), b.Attempts())
			// The session's tracer, as it was when the batch was made.
			before := s.NewBatch(gocql.UnloggedBatch)
			before.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, 1)
			tr := &idTracer{}
			s.SetTrace(tr)
			after := s.NewBatch(gocql.UnloggedBatch)
			after.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 2, 2)
			e.R.Record("batch made before SetTrace", s.ExecuteBatch(before), tr.n)
			e.R.Record("batch made after SetTrace", s.ExecuteBatch(after), tr.n, len(tr.last))
		}},
		{"batch/entry_markers_without_values", func(e *Env) {
			// Entries with values are prepared, entries without are sent as their text (C38):
			// an entry with bind markers and no values reaches the server, which refuses it,
			// where a prepared one would fail in the driver for its missing values.
			tbl := e.Table("bmv")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			b.Query("INSERT INTO " + tbl + " (k, v) VALUES (?, ?)")
			recordRequestError(e, "markers without values", e.Session.ExecuteBatch(b))
			b = e.Session.NewBatch(gocql.UnloggedBatch)
			b.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1)
			recordRequestError(e, "markers with too few values", e.Session.ExecuteBatch(b))
		}},
		{"cas/lwt_iter_before_and_after_scancas", func(e *Env) {
			// ScanCAS makes its query ask for the result's metadata (C23): a conditional
			// statement's columns depend on whether it applied, so the metadata of its
			// preparation does not describe the rows. The same *Query read through Iter before
			// ScanCAS, and again after.
			tbl := e.Table("lwi")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil || e.Exec("INSERT INTO "+tbl+" (k, v) VALUES (1, 'a')") != nil {
				return
			}
			q := e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?) IF NOT EXISTS", 1, "b")
			read := func(step string) {
				it := q.Iter()
				var cols []string
				for _, c := range it.Columns() {
					cols = append(cols, c.Name)
				}
				rows, err := it.SliceMap()
				e.R.Record(step, err, cols, rows)
				e.R.Record(step+" close", it.Close())
			}
			read("iter before ScanCAS")
			var k int
			var v string
			applied, err := q.ScanCAS(&k, &v)
			e.R.Record("scancas", err, applied, k, v)
			read("iter after ScanCAS")
		}},
	}
}

// emptyPlan is a host selection policy whose plans name no host.
type emptyPlan struct{ gocql.HostSelectionPolicy }

func (emptyPlan) Pick(gocql.ExecutableQuery) gocql.NextHost {
	return func() gocql.SelectedHost { return nil }
}
