package scenarios

import (
	"context"
	"crypto/md5"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
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
			sim, s := ownSimSession(e, 1, "uf", nil)
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			e.R.Record("inject", sim.InjectFault(0, cqlsim.Fault{Match: "INSERT INTO uf.t", Times: 1, Unsolicited: true,
				Error: &message.ServerError{ErrorMessage: "the node reports a failure of the connection"}}))
			ctx, cancel := context.WithTimeout(e.Ctx, time.Second)
			defer cancel()
			start := time.Now()
			err := s.Query("INSERT INTO uf.t (k, v) VALUES (1, 1)").WithContext(ctx).Exec()
			e.R.Record("insert", err, "waited for the context", time.Since(start) >= 900*time.Millisecond)
			e.R.Record("next insert", s.Query("INSERT INTO uf.t (k, v) VALUES (2, 2)").WithContext(e.Ctx).Exec())
			var v int
			e.R.Record("read", s.Query("SELECT v FROM uf.t WHERE k = 2").WithContext(e.Ctx).Scan(&v), v)
		}},
		{"session/write_failed_before_sending", func(e *Env) {
			// On two nodes, with one connection each, the connection to the second node
			// fails its next write before a byte is written (as a write to a connection the
			// server has reset does), while a non-idempotent INSERT, without retry policy,
			// is being sent on it. gocql v1.7.0 fails the INSERT with the write's error; the
			// shim, knowing it was not sent, sends it to the first node, where it succeeds
			// (docs/deviations.md G44). Both sessions work on afterwards.
			var d *cqltest.WriteBreaker
			sim, s := ownSimSession(e, 2, "wf", func(c *gocql.ClusterConfig, sim *cqlsim.Cluster) {
				d = &cqltest.WriteBreaker{Addr: sim.Addrs()[1]}
				c.NumConns = 1
				c.Dialer = d
			})
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			// Both nodes serve (the shim learns of the second one from its topology).
			second := false
			for deadline := time.Now().Add(10 * time.Second); !second && time.Now().Before(deadline); {
				iter := s.Query("SELECT key FROM system.local").WithContext(e.Ctx).Iter()
				second = iter.Host() != nil && net.JoinHostPort(iter.Host().ConnectAddress().String(), strconv.Itoa(sim.Port())) == d.Addr
				_ = iter.Close()
			}
			e.R.Record("second node serving", nil, second)
			if !second {
				return
			}
			var broken error
			hit := false
			for k := 0; k < 40 && !hit; k++ {
				d.Armed.Store(true)
				err := s.Query("INSERT INTO wf.t (k, v) VALUES (?, ?)", k, k).WithContext(e.Ctx).Exec()
				if hit = d.Broken.Load() > 0; hit {
					broken = err
				} else if err != nil {
					e.R.Record("insert", err, k)
					return
				}
			}
			d.Armed.Store(false)
			e.R.Record("the insert whose write failed", broken, hit)
			e.R.Record("next insert", s.Query("INSERT INTO wf.t (k, v) VALUES (100, 100)").WithContext(e.Ctx).Exec())
		}},
		{"paging/repeated_paging_state", func(e *Env) {
			// A node answers every page after the first with the first page's paging state
			// (a dialer rewrites its frames, cqltest.StuckPager), so the next page would
			// always be the second one. gocql v1.7.0's Iter reads it again and again (the
			// scenario stops after 30 rows); the shim's ends after the two pages the node
			// sent and Close reports it (docs/deviations.md G60).
			sim, s := ownSimSession(e, 1, "rp", func(c *gocql.ClusterConfig, _ *cqlsim.Cluster) {
				c.Dialer = &cqltest.StuckPager{}
			})
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			for k := range 10 {
				if err := s.Query("INSERT INTO rp.t (k, v) VALUES (?, ?)", k, k).WithContext(e.Ctx).Exec(); err != nil {
					e.R.Record("insert", err, k)
					return
				}
			}
			iter := s.Query("SELECT k FROM rp.t").PageSize(3).WithContext(e.Ctx).Iter()
			rows, k := 0, 0
			for rows <= 30 && iter.Scan(&k) {
				rows++
			}
			e.R.Record("rows read (at most 31)", iter.Close(), rows)
		}},
		{"session/close_from_connect_observer", func(e *Env) {
			// A ConnectObserver closes the session when it sees the reconnection to the
			// second of two nodes, which was restarted. Close returns in gocql v1.7.0. The
			// shim's Close used to wait for the goroutine that made the connection, which
			// was waiting in the observer for Close: it hung. Both sessions refuse queries
			// afterwards.
			var sess atomic.Pointer[gocql.Session]
			var armed atomic.Bool
			var once sync.Once
			closed := make(chan struct{})
			var second string
			sim, s := ownSimSession(e, 2, "co", func(c *gocql.ClusterConfig, sim *cqlsim.Cluster) {
				second, _, _ = net.SplitHostPort(sim.Addrs()[1])
				c.ReconnectInterval = 100 * time.Millisecond // gocql retries a down node this often
				c.ConnectObserver = connectObserverFunc(func(o gocql.ObservedConnect) {
					if o.Err == nil && armed.Load() && o.Host.ConnectAddress().String() == second {
						once.Do(func() {
							sess.Load().Close()
							close(closed)
						})
					}
				})
			})
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			sess.Store(s)
			e.R.Record("stop the second node", sim.StopNode(1))
			time.Sleep(200 * time.Millisecond) // the session sees the node down
			armed.Store(true)
			e.R.Record("start it again", sim.StartNode(1))
			returned := false
			select {
			case <-closed:
				returned = true
			case <-time.After(15 * time.Second):
			}
			e.R.Record("Close from the observer returned", nil, returned)
			if !returned {
				return
			}
			e.R.Record("closed", nil, s.Closed())
			e.R.Record("query after Close", s.Query("SELECT v FROM co.t WHERE k = 1").WithContext(e.Ctx).Exec())
		}},
		{"session/scylla_rate_limit_error", func(e *Env) {
			// A ScyllaDB node (cqlsim with shards) refuses an INSERT over its partition's rate
			// limit. gocql v1.7.0 does not opt in to ScyllaDB's rate limit error, so the node
			// sends a CONFIG_ERROR (0x2300); the shim opts in, as scylladb/gocql does, and
			// gets the rate limit error (0xF000) with the same message (docs/deviations.md
			// G47). The next INSERT works in both.
			sim, s := ownSimSessionOpts(e, cqlsim.Options{Shards: 2}, "rl", nil)
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			e.R.Record("inject", sim.InjectFault(0, cqlsim.Fault{Match: "INSERT INTO rl.t", Times: 1,
				Error: &cqlsim.RateLimitReached{ErrorMessage: "Per-partition rate limit reached", OpType: 1, RejectedByCoordinator: true}}))
			err := s.Query("INSERT INTO rl.t (k, v) VALUES (1, 1)").WithContext(e.Ctx).Exec()
			code := 0
			var re gocql.RequestError
			if errors.As(err, &re) {
				code = re.Code()
			}
			e.R.Record("insert", err, code)
			e.R.Record("next insert", s.Query("INSERT INTO rl.t (k, v) VALUES (2, 2)").WithContext(e.Ctx).Exec())
		}},
		{"session/scylla_tablets_routing", func(e *Env) {
			// A ScyllaDB cluster whose tables use tablets (cqlsim with tablets, three nodes,
			// one replica per partition). gocql v1.7.0's token-aware policy routes by the token
			// ring, which tablets do not follow, so most queries reach a node without their
			// partition's replica; the shim learns each tablet from the node that got a query
			// for it, as scylladb/gocql does, and then sends every query to its tablet's
			// replica (docs/deviations.md G48). The rows read are the same.
			sim, s := ownSimSessionOpts(e, cqlsim.Options{Nodes: 3, Shards: 1, Tablets: 8}, "tr", func(c *gocql.ClusterConfig, _ *cqlsim.Cluster) {
				c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
			})
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			for k := range 30 {
				if err := s.Query("INSERT INTO tr.t (k, v) VALUES (?, ?)", k, k*k).WithContext(e.Ctx).Exec(); err != nil {
					e.R.Record("insert", err, k)
					return
				}
			}
			before := sim.TabletStats()
			sum := 0
			for k := range 30 {
				var v int
				if err := s.Query("SELECT v FROM tr.t WHERE k = ?", k).WithContext(e.Ctx).Scan(&v); err != nil {
					e.R.Record("select", err, k)
					return
				}
				sum += v
			}
			after := sim.TabletStats()
			e.R.Record("sum of the values read", nil, sum)
			e.R.Record("reads on a node without their tablet's replica", nil, after.OffReplica-before.OffReplica)
		}},
		{"session/scylla_metadata_id", func(e *Env) {
			// A ScyllaDB node (cqlsim with shards). A session prepares SELECT * on a table;
			// the table then loses a column and gains another of another type (the column
			// count stays the same), and a second session prepares the statement again, so
			// the node's statement has the new columns under the first session's statement
			// id. gocql v1.7.0 executes with the result metadata it cached and decodes the new
			// text column as the old int one: a wrong value, without error. The shim opts in
			// to ScyllaDB's result metadata ids (SCYLLA_USE_METADATA_ID), as scylladb/gocql
			// does, so the node answers with the new columns (docs/deviations.md G49).
			sim, s := ownSimSessionOpts(e, cqlsim.Options{Shards: 1}, "mi", nil)
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			const sel = "SELECT * FROM mi.t WHERE k = ?"
			read := func(what string, sess *gocql.Session) {
				row := map[string]any{}
				err := sess.Query(sel, 1).WithContext(e.Ctx).MapScan(row)
				e.R.Record(what, err, row)
			}
			e.R.Record("insert", s.Query("INSERT INTO mi.t (k, v) VALUES (1, 10)").WithContext(e.Ctx).Exec())
			read("read before", s)
			for _, stmt := range []string{"ALTER TABLE mi.t DROP v", "ALTER TABLE mi.t ADD n text", "UPDATE mi.t SET n = 'abcd' WHERE k = 1"} {
				e.R.Record(stmt, s.Query(stmt).WithContext(e.Ctx).Exec())
			}
			c := gocql.NewCluster(sim.Addrs()[0])
			c.Port = sim.Port()
			c.ProtoVersion = 4
			other, err := c.CreateSession()
			e.R.Record("second session", err)
			if err != nil {
				return
			}
			defer other.Close()
			read("read by the second session (prepares the statement again)", other)
			read("read after", s)
		}},
	}
}

