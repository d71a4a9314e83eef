package gocql

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// The tests of this file check compat's behaviour on node failure and recovery and its host
// selection against gocql v1.7.0, both drivers running on the same embedded cqlsim cluster.

// failoverDeadline bounds every wait for an eventual condition.
const failoverDeadline = 30 * time.Second

// failoverSessions starts a cqlsim cluster of n nodes and returns it with a compat and a gocql
// v1.7.0 session on it, configured alike by setup (given each driver's ClusterConfig).
func failoverSessions(t *testing.T, n int, setup func(c *ClusterConfig, l *gocqlv1.ClusterConfig)) (*cqlsim.Cluster, *Session, *gocqlv1.Session) {
	t.Helper()
	return failoverSessionsOn(t, cqlsim.Options{Nodes: n}, setup)
}

// failoverSessionsOn is failoverSessions on a cluster started with opts.
func failoverSessionsOn(t *testing.T, opts cqlsim.Options, setup func(c *ClusterConfig, l *gocqlv1.ClusterConfig)) (*cqlsim.Cluster, *Session, *gocqlv1.Session) {
	t.Helper()
	sim := cqlsim.StartT(t, opts)
	s, ls := sessionsOn(t, sim, setup)
	return sim, s, ls
}

// sessionsOn returns a compat and a gocql v1.7.0 session on sim, configured alike by setup.
func sessionsOn(t *testing.T, sim *cqlsim.Cluster, setup func(c *ClusterConfig, l *gocqlv1.ClusterConfig)) (*Session, *gocqlv1.Session) {
	t.Helper()
	c := NewCluster(sim.Addrs()[0])
	c.Port = sim.Port()
	c.Consistency = One
	c.Timeout = 10 * time.Second
	l := gocqlv1.NewCluster(sim.Addrs()[0])
	l.Port = sim.Port()
	l.Consistency = gocqlv1.One
	l.Timeout = 10 * time.Second
	if setup != nil {
		setup(c, l)
	}
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("compat CreateSession: %v", err)
	}
	t.Cleanup(s.Close)
	ls, err := l.CreateSession()
	if err != nil {
		t.Fatalf("gocql v1.7.0 CreateSession: %v", err)
	}
	t.Cleanup(ls.Close)
	return s, ls
}

// ipOfAddr returns the IP of a host:port address.
func ipOfAddr(t *testing.T, addr string) string {
	t.Helper()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return host
}

// eventually polls cond until it holds, failing the test after failoverDeadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(failoverDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", failoverDeadline, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// legacyObserver records gocql v1.7.0's observed queries.
type legacyObserver struct {
	mu  sync.Mutex
	got []gocqlv1.ObservedQuery
}

func (o *legacyObserver) ObserveQuery(_ context.Context, q gocqlv1.ObservedQuery) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, q)
}

func (o *legacyObserver) all() []gocqlv1.ObservedQuery {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]gocqlv1.ObservedQuery(nil), o.got...)
}

// strangerFirst is a policy whose plans start with a host that is not (or no longer) a node of
// the cluster, then follow the wrapped policy: a policy that kept a node that left, say.
type strangerFirst struct {
	HostSelectionPolicy
	stranger *HostInfo
}

func (p *strangerFirst) Pick(q ExecutableQuery) NextHost {
	next, first := p.HostSelectionPolicy.Pick(q), true
	return func() SelectedHost {
		if first {
			first = false
			return (*selectedHost)(p.stranger)
		}
		return next()
	}
}

type legacyStrangerFirst struct {
	gocqlv1.HostSelectionPolicy
	stranger *gocqlv1.HostInfo
}

type legacySelected struct{ h *gocqlv1.HostInfo }

func (s legacySelected) Info() *gocqlv1.HostInfo { return s.h }
func (s legacySelected) Mark(error)              {}

func (p *legacyStrangerFirst) Pick(q gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	next, first := p.HostSelectionPolicy.Pick(q), true
	return func() gocqlv1.SelectedHost {
		if first {
			first = false
			return legacySelected{p.stranger}
		}
		return next()
	}
}

