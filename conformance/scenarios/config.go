package scenarios

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// configScenarios cover session and statement settings at their edges: zero connections,
// a nil speculative policy, a batch without a session, and consistency values the server
// judges, and a closed session's schema agreement (docs/deviations.md G26 to G29, G32).
func configScenarios() []Scenario {
	return []Scenario{
		{"session/num_conns_zero", func(e *Env) {
			c := e.Cluster()
			c.NumConns = 0
			s, err := c.CreateSession()
			if err == nil {
				s.Close()
			}
			e.R.Record("create session", err, errors.Is(err, gocql.ErrNoConnectionsStarted))
		}},
		{"session/disable_initial_host_lookup_dc_filter", func(e *Env) {
			// Without the host lookup the hosts carry no data centre, so a data centre filter
			// rejects every one and no pool connection opens.
			var dc string
			if err := e.Session.Query("SELECT data_center FROM system.local").Scan(&dc); err != nil {
				e.R.Record("data center", err)
				return
			}
			c := e.Cluster()
			c.DisableInitialHostLookup = true
			c.HostFilter = gocql.DataCentreHostFilter(dc)
			s, err := c.CreateSession()
			if err == nil {
				s.Close()
			}
			e.R.Record("create session", err, errors.Is(err, gocql.ErrNoConnectionsStarted))
		}},
		{"session/connect_timeout_negative", func(e *Env) {
			// gocql's own dialer gets the negative timeout as its deadline: every dial times out.
			c := e.Cluster()
			c.ConnectTimeout = -time.Second
			s, err := c.CreateSession()
			if err == nil {
				s.Close()
			}
			e.R.Record("create session", err)
		}},
		{"session/policy_entry_without_host", func(e *Env) {
			// A custom policy whose plan names an entry without a host: skipped without an
			// attempt, so the plan runs out.
			s := policySession(e, hostlessPlan{gocql.RoundRobinHostPolicy()})
			if s == nil {
				return
			}
			defer s.Close()
			q := s.Query("SELECT key FROM system.local")
			var key string
			e.R.Record("select", q.Scan(&key), key, q.Attempts())
		}},
		{"session/policy_nil_plan", func(e *Env) {
			// gocql v1.7.0 calls the nil NextHost and panics; the shim fails the query with
			// ErrNoConnections, as for an empty plan (docs/deviations.md G54).
			s := policySession(e, nilPlan{gocql.RoundRobinHostPolicy()})
			if s == nil {
				return
			}
			defer s.Close()
			var key string
			err := s.Query("SELECT key FROM system.local").Scan(&key)
			e.R.Record("select", err, errors.Is(err, gocql.ErrNoConnections))
		}},
		{"session/idempotent_nil_speculative_policy", func(e *Env) {
			// gocql v1.7.0 calls the nil policy and panics; the shim runs the query without
			// speculative execution (docs/deviations.md G27).
			q := e.Session.Query("SELECT key FROM system.local").Idempotent(true).SetSpeculativeExecutionPolicy(nil)
			var key string
			e.R.Record("exec", q.Scan(&key), key)
		}},
		{"session/await_schema_agreement_after_close", func(e *Env) {
			// gocql v1.7.0 keeps polling a closed session until MaxWaitSchemaAgreement ends
			// (60 s by default; 2 s here); the shim returns ErrSessionClosed at once
			// (docs/deviations.md G32).
			c := e.Cluster()
			c.MaxWaitSchemaAgreement = 2 * time.Second
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err = s.AwaitSchemaAgreement(ctx)
			e.R.Record("await after close", err, errors.Is(err, gocql.ErrSessionClosed))
		}},
		{"batch/routing_key_without_session", func(e *Env) {
			// A batch made without a session: gocql v1.7.0 panics (nil session) in
			// GetRoutingKey once the batch has an entry; the shim returns nil, nil
			// (docs/deviations.md G28).
			//lint:ignore SA1019 the deprecated constructor is the case
			b := gocql.NewBatch(gocql.LoggedBatch)
			rk, err := b.GetRoutingKey()
			e.R.Record("empty", err, rk)
			b.Query("INSERT INTO t (k, v) VALUES (?, ?)", 1, 2)
			rk, err = b.GetRoutingKey()
			e.R.Record("one entry", err, rk)
		}},
		{"session/serial_consistency_not_serial", func(e *Env) {
			tbl := e.Table("scn")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
				return
			}
			quorum := gocql.SerialConsistency(gocql.Quorum)
			// Not conditional: the server ignores the serial consistency.
			err := e.Session.Query("INSERT INTO " + tbl + " (k, v) VALUES (1, 1)").SerialConsistency(quorum).Exec()
			e.R.Record("plain insert", err)
			// Conditional: refused, as the serial consistency is not SERIAL or LOCAL_SERIAL.
			err = e.Session.Query("INSERT INTO " + tbl + " (k, v) VALUES (2, 2) IF NOT EXISTS").SerialConsistency(quorum).Exec()
			e.R.Record("conditional insert", err)
			b := e.Session.NewBatch(gocql.UnloggedBatch)
			b.SerialConsistency(quorum)
			b.Query("UPDATE " + tbl + " SET v = 3 WHERE k = 1 IF v = 1")
			applied, _, err := e.Session.MapExecuteBatchCAS(b, map[string]interface{}{})
			e.R.Record("conditional batch", err, applied)
			var v int
			err = e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Scan(&v)
			e.R.Record("read back", err, v)
		}},
		{"session/consistency_unknown_code", func(e *Env) {
			// A code that is no consistency level: the server answers a protocol error (the
			// shim answers it in the server's place; docs/deviations.md G29).
			err := e.Session.Query("SELECT key FROM system.local").Consistency(gocql.Consistency(300)).Exec()
			e.R.Record("consistency 300", err)
			err = e.Session.Query("SELECT key FROM system.local").SerialConsistency(gocql.SerialConsistency(300)).Exec()
			e.R.Record("serial consistency 300", err)
		}},
		{"session/custom_dialer", func(e *Env) {
			// Every connection is opened by ClusterConfig.Dialer, to the nodes' addresses
			// (the shim ignored the Dialer before 2026-12-04; docs/deviations.md G40).
			d := &recordingDialer{}
			c := e.Cluster()
			c.Dialer = d
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			var key string
			err = s.Query("SELECT key FROM system.local").Scan(&key)
			e.R.Record("query", err, key)
			dials, networks, nodesOnly := d.summary(e.Hosts)
			e.R.Record("dialled", nil, dials > 0, networks, nodesOnly)
		}},
		{"session/dialer_error", func(e *Env) {
			// A Dialer's error fails CreateSession, in gocql's words.
			c := e.Cluster()
			c.Dialer = failingDialer{}
			s, err := c.CreateSession()
			if err == nil {
				s.Close()
			}
			e.R.Record("create session", err)
		}},
		{"session/host_dialer_returns_nothing", func(e *Env) {
			// A HostDialer returning no connection and no error: gocql v1.7.0 panics (nil
			// pointer); the shim fails CreateSession (docs/deviations.md G40).
			c := e.Cluster()
			c.HostDialer = emptyHostDialer{}
			s, err := c.CreateSession()
			if err == nil {
				s.Close()
			}
			e.R.Record("create session", err)
		}},
		{"session/proto_version_3", func(e *Env) {
			// ProtoVersion 3 is spoken as set (golang-migrate's protocol=3): statements,
			// prepared statements, paging, batches and routing keys, found from the schema at
			// v3 (UnsetValue: session/proto_version_3_unset).
			tbl := e.Table("pv3")
			s := v3Session(e, "CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))")
			if s == nil {
				return
			}
			defer s.Close()
			ins := "INSERT INTO " + tbl + " (p, c, v) VALUES (?, ?, ?)"
			for i := 0; i < 5; i++ {
				e.R.Record("insert", s.Query(ins, 1, i, "v").WithContext(e.Ctx).Exec())
			}
			b := s.NewBatch(gocql.LoggedBatch).WithContext(e.Ctx)
			b.Query(ins, 1, 5, "b")
			b.Query("INSERT INTO " + tbl + " (p, c, v) VALUES (1, 6, 'b')")
			e.R.Record("batch", s.ExecuteBatch(b))
			iter := s.Query("SELECT c, v FROM "+tbl+" WHERE p = ?", 1).WithContext(e.Ctx).PageSize(3).Iter()
			var rows []string
			var k int
			var v *string
			for iter.Scan(&k, &v) {
				if v == nil {
					rows = append(rows, "null")
				} else {
					rows = append(rows, *v)
				}
			}
			e.R.Record("select", iter.Close(), rows, iter.Columns()[0].TypeInfo.Version())
			key, err := s.Query("SELECT v FROM "+tbl+" WHERE p = ? AND c = ?", 7, 1).GetRoutingKey()
			e.R.Record("routing key", err, key)
		}},
		{"session/proto_version_3_date", func(e *Env) {
			// A date column at ProtoVersion 3, which has no code for dates: the server
			// describes it as a custom type (SimpleDateType); gocql v1.7.0 cannot bind or scan
			// a time.Time there, the shim can (docs/deviations.md G25).
			tbl := e.Table("pv3d")
			s := v3Session(e, "CREATE TABLE "+tbl+" (p int PRIMARY KEY, d date)")
			if s == nil {
				return
			}
			defer s.Close()
			day := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
			e.R.Record("insert", s.Query("INSERT INTO "+tbl+" (p, d) VALUES (?, ?)", 1, day).WithContext(e.Ctx).Exec())
			e.R.Record("insert literal", s.Query("INSERT INTO "+tbl+" (p, d) VALUES (2, '2026-12-05')").WithContext(e.Ctx).Exec())
			var d time.Time
			err := s.Query("SELECT d FROM "+tbl+" WHERE p = ?", 2).WithContext(e.Ctx).Scan(&d)
			e.R.Record("select", err, d.Format(time.DateOnly))
		}},
		{"session/proto_version_3_unset", func(e *Env) {
			// UnsetValue at ProtoVersion 3, which has no unset value: gocql v1.7.0 sends it
			// anyway and the server reads it as NULL, overwriting the column; the shim refuses
			// the statement before sending it (docs/deviations.md G42).
			tbl := e.Table("pv3u")
			s := v3Session(e, "CREATE TABLE "+tbl+" (p int PRIMARY KEY, v text)")
			if s == nil {
				return
			}
			defer s.Close()
			ins := "INSERT INTO " + tbl + " (p, v) VALUES (?, ?)"
			e.R.Record("insert", s.Query(ins, 1, "kept").WithContext(e.Ctx).Exec())
			e.R.Record("insert unset", s.Query(ins, 1, gocql.UnsetValue).WithContext(e.Ctx).Exec())
			var v *string
			err := s.Query("SELECT v FROM "+tbl+" WHERE p = ?", 1).WithContext(e.Ctx).Scan(&v)
			e.R.Record("select", err, v)
		}},
		{"session/proto_version_5", func(e *Env) {
			// ProtoVersion 5: gocql v1.7.0 sends v5 frames flagged beta and without v5's
			// segment framing, so it reads the node's first segment as a frame header and
			// CreateSession fails; the shim speaks v5 (docs/deviations.md G46). On a cqlsim
			// node of the scenario's own that serves v5, and on the node under test (Cassandra
			// 4.0 and later speak v5; the default cqlsim serves v4 at most, and both fail).
			sim, err := cqlsim.Start(cqlsim.Options{MaxProtocolVersion: 5})
			if err != nil {
				e.R.Record("start cqlsim", err)
				return
			}
			defer sim.Close()
			c := gocql.NewCluster(sim.Addrs()[0])
			c.Port = sim.Port()
			v5Query(e, "own v5 node", c)
			v5Query(e, "node under test", e.Cluster())
		}},
	}
}

