package scenarios

import (
	"context"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// serverFrameScenarios cover frames a server sends outside the request they concern. Such a
// server is a cqlsim node of the scenario's own, whatever the server under test, as no real
// node can be made to send them.
func serverFrameScenarios() []Scenario {
	return []Scenario{
		{"session/unsolicited_error_frame", func(e *Env) {
			// A node answers an INSERT with an ERROR on stream -1 (outside any request) and
			// leaves it unanswered. gocql v1.7.0 takes the frame for an event, drops it, and
			// the INSERT waits for its context's second; the shim closes the connection and
			// the INSERT fails at once with ErrConnectionClosed (docs/deviations.md G43). The
			// next statement works in both.
			sim, err := cqlsim.Start(cqlsim.Options{})
			if err != nil {
				e.R.Record("start cqlsim", err)
				return
			}
			defer sim.Close()
			c := gocql.NewCluster(sim.Addrs()...)
			c.Consistency = gocql.One
			c.ProtoVersion = 4
			s, err := c.CreateSession()
			e.R.Record("create session", err)
			if err != nil {
				return
			}
			defer s.Close()
			for _, stmt := range []string{
				"CREATE KEYSPACE uf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE uf.t (k int PRIMARY KEY, v int)",
			} {
				if err := s.Query(stmt).WithContext(e.Ctx).Exec(); err != nil {
					e.R.Record("setup "+stmt, err)
					return
				}
			}
			e.R.Record("inject", sim.InjectFault(0, cqlsim.Fault{Match: "INSERT INTO uf.t", Times: 1, Unsolicited: true,
				Error: &message.ServerError{ErrorMessage: "the node reports a failure of the connection"}}))
			ctx, cancel := context.WithTimeout(e.Ctx, time.Second)
			defer cancel()
			start := time.Now()
			err = s.Query("INSERT INTO uf.t (k, v) VALUES (1, 1)").WithContext(ctx).Exec()
			e.R.Record("insert", err, "waited for the context", time.Since(start) >= 900*time.Millisecond)
			e.R.Record("next insert", s.Query("INSERT INTO uf.t (k, v) VALUES (2, 2)").WithContext(e.Ctx).Exec())
			var v int
			e.R.Record("read", s.Query("SELECT v FROM uf.t WHERE k = 2").WithContext(e.Ctx).Scan(&v), v)
		}},
	}
}