// TestReviewFailoverHostWithoutConnectionIsSkipped: gocql v1.7.0 skips a host of the plan it
// has no connection to (no pool, or a pool with no connection): no attempt is made, observed
// or counted, the retry policy is not asked, and the query goes to the next host. compat made
// an attempt there that failed (ErrConnectionClosed), which, without a retry policy, failed
// the query.
func TestReviewFailoverHostWithoutConnectionIsSkipped(t *testing.T) {
	var stranger net.IP
	sim, s, ls := failoverSessions(t, 3, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		stranger = net.ParseIP("127.0.0.9")
		c.PoolConfig.HostSelectionPolicy = &strangerFirst{RoundRobinHostPolicy(), (&HostInfo{}).SetConnectAddress(stranger)}
		l.PoolConfig.HostSelectionPolicy = &legacyStrangerFirst{gocqlv1.RoundRobinHostPolicy(), (&gocqlv1.HostInfo{}).SetConnectAddress(stranger)}
	})
	_ = sim
	const stmt = "SELECT key FROM system.local"
	for i := 0; i < 3; i++ {
		lobs := &legacyObserver{}
		lq := ls.Query(stmt).Observer(lobs)
		if err := lq.Exec(); err != nil {
			t.Fatalf("gocql v1.7.0: %v", err)
		}
		obs := &countingObserver{}
		q := s.Query(stmt).Observer(obs)
		if err := q.Exec(); err != nil {
			t.Fatalf("query %d with a host without connection first in the plan: %v", i, err)
		}
		lgot, got := lobs.all(), obs.all()
		if len(lgot) != 1 || lq.Attempts() != 1 {
			t.Fatalf("gocql v1.7.0 made %d observed attempts (Attempts %d), the test expects 1", len(lgot), lq.Attempts())
		}
		if len(got) != 1 || q.Attempts() != 1 || got[0].Host.ConnectAddress().Equal(stranger) || got[0].Err != nil {
			t.Fatalf("query %d: %d observed attempts (%+v), Attempts %d; want one, on a node of the cluster, as gocql v1.7.0", i, len(got), got, q.Attempts())
		}
	}
	// The same for a batch.
	for _, create := range []string{
		"CREATE KEYSPACE fo WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"CREATE TABLE fo.t (id int PRIMARY KEY, v int)",
	} {
		if err := ls.Query(create).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	lb := ls.NewBatch(gocqlv1.UnloggedBatch)
	lb.Query("INSERT INTO fo.t (id, v) VALUES (?, ?)", 1, 1)
	if err := ls.ExecuteBatch(lb); err != nil || lb.Attempts() != 1 {
		t.Fatalf("gocql v1.7.0 batch: %v, %d attempts", err, lb.Attempts())
	}
	b := s.NewBatch(UnloggedBatch)
	b.Query("INSERT INTO fo.t (id, v) VALUES (?, ?)", 2, 2)
	if err := s.ExecuteBatch(b); err != nil || b.Attempts() != 1 {
		t.Fatalf("batch with a host without connection first in the plan: %v, %d attempts, want nil and 1 as gocql v1.7.0", err, b.Attempts())
	}
}

// TestReviewFailoverQueriesDuringOutage: a query run after a node stopped, while the session
// still counts it up (compat re-reads the topology every second; gocql until its pool fails to
// refill or the DOWN event arrives), goes to the next host without an error and without an
// attempt on the stopped node, as in gocql v1.7.0, whose pool then has no connection to pick.
// The session's view is held still here to make that window last.
func TestReviewFailoverQueriesDuringOutage(t *testing.T) {
	sim, s, _ := failoverSessions(t, 3, nil)
	down := sim.Addrs()[2]
	eventually(t, "the session does not see three nodes up", func() bool {
		n := 0
		for _, h := range s.allHosts() {
			if h.IsUp() {
				n++
			}
		}
		return n == 3
	})
	s.hostsMu.Lock() // the topology refresh waits: the stopped node stays up in the session's view
	locked := true
	defer func() {
		if locked {
			s.hostsMu.Unlock()
		}
	}()
	if err := sim.StopNode(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the native core still has a connection to the stopped node", func() bool {
		for _, h := range s.native.Hosts() {
			if h.Addr == down {
				return !h.Up
			}
		}
		return true
	})
	if h := s.hosts[down]; h == nil || !h.IsUp() {
		t.Fatal("the session's view changed while held")
	}
	obs := &countingObserver{}
	for i := 0; i < 6; i++ { // round-robin: two plans start on the stopped node
		q := s.Query("SELECT key FROM system.local").Observer(obs)
		if err := q.Exec(); err != nil {
			t.Fatalf("query %d while the stopped node is still up in the session's view: %v", i, err)
		}
		if q.Attempts() != 1 {
			t.Fatalf("query %d: %d attempts, want 1", i, q.Attempts())
		}
	}
	for _, o := range obs.all() {
		if o.Host.dialAddr() == down || o.Err != nil {
			t.Fatalf("an attempt on %v (err %v) while %s is stopped", o.Host, o.Err, down)
		}
	}
	s.hostsMu.Unlock()
	locked = false
}

