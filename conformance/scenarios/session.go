package scenarios

import (
	"github.com/gocql/gocql"
)

func sessionScenarios() []Scenario {
	return []Scenario{
		{"session/query_defaults", func(e *Env) {
			q := e.Session.Query("SELECT key FROM system.local")
			e.R.Record("defaults", nil, q.GetConsistency(), q.IsIdempotent(), q.Statement(), q.Attempts())
		}},
		{"session/builders_return_same_query", func(e *Env) {
			q := e.Session.Query("SELECT key FROM system.local")
			same := q.Consistency(gocql.Two) == q && q.PageSize(7) == q && q.Idempotent(true) == q &&
				q.SerialConsistency(gocql.LocalSerial) == q && q.Prefetch(0.5) == q && q.WithTimestamp(5) == q &&
				q.DefaultTimestamp(false) == q && q.NoSkipMetadata() == q
			e.R.Record("same pointer", nil, same, q.GetConsistency(), q.IsIdempotent())
		}},
		{"session/consistency_levels", func(e *Env) {
			for _, c := range []gocql.Consistency{gocql.One, gocql.LocalOne, gocql.Quorum, gocql.LocalQuorum, gocql.All, gocql.Two, gocql.Three} {
				err := e.Session.Query("SELECT key FROM system.local").Consistency(c).Exec()
				e.R.Record("consistency "+c.String(), err)
			}
			for _, s := range []string{"ONE", "quorum", "LOCAL_ONE", "bogus"} {
				c, err := gocql.ParseConsistencyWrapper(s)
				e.R.Record("parse "+s, err, c)
			}
		}},
		{"session/use_keyspace_switching", func(e *Env) {
			tbl := e.Table("u")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY)") != nil {
				return
			}
			c := e.Cluster()
			c.Keyspace = ""
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			e.R.Record("unqualified without keyspace", s.Query("SELECT * FROM "+tbl).Exec())
			e.R.Record("qualified", s.Query("SELECT * FROM "+e.Keyspace+"."+tbl).Exec())
		}},
		{"session/closed", func(e *Env) {
			s, err := e.Cluster().CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			e.R.Record("open", nil, s.Closed())
			s.Close()
			e.R.Record("closed", nil, s.Closed())
			err = s.Query("SELECT key FROM system.local").Exec()
			e.R.Record("query after close", err, err == gocql.ErrSessionClosed)
			b := s.NewBatch(gocql.LoggedBatch)
			b.Query("INSERT INTO x (k) VALUES (1)")
			e.R.Record("batch after close", s.ExecuteBatch(b))
			s.Close() // a second Close is harmless
		}},
		{"session/create_with_bad_keyspace", func(e *Env) {
			c := e.Cluster()
			c.Keyspace = "no_such_keyspace_x"
			s, err := c.CreateSession()
			e.R.Record("create", err, s == nil)
			if s != nil {
				s.Close()
			}
		}},
		{"session/no_hosts", func(e *Env) {
			c := gocql.NewCluster()
			_, err := c.CreateSession()
			e.R.Record("create", err, err == gocql.ErrNoHosts)
		}},
		{"session/warnings", func(e *Env) {
			tbl := e.Table("w")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))") != nil {
				return
			}
			// A batch across many partitions draws a server warning.
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			for i := 0; i < 40; i++ {
				b.Query("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?)", i, i, "0123456789012345678901234567890123456789")
			}
			e.R.Record("batch", e.Session.ExecuteBatch(b))
			it := e.Session.Query("SELECT * FROM " + tbl + " WHERE v = 'x' ALLOW FILTERING").Iter()
			e.R.Record("filtering warnings", nil, len(it.Warnings()) >= 0)
			e.R.Record("close", it.Close())
		}},
		{"session/tracing", func(e *Env) {
			tr := &idTracer{}
			err := e.Session.Query("SELECT key FROM system.local").Trace(tr).Exec()
			e.R.Record("traced", err, tr.n, len(tr.last) == 16)
		}},
		{"session/release_query", func(e *Env) {
			q := e.Session.Query("SELECT key FROM system.local")
			q.Release()
			e.R.Record("statement after release", nil, q.Statement())
		}},
		{"session/uuid_helpers", func(e *Env) {
			u, err := gocql.ParseUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
			e.R.Record("parse", err, u.String(), u.Version(), u.Variant(), u.Timestamp())
			_, err = gocql.ParseUUID("xyz")
			e.R.Record("parse bad", err)
			b, err := gocql.UUIDFromBytes([]byte{1, 2})
			e.R.Record("from short bytes", err, b)
		}},
	}
}

// idTracer is a gocql.Tracer that records the trace ids it is given.
type idTracer struct {
	n    int
	last []byte
}

func (t *idTracer) Trace(id []byte) {
	t.n++
	t.last = id
}