// v5Query opens a session of c at ProtoVersion 5 and reads system.local with it. Whether
// CreateSession succeeded is recorded, not its error, whose wording differs (both fail on a
// node that does not speak v5).
func v5Query(e *Env, node string, c *gocql.ClusterConfig) {
	c.ProtoVersion = 5
	c.ConnectTimeout = 5 * time.Second
	c.Timeout = 5 * time.Second
	s, err := c.CreateSession()
	e.R.Record(node+": create session", nil, err == nil)
	if err != nil {
		return
	}
	defer s.Close()
	var key string
	err = s.Query("SELECT key FROM system.local").WithContext(e.Ctx).Scan(&key)
	e.R.Record(node+": query", err, key)
}

// v3Session runs ddl, then opens a session with ProtoVersion 3 and records its creation; it
// returns nil when either fails.
func v3Session(e *Env, ddl string) *gocql.Session {
	if e.Exec(ddl) != nil {
		return nil
	}
	c := e.Cluster()
	c.ProtoVersion = 3
	s, err := c.CreateSession()
	e.R.Record("create session", err)
	if err != nil {
		return nil
	}
	return s
}

// recordingDialer dials TCP and records what it was asked for.
type recordingDialer struct {
	mu    sync.Mutex
	calls [][2]string // network, address
}