// reviewHostList is the state of listPolicy and legacyListPolicy: hosts in the order AddHost gave
// them, one per connect address, and where the next plan starts.
type reviewHostList[H interface{ ConnectAddress() net.IP }] struct {
	mu    sync.Mutex
	hosts []H
	next  int
}

func (l *reviewHostList[H]) add(h H) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.hosts {
		if x.ConnectAddress().Equal(h.ConnectAddress()) {
			return
		}
	}
	l.hosts = append(l.hosts, h)
}

func (l *reviewHostList[H]) remove(h H) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.hosts {
		if x.ConnectAddress().Equal(h.ConnectAddress()) {
			l.hosts = append(l.hosts[:i:i], l.hosts[i+1:]...)
			return
		}
	}
}

// has reports whether a host with the connect address ip is in the list.
func (l *reviewHostList[H]) has(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	found := false
	for _, h := range l.hosts {
		found = found || h.ConnectAddress().String() == ip
	}
	return found
}

// plan returns the hosts of a round-robin plan over the list as it is now, one a call, then
// false.
func (l *reviewHostList[H]) plan() func() (H, bool) {
	l.mu.Lock()
	hosts := append([]H(nil), l.hosts...)
	start := l.next
	l.next++
	l.mu.Unlock()
	i := 0
	return func() (H, bool) {
		if i >= len(hosts) {
			var none H
			return none, false
		}
		i++
		return hosts[(start+i-1)%len(hosts)], true
	}
}

// listPolicy is a host selection policy written for gocql v1.7.0: it keeps the hosts given to
// AddHost, forgets those given to RemoveHost or HostDown, and ignores HostUp, which gocql
// calls only after AddHost. Its plans round-robin over its hosts.
type listPolicy struct {
	HostSelectionPolicy // for the methods not overridden
	list                reviewHostList[*HostInfo]
}

func (p *listPolicy) AddHost(h *HostInfo)    { p.list.add(h) }
func (p *listPolicy) RemoveHost(h *HostInfo) { p.list.remove(h) }
func (p *listPolicy) HostDown(h *HostInfo)   { p.RemoveHost(h) }
func (p *listPolicy) HostUp(*HostInfo)       {}

func (p *listPolicy) Pick(ExecutableQuery) NextHost {
	next := p.list.plan()
	return func() SelectedHost {
		if h, ok := next(); ok {
			return (*selectedHost)(h)
		}
		return nil
	}
}

// legacyListPolicy is listPolicy for gocql v1.7.0.
type legacyListPolicy struct {
	gocqlv1.HostSelectionPolicy
	list reviewHostList[*gocqlv1.HostInfo]
}

func (p *legacyListPolicy) AddHost(h *gocqlv1.HostInfo)    { p.list.add(h) }
func (p *legacyListPolicy) RemoveHost(h *gocqlv1.HostInfo) { p.list.remove(h) }
func (p *legacyListPolicy) HostDown(h *gocqlv1.HostInfo)   { p.RemoveHost(h) }
func (p *legacyListPolicy) HostUp(*gocqlv1.HostInfo)       {}

func (p *legacyListPolicy) Pick(gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	next := p.list.plan()
	return func() gocqlv1.SelectedHost {
		if h, ok := next(); ok {
			return legacySelected{h}
		}
		return nil
	}
}