// ownSimSession starts a cqlsim cluster of the given number of nodes for a scenario of its
// own, connects a session to it (protocol v4, consistency ONE, configure applied when not
// nil) and creates the keyspace ks and its table t (k int PRIMARY KEY, v int). It records the
// session's creation and any failure; on failure it closes what it started and returns a nil
// session.
func ownSimSession(e *Env, nodes int, ks string, configure func(*gocql.ClusterConfig, *cqlsim.Cluster)) (*cqlsim.Cluster, *gocql.Session) {
	return ownSimSessionOpts(e, cqlsim.Options{Nodes: nodes}, ks, configure)
}

// ownSimSessionOpts is ownSimSession with a cluster started with opts.
func ownSimSessionOpts(e *Env, opts cqlsim.Options, ks string, configure func(*gocql.ClusterConfig, *cqlsim.Cluster)) (*cqlsim.Cluster, *gocql.Session) {
	sim, err := cqlsim.Start(opts)
	if err != nil {
		e.R.Record("start cqlsim", err)
		return nil, nil
	}
	c := gocql.NewCluster(sim.Addrs()[0])
	c.Port = sim.Port()
	c.Consistency = gocql.One
	c.ProtoVersion = 4
	if configure != nil {
		configure(c, sim)
	}
	s, err := c.CreateSession()
	e.R.Record("create session", err)
	if err != nil {
		sim.Close()
		return nil, nil
	}
	for _, stmt := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v int)",
	} {
		if err := s.Query(stmt).WithContext(e.Ctx).Exec(); err != nil {
			e.R.Record("setup "+stmt, err)
			s.Close()
			sim.Close()
			return nil, nil
		}
	}
	return sim, s
}