func (d *recordingDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	d.calls = append(d.calls, [2]string{network, address})
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}

// summary returns the number of dials, the distinct networks dialled, and whether every
// address dialled is one of hosts' (host part only: the port may be a default).
func (d *recordingDialer) summary(hosts []string) (int, []string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var networks []string
	nodesOnly := true
	for _, c := range d.calls {
		if !slices.Contains(networks, c[0]) {
			networks = append(networks, c[0])
		}
		host, _, err := net.SplitHostPort(c[1])
		if err != nil || !slices.ContainsFunc(hosts, func(h string) bool { return h == host || strings.HasPrefix(h, host+":") }) {
			nodesOnly = false
		}
	}
	slices.Sort(networks)
	return len(d.calls), networks, nodesOnly
}

// failingDialer refuses every connection, as a proxy with a deny rule would.
type failingDialer struct{}

func (failingDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("proxy: connection refused by rule 7")
}

// emptyHostDialer returns neither a connection nor an error.
type emptyHostDialer struct{}

func (emptyHostDialer) DialHost(context.Context, *gocql.HostInfo) (*gocql.DialedHost, error) {
	return nil, nil
}

// policySession opens a session with the host selection policy p, or records why it could not
// and returns nil.
func policySession(e *Env, p gocql.HostSelectionPolicy) *gocql.Session {
	c := e.Cluster()
	c.PoolConfig.HostSelectionPolicy = p
	s, err := c.CreateSession()
	if err != nil {
		e.R.Record("create session", err)
		return nil
	}
	return s
}

// hostlessPlan is a host selection policy whose plan names one entry without a host.
type hostlessPlan struct{ gocql.HostSelectionPolicy }

func (hostlessPlan) Pick(gocql.ExecutableQuery) gocql.NextHost {
	done := false
	return func() gocql.SelectedHost {
		if done {
			return nil
		}
		done = true
		return hostless{}
	}
}

// hostless is a plan entry without a host. Drivers skip it on its nil Info, without calling
// its other methods (the embedded nil interface would panic).
type hostless struct{ gocql.SelectedHost }

func (hostless) Info() *gocql.HostInfo { return nil }

// nilPlan is a host selection policy whose Pick returns no plan at all.
type nilPlan struct{ gocql.HostSelectionPolicy }

func (nilPlan) Pick(gocql.ExecutableQuery) gocql.NextHost { return nil }