// TestReviewFailoverRestartedNodeAddedToPolicy: when a stopped node comes back, gocql v1.7.0
// calls the policy's AddHost and then HostUp, so a policy that forgets a host on HostDown and
// learns hosts from AddHost sends queries to the node again. compat called only HostUp: such
// a policy never used the node again. Queries during the outage succeed on both drivers.
func TestReviewFailoverRestartedNodeAddedToPolicy(t *testing.T) {
	cp := &listPolicy{HostSelectionPolicy: RoundRobinHostPolicy()}
	lp := &legacyListPolicy{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy()}
	sim, s, ls := failoverSessions(t, 3, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = cp
		l.PoolConfig.HostSelectionPolicy = lp
	})
	node := ipOfAddr(t, sim.Addrs()[2])
	has := func() (compat, legacy bool) { return cp.list.has(node), lp.list.has(node) }
	eventually(t, "the policies do not know the third node", func() bool { c, l := has(); return c && l })
	if err := sim.StopNode(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the policies were not told the third node is down", func() bool { c, l := has(); return !c && !l })
	for i := 0; i < 6; i++ {
		if err := ls.Query("SELECT key FROM system.local").Exec(); err != nil {
			t.Fatalf("gocql v1.7.0, a node down: %v", err)
		}
		if err := s.Query("SELECT key FROM system.local").Exec(); err != nil {
			t.Fatalf("a node down: %v", err)
		}
	}
	if err := sim.StartNode(2); err != nil {
		t.Fatal(err)
	}
	cobs, lobs := &countingObserver{}, &legacyObserver{}
	var cback, lback bool
	deadline := time.Now().Add(failoverDeadline)
	for !(cback && lback) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v the restarted node is queried again by compat: %v, by gocql v1.7.0: %v", failoverDeadline, cback, lback)
		}
		time.Sleep(20 * time.Millisecond)
		if !lback {
			if err := ls.Query("SELECT key FROM system.local").Observer(lobs).Exec(); err != nil {
				t.Fatalf("gocql v1.7.0, a node restarting: %v", err)
			}
			for _, o := range lobs.all() {
				lback = lback || (o.Host.ConnectAddress().String() == node && o.Err == nil)
			}
		}
		if !cback {
			if err := s.Query("SELECT key FROM system.local").Observer(cobs).Exec(); err != nil {
				t.Fatalf("a node restarting: %v", err)
			}
			for _, o := range cobs.all() {
				cback = cback || (o.Host.ConnectAddress().String() == node && o.Err == nil)
			}
		}
	}
}

// legacyDownRecorder wraps a gocql v1.7.0 policy and records the hosts it was told are down.
type legacyDownRecorder struct {
	gocqlv1.HostSelectionPolicy
	mu   sync.Mutex
	down map[string]bool
}

func (p *legacyDownRecorder) HostDown(h *gocqlv1.HostInfo) {
	p.HostSelectionPolicy.HostDown(h)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down == nil {
		p.down = map[string]bool{}
	}
	p.down[h.ConnectAddress().String()] = true
}

func (p *legacyDownRecorder) isDown(ip string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down[ip]
}

