package gocql_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// configSeen is what a session showed, as a sorted set of lines, so that two drivers'
// observations compare whatever the order of their goroutines.
type configSeen struct {
	mu    sync.Mutex
	lines map[string]bool
}

func (c *configSeen) add(format string, args ...interface{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lines == nil {
		c.lines = make(map[string]bool)
	}
	c.lines[fmt.Sprintf(format, args...)] = true
}

func (c *configSeen) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.lines))
	for l := range c.lines {
		out = append(out, l)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// legacyConfigRecorder is a round-robin policy of gocql v1.7.0 that records the hosts it is
// given and the partitioner it is told.
type legacyConfigRecorder struct {
	gocqlv1.HostSelectionPolicy
	seen *configSeen
}

func (r legacyConfigRecorder) AddHost(h *gocqlv1.HostInfo) {
	r.seen.add("policy host %s:%d dc=%q rack=%q version=%s tokens=%d host id=%v",
		h.ConnectAddress(), h.Port(), h.DataCenter(), h.Rack(), h.Version(), len(h.Tokens()), h.HostID() != "")
	r.HostSelectionPolicy.AddHost(h)
}

func (r legacyConfigRecorder) SetPartitioner(p string) {
	r.seen.add("partitioner %q", p)
	r.HostSelectionPolicy.SetPartitioner(p)
}

// configRecorder is legacyConfigRecorder for compat.
type configRecorder struct {
	gocql.HostSelectionPolicy
	seen *configSeen
}

func (r configRecorder) AddHost(h *gocql.HostInfo) {
	r.seen.add("policy host %s:%d dc=%q rack=%q version=%s tokens=%d host id=%v",
		h.ConnectAddress(), h.Port(), h.DataCenter(), h.Rack(), h.Version(), len(h.Tokens()), h.HostID() != "")
	r.HostSelectionPolicy.AddHost(h)
}

func (r configRecorder) SetPartitioner(p string) {
	r.seen.add("partitioner %q", p)
	r.HostSelectionPolicy.SetPartitioner(p)
}

// TestReviewDisableInitialHostLookupLikeGocql: with DisableInitialHostLookup, gocql v1.7.0
// connects to the contact points as it was given them, knowing nothing the system tables
// tell (its documentation: "data_centre, rack and token information will not be available
// and as such host filtering and token aware query routing will not be available"): the
// policy gets hosts without data centre, rack, version or tokens (with made-up host ids)
// and no partitioner, so DCAwareRoundRobinPolicy treats every node as remote and
// TokenAwareHostPolicy falls back, both spreading the queries over every contact point, and
// a DataCentreHostFilter leaves no pool (ErrNoConnectionsStarted). compat gave the control
// connection's node its full metadata and the others none, so both policies sent every query
// to that one node, and the filter kept it.
func TestReviewDisableInitialHostLookupLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	cqltest.Exec(t, sim.Addrs()[0], "CREATE KEYSPACE rc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, sim.Addrs()[0], "CREATE TABLE rc.t (k int PRIMARY KEY, v int)")
	type setup struct {
		legacy func(c *gocqlv1.ClusterConfig, seen *configSeen)
		compat func(c *gocql.ClusterConfig, seen *configSeen)
	}
	setups := map[string]setup{
		"recorded round robin": {
			legacy: func(c *gocqlv1.ClusterConfig, seen *configSeen) {
				c.PoolConfig.HostSelectionPolicy = legacyConfigRecorder{gocqlv1.RoundRobinHostPolicy(), seen}
			},
			compat: func(c *gocql.ClusterConfig, seen *configSeen) {
				c.PoolConfig.HostSelectionPolicy = configRecorder{gocql.RoundRobinHostPolicy(), seen}
			},
		},
		"dc aware": {
			legacy: func(c *gocqlv1.ClusterConfig, _ *configSeen) {
				c.PoolConfig.HostSelectionPolicy = gocqlv1.DCAwareRoundRobinPolicy("datacenter1")
			},
			compat: func(c *gocql.ClusterConfig, _ *configSeen) {
				c.PoolConfig.HostSelectionPolicy = gocql.DCAwareRoundRobinPolicy("datacenter1")
			},
		},
		"token aware": {
			legacy: func(c *gocqlv1.ClusterConfig, _ *configSeen) {
				c.PoolConfig.HostSelectionPolicy = gocqlv1.TokenAwareHostPolicy(gocqlv1.DCAwareRoundRobinPolicy("datacenter1"))
			},
			compat: func(c *gocql.ClusterConfig, _ *configSeen) {
				c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy("datacenter1"))
			},
		},
		"data centre filter": {
			legacy: func(c *gocqlv1.ClusterConfig, _ *configSeen) {
				c.HostFilter = gocqlv1.DataCentreHostFilter("datacenter1")
			},
			compat: func(c *gocql.ClusterConfig, _ *configSeen) {
				c.HostFilter = gocql.DataCentreHostFilter("datacenter1")
			},
		},
		"address filter": {
			legacy: func(c *gocqlv1.ClusterConfig, _ *configSeen) {
				c.HostFilter = gocqlv1.WhiteListHostFilter(sim.Addrs()[1:]...)
			},
			compat: func(c *gocql.ClusterConfig, _ *configSeen) {
				c.HostFilter = gocql.WhiteListHostFilter(sim.Addrs()[1:]...)
			},
		},
	}
	const queries = 30
	for name, st := range setups {
		t.Run(name, func(t *testing.T) {
			var legacy, shim configSeen
			{
				c := gocqlv1.NewCluster(sim.Addrs()...)
				c.ProtoVersion, c.Keyspace, c.DisableInitialHostLookup = 4, "rc", true
				c.Timeout, c.Logger = 10*time.Second, configQuietLogger{}
				st.legacy(c, &legacy)
				s, err := c.CreateSession()
				legacy.add("create: %v", err)
				if err == nil {
					for k := 0; k < queries; k++ {
						iter := s.Query("SELECT v FROM t WHERE k = ?", k).Iter()
						h := iter.Host()
						legacy.add("ran on %s:%d dc=%q: %v", h.ConnectAddress(), h.Port(), h.DataCenter(), iter.Close())
					}
					s.Close()
				}
			}
			{
				c := gocql.NewCluster(sim.Addrs()...)
				c.ProtoVersion, c.Keyspace, c.DisableInitialHostLookup = 4, "rc", true
				c.Timeout, c.Logger = 10*time.Second, configQuietLogger{}
				st.compat(c, &shim)
				s, err := c.CreateSession()
				shim.add("create: %v", err)
				if err == nil {
					for k := 0; k < queries; k++ {
						iter := s.Query("SELECT v FROM t WHERE k = ?", k).Iter()
						h := iter.Host()
						shim.add("ran on %s:%d dc=%q: %v", h.ConnectAddress(), h.Port(), h.DataCenter(), iter.Close())
					}
					s.Close()
				}
			}
			if legacy.String() != shim.String() {
				t.Errorf("gocql v1.7.0:\n%s\ncompat:\n%s", &legacy, &shim)
			}
		})
	}
}