// connectObserverFunc is a gocql.ConnectObserver made of a function.
type connectObserverFunc func(gocql.ObservedConnect)

// ObserveConnect calls f.
func (f connectObserverFunc) ObserveConnect(c gocql.ObservedConnect) { f(c) }

// unpreparedScenarios put a node that forgets a prepared statement again right after the
// driver prepared it anew (its cache churned by other clients). They come after
// unavailableScenarios in All, so that the scenarios before them keep their indexes.
func unpreparedScenarios() []Scenario {
	return []Scenario{
		{"session/unprepared_again_after_reprepare", func(e *Env) {
			// A node answers a prepared read UNPREPARED three times in a row (as one whose
			// prepared statement cache other clients' statements churn can): both drivers
			// prepare again and resend until it runs. A node that answers UNPREPARED every
			// time: gocql v1.7.0 prepares and resends until the query's context ends; the shim
			// gives up after ten PREPAREs and returns the UNPREPARED (docs/deviations.md G73).
			sim, s := ownSimSession(e, 1, "upa", nil)
			if s == nil {
				return
			}
			defer sim.Close()
			defer s.Close()
			const sel = "SELECT v FROM upa.t WHERE k = ?"
			e.R.Record("insert", s.Query("INSERT INTO upa.t (k, v) VALUES (1, 10)").WithContext(e.Ctx).Exec())
			var v int
			e.R.Record("read", s.Query(sel, 1).WithContext(e.Ctx).Scan(&v), v)
			id := md5.Sum([]byte(sel)) // Cassandra's statement id: md5 of the keyspace (none) and the text
			forgotten := &message.Unprepared{ErrorMessage: "forgotten", Id: id[:]}
			e.R.Record("inject 3", sim.InjectFault(0, cqlsim.Fault{Match: sel, Error: forgotten, Times: 3}))
			v = 0
			e.R.Record("read after 3 UNPREPARED", s.Query(sel, 1).WithContext(e.Ctx).Scan(&v), v)
			e.R.Record("inject always", sim.InjectFault(0, cqlsim.Fault{Match: sel, Error: forgotten}))
			ctx, cancel := context.WithTimeout(e.Ctx, 500*time.Millisecond)
			defer cancel()
			err := s.Query(sel, 1).WithContext(ctx).Exec()
			_, unprepared := err.(*gocql.RequestErrUnprepared)
			e.R.Record("read, always UNPREPARED", err, unprepared, errors.Is(err, context.DeadlineExceeded))
			e.R.Record("clear", sim.ClearFaults(0))
			v = 0
			e.R.Record("read after", s.Query(sel, 1).WithContext(e.Ctx).Scan(&v), v)
		}},
	}
}
