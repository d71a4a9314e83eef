package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gocql/gocql"
)

func sessionMoreScenarios() []Scenario {
	return []Scenario{
		{"session/query_getters", func(e *Env) {
			tbl := e.Table("qg")
			if !fill(e, tbl, 1) {
				return
			}
			q := e.Session.Query("SELECT v FROM "+tbl+" WHERE p = ? AND c = ?", 1, 0)
			e.R.Record("before", nil, q.Statement(), q.Values(), q.GetConsistency(), q.IsIdempotent(), q.Keyspace(), q.Attempts(), q.Latency())
			e.R.Record("string", nil, q.String())
			e.R.Record("exec", q.Exec(), q.Attempts(), q.Latency() > 0)
			e.R.Record("context", nil, q.Context() != nil)
		}},
		{"session/routing_key", func(e *Env) {
			tbl := e.Table("rk")
			if e.Exec("CREATE TABLE "+tbl+" (a int, b text, c int, PRIMARY KEY ((a, b), c))") != nil {
				return
			}
			single := e.Table("rk1")
			if e.Exec("CREATE TABLE "+single+" (a int PRIMARY KEY, v int)") != nil {
				return
			}
			rk, err := e.Session.Query("SELECT v FROM "+single+" WHERE a = ?", 258).GetRoutingKey()
			e.R.Record("single key", err, rk)
			rk, err = e.Session.Query("SELECT c FROM "+tbl+" WHERE a = ? AND b = ?", 1, "xy").GetRoutingKey()
			e.R.Record("composite key", err, rk)
			rk, err = e.Session.Query("SELECT c FROM " + tbl + " WHERE a = 1 AND b = 'xy'").GetRoutingKey()
			e.R.Record("no values", err, rk)
			rk, err = e.Session.Query("SELECT v FROM "+single+" WHERE a = ?", 1).RoutingKey([]byte{9, 9}).GetRoutingKey()
			e.R.Record("explicit", err, rk)
		}},
		{"session/set_consistency_affects_later", func(e *Env) {
			s, err := e.Cluster().CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			before := s.Query("SELECT key FROM system.local")
			s.SetConsistency(gocql.LocalQuorum)
			after := s.Query("SELECT key FROM system.local")
			e.R.Record("consistencies", nil, before.GetConsistency(), after.GetConsistency())
			b := s.NewBatch(gocql.LoggedBatch)
			e.R.Record("batch", nil, b.GetConsistency())
			e.R.Record("exec", after.Exec())
		}},
		{"session/cluster_defaults", func(e *Env) {
			c := e.Cluster()
			c.Consistency = gocql.Two
			c.SerialConsistency = gocql.LocalSerial
			c.DefaultIdempotence = true
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			q := s.Query("SELECT key FROM system.local")
			b := s.NewBatch(gocql.UnloggedBatch)
			e.R.Record("query", nil, q.GetConsistency(), q.IsIdempotent())
			e.R.Record("batch", nil, b.GetConsistency(), b.IsIdempotent())
			e.R.Record("exec at TWO on one node", q.Exec())
		}},
		{"session/default_timestamp", func(e *Env) {
			tbl := e.Table("dts")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			e.R.Record("client timestamp", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (1, 'a')").DefaultTimestamp(true).Exec())
			e.R.Record("server timestamp", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (2, 'b')").DefaultTimestamp(false).Exec())
			e.R.Record("explicit wins", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (3, 'c')").DefaultTimestamp(false).WithTimestamp(5).Exec())
			e.R.Record("older write loses", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (3, 'old')").WithTimestamp(4).Exec())
			for k := 1; k <= 3; k++ {
				var v string
				var wt int64
				err := e.Session.Query("SELECT v, writetime(v) FROM "+tbl+" WHERE k = ?", k).Scan(&v, &wt)
				e.R.Record("row", err, k, v, wt > 1600000000000000 || wt == 5)
			}
		}},
		{"session/use_other_keyspace", func(e *Env) {
			other := e.Keyspace + "_b"
			if e.Exec("CREATE KEYSPACE IF NOT EXISTS "+other+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}") != nil {
				return
			}
			defer e.Session.Query("DROP KEYSPACE IF EXISTS " + other).Exec()
			tbl := e.Table("uo")
			if e.Exec("CREATE TABLE "+other+"."+tbl+" (k int PRIMARY KEY, v text)") != nil ||
				e.Exec("INSERT INTO "+other+"."+tbl+" (k, v) VALUES (1, 'other')") != nil {
				return
			}
			c := e.Cluster()
			c.Keyspace = other
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			var v string
			err = s.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Scan(&v)
			e.R.Record("unqualified in other keyspace", err, v)
			e.R.Record("unqualified in first session", e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Exec())
			q := s.Query("SELECT v FROM " + tbl)
			e.R.Record("query keyspace", nil, q.Keyspace() == other)
			e.R.Record("use statement", s.Query("use "+e.Keyspace).Exec())
		}},
		{"session/closed_iter_and_scan", func(e *Env) {
			s, err := e.Cluster().CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			q := s.Query("SELECT key FROM system.local")
			s.Close()
			it := q.Iter()
			var k string
			e.R.Record("iter scan", nil, it.Scan(&k))
			e.R.Record("iter close", it.Close())
			e.R.Record("query scan", s.Query("SELECT key FROM system.local").Scan(&k))
			applied, err := s.Query("UPDATE x SET v = 1 WHERE k = 1 IF EXISTS").ScanCAS()
			e.R.Record("scancas", err, applied)
			_, err = s.KeyspaceMetadata(e.Keyspace)
			e.R.Record("metadata after close", nil, err != nil)
		}},
		{"session/keyspace_metadata_tables", func(e *Env) {
			tbl := e.Table("kmd")
			if e.Exec("CREATE TABLE "+tbl+" (a int, b text, c timestamp, d int, s text static, v map<text, int>, PRIMARY KEY ((a, b), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)") != nil {
				return
			}
			md, t := freshTable(e, tbl)
			if t == nil {
				return
			}
			e.R.Record("keyspace", nil, md.Name == e.Keyspace, md.DurableWrites, md.StrategyClass, md.StrategyOptions)
			var pk, ck []string
			for _, c := range t.PartitionKey {
				pk = append(pk, c.Name)
			}
			for _, c := range t.ClusteringColumns {
				ck = append(ck, c.Name+":"+c.ClusteringOrder)
			}
			e.R.Record("keys", nil, t.Name, pk, ck, t.OrderedColumns)
			var names []string
			for n := range t.Columns {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				c := t.Columns[n]
				e.R.Record("column "+n, nil, c.Kind.String(), c.ComponentIndex, c.ClusteringOrder, bool(c.Order), c.Type.Type().String(), fmt.Sprint(c.Type))
			}
		}},
		{"session/keyspace_metadata_no_clustering", func(e *Env) {
			tbl := e.Table("kmn")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			_, t := freshTable(e, tbl)
			if t == nil {
				return
			}
			// Empty, not nil: a nil check or a reflect.DeepEqual tells them apart.
			e.R.Record("keys", nil, t.PartitionKey != nil, len(t.PartitionKey), t.ClusteringColumns != nil, len(t.ClusteringColumns))
		}},
		{"session/keyspace_metadata_without_schema_events", func(e *Env) {
			// gocql v1.7.0 caches a keyspace's metadata until a schema event, so without them it
			// never sees the new table; the shim reads the schema on every call
			// (docs/deviations.md G56).
			c := e.Cluster()
			c.Events.DisableSchemaEvents = true
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			tbl := e.Table("kme")
			md, err := s.KeyspaceMetadata(e.Keyspace)
			e.R.Record("before create", err, md != nil && md.Tables[tbl] != nil)
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY)") != nil {
				return
			}
			md, err = s.KeyspaceMetadata(e.Keyspace)
			e.R.Record("after create", err, md != nil && md.Tables[tbl] != nil)
		}},
		{"session/keyspace_metadata_refresh", func(e *Env) {
			tbl := e.Table("kmr")
			md, err := e.FreshMetadata()
			e.R.Record("before create", err, md != nil && md.Tables[tbl] != nil)
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY)") != nil {
				return
			}
			md, err = e.FreshMetadata()
			e.R.Record("after create", err, md != nil && md.Tables[tbl] != nil)
			if e.Exec("DROP TABLE "+tbl) != nil {
				return
			}
			md, err = e.FreshMetadata()
			e.R.Record("after drop", err, md != nil && md.Tables[tbl] != nil)
		}},
		{"session/warnings_on_iter", func(e *Env) {
			tbl := e.Table("wi")
			if !fill(e, tbl, 3) {
				return
			}
			it := e.Session.Query("SELECT count(*) FROM " + tbl).Iter()
			ws := it.Warnings()
			var n int64
			e.R.Record("scan", nil, it.Scan(&n), n)
			e.R.Record("aggregation warning", nil, len(ws), strings.Contains(strings.Join(ws, " "), "Aggregation query used without partition key"))
			e.R.Record("close", it.Close())
			e.R.Record("after close", nil, len(it.Warnings()))
			it = e.Session.Query("SELECT count(*) FROM "+tbl+" WHERE p = ?", 1).Iter()
			e.R.Record("no warning with partition key", nil, len(it.Warnings()))
			e.R.Record("close", it.Close())
		}},
		{"session/tracing_batch_and_writer", func(e *Env) {
			tr := &idTracer{}
			tbl := e.Table("trc")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY)") != nil {
				return
			}
			b := e.Session.NewBatch(gocql.UnloggedBatch).Trace(tr)
			b.Query("INSERT INTO "+tbl+" (k) VALUES (?)", 1)
			e.R.Record("traced batch", e.Session.ExecuteBatch(b), tr.n, len(tr.last))
			var buf bytes.Buffer
			w := gocql.NewTraceWriter(e.Session, &buf)
			var k int
			err := e.Session.Query("SELECT k FROM "+tbl+" WHERE k = ?", 1).Trace(w).Scan(&k)
			// Only the header line is deterministic: the events are written by the server
			// asynchronously, and the coordinator and duration come from them.
			header, _, _ := strings.Cut(buf.String(), "\n")
			header = traceHeader.ReplaceAllString(header, "Tracing session <id> (coordinator: <coordinator>, duration: <duration>):")
			e.R.Record("trace writer", err, k, header)
		}},
		{"session/query_observer_and_tracer_on_error", func(e *Env) {
			tr := &idTracer{}
			err := e.Session.Query("SELECT nope FROM system.local").Trace(tr).Observer(recorderObserver{e}).Exec()
			var re gocql.RequestError
			e.R.Record("exec", err, errors.As(err, &re), tr.n)
		}},
	}
}

// traceHeader matches the first line NewTraceWriter writes for a trace.
var traceHeader = regexp.MustCompile(`^Tracing session [0-9a-f]+ \(coordinator: [^,]*, duration: [^)]*\):$`)