// TestReviewFailoverRoundRobinWithANodeDown: gocql v1.7.0's round-robin policies drop a host
// on HostDown, so the nodes left up share the queries evenly. compat kept the down host in the
// rotation and skipped it, so the host after it in the rotation took its share too (two thirds
// of the queries on one of two nodes left, with three nodes).
func TestReviewFailoverRoundRobinWithANodeDown(t *testing.T) {
	for _, name := range []string{"RoundRobinHostPolicy", "DCAwareRoundRobinPolicy", "RackAwareRoundRobinPolicy"} {
		t.Run(name, func(t *testing.T) {
			lp := &legacyDownRecorder{}
			sim, s, ls := failoverSessions(t, 3, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
				switch name {
				case "RoundRobinHostPolicy":
					c.PoolConfig.HostSelectionPolicy = RoundRobinHostPolicy()
					lp.HostSelectionPolicy = gocqlv1.RoundRobinHostPolicy()
				case "DCAwareRoundRobinPolicy":
					c.PoolConfig.HostSelectionPolicy = DCAwareRoundRobinPolicy(cqlsim.DefaultDataCenter)
					lp.HostSelectionPolicy = gocqlv1.DCAwareRoundRobinPolicy(cqlsim.DefaultDataCenter)
				case "RackAwareRoundRobinPolicy":
					c.PoolConfig.HostSelectionPolicy = RackAwareRoundRobinPolicy(cqlsim.DefaultDataCenter, cqlsim.DefaultRack)
					lp.HostSelectionPolicy = gocqlv1.RackAwareRoundRobinPolicy(cqlsim.DefaultDataCenter, cqlsim.DefaultRack)
				}
				l.PoolConfig.HostSelectionPolicy = lp
			})
			down := sim.Addrs()[1]
			if err := sim.StopNode(1); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the policies were not told the stopped node is down", func() bool {
				s.hostsMu.Lock() // held by a refresh from a host's state change to the policy's HostDown
				h := s.hosts[down]
				up := h != nil && h.IsUp()
				s.hostsMu.Unlock()
				return !up && lp.isDown(ipOfAddr(t, down))
			})
			count := func(run func(i int) string) map[string]int {
				m := map[string]int{}
				for i := 0; i < 12; i++ {
					m[run(i)]++
				}
				return m
			}
			legacy := count(func(i int) string {
				obs := &legacyObserver{}
				if err := ls.Query("SELECT key FROM system.local").Observer(obs).Exec(); err != nil {
					t.Fatalf("gocql v1.7.0 query %d: %v", i, err)
				}
				return obs.all()[0].Host.ConnectAddress().String()
			})
			compat := count(func(i int) string {
				obs := &countingObserver{}
				if err := s.Query("SELECT key FROM system.local").Observer(obs).Exec(); err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
				return obs.all()[0].Host.ConnectAddress().String()
			})
			if len(legacy) != 2 || legacy[ipOfAddr(t, sim.Addrs()[0])] != 6 {
				t.Fatalf("gocql v1.7.0 sent 12 queries to %v, the test expects 6 to each node up", legacy)
			}
			if len(compat) != 2 || compat[ipOfAddr(t, sim.Addrs()[0])] != 6 {
				t.Fatalf("12 queries with a node down went to %v; gocql v1.7.0 sends 6 to each node up (%v)", compat, legacy)
			}
		})
	}
}

// TestReviewFailoverTokenAwareFallbackRotation: gocql v1.7.0's token-aware policy asks its
// fallback for a plan only when the replicas are used up, so queries served by a replica leave
// the fallback's round-robin position alone. compat asked the fallback for every query: on
// four nodes, queries without a routing key alternating with routed ones only ever started on
// two of the nodes.
// (The "wrapped" case runs the policy's Pick, the other one the session's own walk of the
// built-in policies' plans.)
func TestReviewFailoverTokenAwareFallbackRotation(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		name := "TokenAwareHostPolicy"
		if wrapped {
			name = "wrapped"
		}
		t.Run(name, func(t *testing.T) { testTokenAwareFallbackRotation(t, wrapped) })
	}
}

// wrappedPolicy hides the type of the policy it embeds.
type wrappedPolicy struct{ HostSelectionPolicy }