// configQuietLogger drops the drivers' diagnostics (both log the contact points they skip).
type configQuietLogger struct{}

func (configQuietLogger) Print(...interface{})          {}
func (configQuietLogger) Printf(string, ...interface{}) {}
func (configQuietLogger) Println(...interface{})        {}

// TestReviewReconnectionAndConvictionPoliciesUnused: ReconnectionPolicy and ConvictionPolicy
// have no effect in compat (docs/deviations.md G16), so values on which gocql v1.7.0 panics
// in a goroutine of its connection pool, which ends the program (and so cannot be run here),
// leave the session working (G52): a nil ReconnectionPolicy, one whose GetMaxRetries is 0
// (gocql then opens no connection and uses the nil one: in the pool's goroutine with a
// Keyspace, in the query's without), and a nil ConvictionPolicy (called when a node's pool
// fails to fill).
func TestReviewReconnectionAndConvictionPoliciesUnused(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	cases := map[string]func(c *gocql.ClusterConfig){
		"nil ReconnectionPolicy": func(c *gocql.ClusterConfig) { c.ReconnectionPolicy = nil },
		"no retries": func(c *gocql.ClusterConfig) {
			c.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{}
		},
		"no retries with a keyspace": func(c *gocql.ClusterConfig) {
			c.ReconnectionPolicy, c.Keyspace = &gocql.ExponentialReconnectionPolicy{}, "system"
		},
		"nil ConvictionPolicy": func(c *gocql.ClusterConfig) { c.ConvictionPolicy = nil },
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			c := gocql.NewCluster(sim.Addrs()...)
			c.ProtoVersion, c.Timeout = 4, 10*time.Second
			setup(c)
			s, err := c.CreateSession()
			if err != nil {
				t.Fatalf("CreateSession: %v", err)
			}
			defer s.Close()
			for i := 0; i < 4; i++ {
				if err := s.Query("SELECT key FROM system.local").Exec(); err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
			}
		})
	}
}

// TestReviewNegativeConnectTimeoutLikeGocql: gocql v1.7.0 gives a negative ConnectTimeout to
// its dialer (net.Dialer.Timeout), whose deadline has then passed: every dial times out and
// CreateSession fails. compat took it for "unset" and used the native core's default (10 s),
// so the session opened. ConnectTimeout 0 (no timeout in gocql) opens in both.
func TestReviewNegativeConnectTimeoutLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 1})
	for _, d := range []time.Duration{0, -time.Nanosecond, -time.Second} {
		for _, proto := range []int{0, 4} {
			l := gocqlv1.NewCluster(sim.Addrs()...)
			l.ProtoVersion, l.ConnectTimeout, l.Logger = proto, d, configQuietLogger{}
			ls, lerr := l.CreateSession()
			if lerr == nil {
				lerr = ls.Query("SELECT key FROM system.local").Exec()
				ls.Close()
			}
			c := gocql.NewCluster(sim.Addrs()...)
			c.ProtoVersion, c.ConnectTimeout, c.Logger = proto, d, configQuietLogger{}
			cs, cerr := c.CreateSession()
			if cerr == nil {
				cerr = cs.Query("SELECT key FROM system.local").Exec()
				cs.Close()
			}
			if show(lerr) != show(cerr) {
				t.Errorf("ConnectTimeout %v, ProtoVersion %d:\ngocql v1.7.0: %s\ncompat:       %s", d, proto, show(lerr), show(cerr))
			}
		}
	}
}