func testTokenAwareFallbackRotation(t *testing.T, wrapped bool) {
	_, s, ls := failoverSessions(t, 4, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = TokenAwareHostPolicy(RoundRobinHostPolicy())
		if wrapped {
			c.PoolConfig.HostSelectionPolicy = wrappedPolicy{c.PoolConfig.HostSelectionPolicy}
		}
		l.PoolConfig.HostSelectionPolicy = gocqlv1.TokenAwareHostPolicy(gocqlv1.RoundRobinHostPolicy())
	})
	for _, stmt := range []string{
		"CREATE KEYSPACE ta WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ta.t (id int PRIMARY KEY, v int)",
	} {
		if err := ls.Query(stmt).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	legacy, compat := map[string]int{}, map[string]int{}
	for i := 0; i < 8; i++ {
		lobs, cobs := &legacyObserver{}, &countingObserver{}
		if err := ls.Query("SELECT v FROM ta.t WHERE id = ?", 7).Exec(); err != nil {
			t.Fatalf("gocql v1.7.0 routed query: %v", err)
		}
		if err := ls.Query("SELECT key FROM system.local").Observer(lobs).Exec(); err != nil {
			t.Fatalf("gocql v1.7.0 query: %v", err)
		}
		legacy[lobs.all()[0].Host.ConnectAddress().String()]++
		if err := s.Query("SELECT v FROM ta.t WHERE id = ?", 7).Exec(); err != nil {
			t.Fatalf("routed query: %v", err)
		}
		if err := s.Query("SELECT key FROM system.local").Observer(cobs).Exec(); err != nil {
			t.Fatalf("query: %v", err)
		}
		compat[cobs.all()[0].Host.ConnectAddress().String()]++
	}
	if len(legacy) != 4 {
		t.Fatalf("gocql v1.7.0 sent the queries without a routing key to %v, the test expects all four nodes", legacy)
	}
	if len(compat) != 4 {
		t.Fatalf("queries without a routing key, each after a routed one, went to %v; gocql v1.7.0 spreads them over the four nodes (%v)", compat, legacy)
	}
}

// TestReviewFailoverNodeDownAtCreateSession: a node that is down when the session is created
// is given to the policy's AddHost and then, its pool failing to connect, HostDown by gocql
// v1.7.0, whose round-robin then shares the queries evenly between the nodes up. compat only
// called AddHost, leaving the down node in the rotation (the node after it took its share).
// When the node starts, both drivers use it again.
func TestReviewFailoverNodeDownAtCreateSession(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	if err := sim.StopNode(1); err != nil {
		t.Fatal(err)
	}
	c := NewCluster(sim.Addrs()[0])
	c.Port = sim.Port()
	c.Consistency = One
	lp := &legacyDownRecorder{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy()}
	l := gocqlv1.NewCluster(sim.Addrs()[0])
	l.Port = sim.Port()
	l.Consistency = gocqlv1.One
	l.PoolConfig.HostSelectionPolicy = lp
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ls, err := l.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	down := ipOfAddr(t, sim.Addrs()[1])
	eventually(t, "gocql v1.7.0 did not tell its policy the stopped node is down", func() bool { return lp.isDown(down) })
	legacy, compat := map[string]int{}, map[string]int{}
	for i := 0; i < 12; i++ {
		lobs, cobs := &legacyObserver{}, &countingObserver{}
		if err := ls.Query("SELECT key FROM system.local").Observer(lobs).Exec(); err != nil {
			t.Fatalf("gocql v1.7.0: %v", err)
		}
		legacy[lobs.all()[0].Host.ConnectAddress().String()]++
		if err := s.Query("SELECT key FROM system.local").Observer(cobs).Exec(); err != nil {
			t.Fatal(err)
		}
		compat[cobs.all()[0].Host.ConnectAddress().String()]++
	}
	if len(legacy) != 2 || legacy[ipOfAddr(t, sim.Addrs()[0])] != 6 {
		t.Fatalf("gocql v1.7.0 sent 12 queries to %v, the test expects 6 to each node up", legacy)
	}
	if len(compat) != 2 || compat[ipOfAddr(t, sim.Addrs()[0])] != 6 {
		t.Fatalf("12 queries with a node down since CreateSession went to %v; gocql v1.7.0 sends 6 to each node up (%v)", compat, legacy)
	}
	if err := sim.StartNode(1); err != nil {
		t.Fatal(err)
	}
	cback, lback := false, false
	deadline := time.Now().Add(failoverDeadline)
	for !(cback && lback) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v the started node is queried by compat: %v, by gocql v1.7.0: %v", failoverDeadline, cback, lback)
		}
		time.Sleep(20 * time.Millisecond)
		lobs, cobs := &legacyObserver{}, &countingObserver{}
		if err := ls.Query("SELECT key FROM system.local").Observer(lobs).Exec(); err != nil {
			t.Fatalf("gocql v1.7.0: %v", err)
		}
		lback = lback || lobs.all()[0].Host.ConnectAddress().String() == down
		if err := s.Query("SELECT key FROM system.local").Observer(cobs).Exec(); err != nil {
			t.Fatal(err)
		}
		cback = cback || cobs.all()[0].Host.ConnectAddress().String() == down
	}
}

// TestReviewFailoverHostFilterAndContactPoints: gocql v1.7.0 opens its control connection
// only to a contact point its HostFilter accepts: when it accepts none, CreateSession fails
// ("host was filtered"), even if it accepts other nodes of the cluster. compat's control
// connection used any contact point, so such a session was created, with a connection to a
// node the filter excludes; and a filter accepting no node at all failed with another error.
// With a contact point the filter accepts, both drivers send queries only to accepted nodes.
func TestReviewFailoverHostFilterAndContactPoints(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	ip := func(i int) string { return ipOfAddr(t, sim.Addrs()[i]) }
	create := func(contacts []string, filter func() (HostFilter, gocqlv1.HostFilter)) (*Session, *gocqlv1.Session, error, error) {
		c := NewCluster(contacts...)
		c.Port = sim.Port()
		c.Consistency = One
		l := gocqlv1.NewCluster(contacts...)
		l.Port = sim.Port()
		l.Consistency = gocqlv1.One
		l.Logger = nopLogger{}
		c.HostFilter, l.HostFilter = filter()
		s, err := c.CreateSession()
		if err == nil {
			t.Cleanup(s.Close)
		}
		ls, lerr := l.CreateSession()
		if lerr == nil {
			t.Cleanup(ls.Close)
		}
		return s, ls, err, lerr
	}
	for _, tc := range []struct {
		name   string
		filter func() (HostFilter, gocqlv1.HostFilter)
	}{
		{"WhiteListHostFilter", func() (HostFilter, gocqlv1.HostFilter) {
			return WhiteListHostFilter(ip(1), ip(2)), gocqlv1.WhiteListHostFilter(ip(1), ip(2))
		}},
		{"DataCentreHostFilter", func() (HostFilter, gocqlv1.HostFilter) {
			return DataCentreHostFilter("dc2"), gocqlv1.DataCentreHostFilter("dc2")
		}},
	} {
		// The contact point by address, and by a name (the error names the address).
		for _, contact := range []string{ip(0), "localhost"} {
			_, _, err, lerr := create([]string{contact}, tc.filter)
			if lerr == nil {
				t.Fatalf("%s: gocql v1.7.0 created a session whose only contact point (%s) is filtered out", tc.name, contact)
			}
			if err == nil || err.Error() != lerr.Error() {
				t.Errorf("%s excluding the only contact point %s: CreateSession error %v, want gocql v1.7.0's %q", tc.name, contact, err, lerr)
			}
		}
	}
	s, ls, err, lerr := create([]string{ip(0), ip(1)}, func() (HostFilter, gocqlv1.HostFilter) {
		return WhiteListHostFilter(ip(1), ip(2)), gocqlv1.WhiteListHostFilter(ip(1), ip(2))
	})
	if err != nil || lerr != nil {
		t.Fatalf("a filter accepting one of the contact points: CreateSession: %v (gocql v1.7.0: %v)", err, lerr)
	}
	cobs, lobs := &countingObserver{}, &legacyObserver{}
	for i := 0; i < 6; i++ {
		if err := ls.Query("SELECT key FROM system.local").Observer(lobs).Exec(); err != nil {
			t.Fatalf("gocql v1.7.0: %v", err)
		}
		if err := s.Query("SELECT key FROM system.local").Observer(cobs).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range lobs.all() {
		if o.Host.ConnectAddress().String() == ip(0) {
			t.Fatalf("gocql v1.7.0 queried the excluded node")
		}
	}
	for _, o := range cobs.all() {
		if o.Host.ConnectAddress().String() == ip(0) {
			t.Fatalf("a query went to the node the filter excludes")
		}
	}
}

// nopLogger discards gocql v1.7.0's log (its failed control connection attempts).
type nopLogger struct{}

func (nopLogger) Print(...interface{})          {}
func (nopLogger) Printf(string, ...interface{}) {}
func (nopLogger) Println(...interface{})        {}

// acceptCounter is a slog.Handler counting the connections each cqlsim node accepted.
type acceptCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (a *acceptCounter) Enabled(context.Context, slog.Level) bool { return true }
func (a *acceptCounter) WithAttrs([]slog.Attr) slog.Handler       { return a }
func (a *acceptCounter) WithGroup(string) slog.Handler            { return a }

func (a *acceptCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "cqlsim: connection accepted" {
		return nil
	}
	r.Attrs(func(at slog.Attr) bool {
		if at.Key == "node" {
			a.mu.Lock()
			if a.n == nil {
				a.n = map[string]int{}
			}
			a.n[at.Value.String()]++
			a.mu.Unlock()
		}
		return true
	})
	return nil
}

func (a *acceptCounter) count(node string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n[node]
}

// TestReviewFailoverDroppedConnectionIsReplaced: when a connection is lost while the node
// stays up (here cut right after a query is written, as a firewall or a dead peer found by a
// heartbeat would; this test used to send a frame over cqlsim's size limit, which cqlsim no
// longer closes connections for, as Cassandra does not), gocql v1.7.0's pool dials again at
// once, and the node, with one connection per host, keeps being used. The native core
// dialled again only when a request picked the node, which compat, routing around nodes
// without connection, never did: the node was left out for good (until a topology event).
func TestReviewFailoverDroppedConnectionIsReplaced(t *testing.T) {
	const big = "cut the connection after this value"
	const stmt = "SELECT key FROM system.local WHERE key = ?"

	// compat, on a cluster of its own, whose accepted connections are counted.
	accepted := &acceptCounter{}
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Logger: slog.New(accepted)})
	c := NewCluster(sim.Addrs()[0])
	c.Port = sim.Port()
	c.Consistency = One
	c.NumConns = 1
	cut := &cqltest.PrepareCutter{Mark: []byte(big), AnyFrame: true}
	c.Dialer = cut
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Query(stmt, "local").Exec(); err != nil { // prepared: only the execution is too large
		t.Fatal(err)
	}
	// The pool may dial again before Exec returns: count the connections from before the cut.
	before := make(map[string]int)
	for _, addr := range sim.Addrs() {
		before[addr] = accepted.count(addr)
	}
	obs := &countingObserver{}
	cut.Armed.Store(true)
	if err := s.Query(stmt, big).Observer(obs).Exec(); err == nil {
		t.Fatal("a query whose connection was cut succeeded")
	}
	dropped := obs.all()[0].Host.dialAddr()
	eventually(t, "no new connection to the node that dropped the session's only one", func() bool {
		return accepted.count(dropped) > before[dropped]
	})
	node := ipOfAddr(t, dropped)
	eventually(t, "the node that dropped a connection is not queried again", func() bool {
		o := &countingObserver{}
		if err := s.Query("SELECT key FROM system.local").Observer(o).Exec(); err != nil {
			t.Fatal(err)
		}
		return o.all()[0].Host.ConnectAddress().String() == node
	})

	// gocql v1.7.0, on another cluster.
	lsim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	l := gocqlv1.NewCluster(lsim.Addrs()[0])
	l.Port = lsim.Port()
	l.Consistency = gocqlv1.One
	l.NumConns = 1
	lcut := &cqltest.PrepareCutter{Mark: []byte(big), AnyFrame: true}
	l.Dialer = lcut
	ls, err := l.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	if err := ls.Query(stmt, "local").Exec(); err != nil {
		t.Fatal(err)
	}
	lobs := &legacyObserver{}
	lcut.Armed.Store(true)
	// gocql's default retry policy may send the query again to another node: its first
	// attempt is the one whose connection was cut.
	_ = ls.Query(stmt, big).Observer(lobs).Exec()
	if lcut.Armed.Load() {
		t.Fatal("gocql v1.7.0: no connection was cut")
	}
	lnode := lobs.all()[0].Host.ConnectAddress().String()
	eventually(t, "gocql v1.7.0 does not query the node that dropped a connection again", func() bool {
		o := &legacyObserver{}
		if err := ls.Query("SELECT key FROM system.local").Observer(o).Exec(); err != nil {
			t.Fatalf("gocql v1.7.0: %v", err)
		}
		return o.all()[0].Host.ConnectAddress().String() == lnode
	})
}
