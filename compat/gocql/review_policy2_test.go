package gocql

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"
	"github.com/hailocab/go-hostpool"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// The tests of this file compare compat's host selection with gocql v1.7.0's on one cqlsim
// cluster: what a plan of a custom policy yields, and how the session runs it.

// entriesFirst is a policy whose plans start with the given entries (made for each plan by
// make), then follow the wrapped policy.
type entriesFirst struct {
	HostSelectionPolicy
	make func() []SelectedHost
}

func (p *entriesFirst) Pick(q ExecutableQuery) NextHost {
	next, first := p.HostSelectionPolicy.Pick(q), p.make()
	return func() SelectedHost {
		if len(first) > 0 {
			h := first[0]
			first = first[1:]
			return h
		}
		return next()
	}
}

// legacyEntriesFirst is entriesFirst for gocql v1.7.0.
type legacyEntriesFirst struct {
	gocqlv1.HostSelectionPolicy
	make func() []gocqlv1.SelectedHost
}

func (p *legacyEntriesFirst) Pick(q gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	next, first := p.HostSelectionPolicy.Pick(q), p.make()
	return func() gocqlv1.SelectedHost {
		if len(first) > 0 {
			h := first[0]
			first = first[1:]
			return h
		}
		return next()
	}
}

// emptyPlan is a policy whose plans are empty.
type emptyPlan struct{ HostSelectionPolicy }

func (emptyPlan) Pick(ExecutableQuery) NextHost { return func() SelectedHost { return nil } }

type legacyEmptyPlan struct{ gocqlv1.HostSelectionPolicy }

func (legacyEmptyPlan) Pick(gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	return func() gocqlv1.SelectedHost { return nil }
}

// noInfo is a SelectedHost without a host.
type noInfo struct{ marks *[]error }

func (noInfo) Info() *HostInfo  { return nil }
func (n noInfo) Mark(err error) { *n.marks = append(*n.marks, err) }

// TestReviewPolicyEntryWithoutHostIsSkipped: gocql v1.7.0 skips a plan entry whose Info() is
// nil (or a HostInfo of no node it has a pool for, such as a zero HostInfo), without an
// attempt: a plan made only of such entries fails with ErrNoConnections.
func TestReviewPolicyEntryWithoutHostIsSkipped(t *testing.T) {
	_, s, ls := failoverSessions(t, 3, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = &entriesFirst{emptyPlan{RoundRobinHostPolicy()}, func() []SelectedHost {
			var marks []error
			return []SelectedHost{noInfo{&marks}, (*selectedHost)(nil), (*selectedHost)(&HostInfo{})}
		}}
		l.PoolConfig.HostSelectionPolicy = &legacyEntriesFirst{legacyEmptyPlan{gocqlv1.RoundRobinHostPolicy()}, func() []gocqlv1.SelectedHost {
			return []gocqlv1.SelectedHost{legacySelected{nil}, legacySelected{&gocqlv1.HostInfo{}}}
		}}
	})
	const stmt = "SELECT key FROM system.local"
	lerr := ls.Query(stmt).Exec()
	if !errors.Is(lerr, gocqlv1.ErrNoConnections) {
		t.Fatalf("gocql v1.7.0: %v, the test expects ErrNoConnections", lerr)
	}
	obs := &countingObserver{}
	q := s.Query(stmt).Observer(obs)
	if err := q.Exec(); err != ErrNoConnections || len(obs.all()) != 0 || q.Attempts() != 0 {
		t.Fatalf("plan of entries without a node: %v, %d observed attempts, Attempts %d; want ErrNoConnections and no attempt, as gocql v1.7.0", err, len(obs.all()), q.Attempts())
	}
}

// nilPlan is a policy whose Pick returns no plan (a nil NextHost).
type nilPlan struct{ HostSelectionPolicy }

func (nilPlan) Pick(ExecutableQuery) NextHost { return nil }

type legacyNilPlan struct{ gocqlv1.HostSelectionPolicy }

func (legacyNilPlan) Pick(gocqlv1.ExecutableQuery) gocqlv1.NextHost { return nil }

// TestReviewPolicyNilPlan: a policy whose Pick returns a nil NextHost makes gocql v1.7.0 panic
// (a call of the nil function) on every query; compat fails the query with ErrNoConnections,
// as for an empty plan (docs/deviations.md G54).
func TestReviewPolicyNilPlan(t *testing.T) {
	_, s, ls := failoverSessions(t, 3, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = nilPlan{RoundRobinHostPolicy()}
		l.PoolConfig.HostSelectionPolicy = legacyNilPlan{gocqlv1.RoundRobinHostPolicy()}
	})
	const stmt = "SELECT key FROM system.local"
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("gocql v1.7.0 did not panic on a nil plan; the test expects it to")
			}
		}()
		_ = ls.Query(stmt).Exec()
	}()
	if err := s.Query(stmt).Exec(); err != ErrNoConnections {
		t.Fatalf("query with a nil plan: %v, want ErrNoConnections", err)
	}
	b := s.NewBatch(UnloggedBatch)
	b.Query("SELECT key FROM system.local")
	if err := s.ExecuteBatch(b); err != ErrNoConnections {
		t.Fatalf("batch with a nil plan: %v, want ErrNoConnections", err)
	}
}

// repeatingPlan is a policy whose plans yield the hosts it knows (sorted by address) each
// times times in a row, limit entries at most: a policy such as HostPoolHostPolicy, whose plan
// never ends and may name the same host again and again. calls counts the plan's calls.
type repeatingPlan struct {
	HostSelectionPolicy // keeps the hosts (a round-robin policy)
	known               func() []*HostInfo
	times, limit        int
	calls               atomic.Int64
}

func (p *repeatingPlan) Pick(ExecutableQuery) NextHost {
	hosts := p.known()
	slices.SortFunc(hosts, func(a, b *HostInfo) int {
		return strings.Compare(a.ConnectAddress().String(), b.ConnectAddress().String())
	})
	n := 0
	return func() SelectedHost {
		p.calls.Add(1)
		if n >= p.limit || len(hosts) == 0 {
			return nil
		}
		h := hosts[(n/p.times)%len(hosts)]
		n++
		return (*selectedHost)(h)
	}
}

// legacyRepeatingPlan is repeatingPlan for gocql v1.7.0.
type legacyRepeatingPlan struct {
	gocqlv1.HostSelectionPolicy
	mu           sync.Mutex
	hosts        []*gocqlv1.HostInfo
	times, limit int
	calls        atomic.Int64
}

func (p *legacyRepeatingPlan) AddHost(h *gocqlv1.HostInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hosts = append(p.hosts, h)
}

func (p *legacyRepeatingPlan) Pick(gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	p.mu.Lock()
	hosts := slices.Clone(p.hosts)
	p.mu.Unlock()
	slices.SortFunc(hosts, func(a, b *gocqlv1.HostInfo) int {
		return strings.Compare(a.ConnectAddress().String(), b.ConnectAddress().String())
	})
	n := 0
	return func() gocqlv1.SelectedHost {
		p.calls.Add(1)
		if n >= p.limit || len(hosts) == 0 {
			return nil
		}
		h := hosts[(n/p.times)%len(hosts)]
		n++
		return legacySelected{h}
	}
}

// repeatingSessions starts a cluster of three nodes with keyspace rp (one replica per
// partition), a compat and a gocql v1.7.0 session with TokenAwareHostPolicy over a
// repeatingPlan (times, limit) as fallback, and then makes every statement on rp.t fail with
// Overloaded on every node. It returns the sessions, the fallbacks and a key whose replica is
// the fallback plans' first host.
func repeatingSessions(t *testing.T, times, limit int) (*Session, *gocqlv1.Session, *repeatingPlan, *legacyRepeatingPlan, int) {
	t.Helper()
	rr := RoundRobinHostPolicy().(*roundRobinHostPolicy)
	fb := &repeatingPlan{HostSelectionPolicy: rr, known: func() []*HostInfo { return slices.Clone(rr.hosts.get()) }, times: times, limit: limit}
	lfb := &legacyRepeatingPlan{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy(), times: times, limit: limit}
	sim := keyspaceCluster(t, cqlsim.Options{Nodes: 3}, "rp", "{'class': 'SimpleStrategy', 'replication_factor': 1}")
	p := TokenAwareHostPolicy(fb)
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Keyspace, l.Keyspace = "rp", "rp"
		c.PoolConfig.HostSelectionPolicy, l.PoolConfig.HostSelectionPolicy = p, gocqlv1.TokenAwareHostPolicy(lfb)
	})
	first := planStart(fb.Pick(nil), 1)
	key := -1
	for k := 0; k < 100 && key < 0; k++ {
		if got := planStart(p.Pick(s.Query(repeatingSelect, k)), 1); slices.Equal(got, first) {
			key = k
		}
	}
	if key < 0 {
		t.Fatalf("no key of 0..99 has its replica on %v", first)
	}
	fb.calls.Store(0)
	injectEverywhere(t, sim, cqlsim.Fault{Match: "rp.t", Error: &message.Overloaded{ErrorMessage: "Server is in overloaded state"}})
	return s, ls, fb, lfb, key
}

const repeatingSelect = "SELECT v FROM rp.t WHERE k = ?"

// injectEverywhere injects f into every node of sim.
func injectEverywhere(t *testing.T, sim *cqlsim.Cluster, f cqlsim.Fault) {
	t.Helper()
	for i := range sim.Addrs() {
		if err := sim.InjectFault(i, f); err != nil {
			t.Fatal(err)
		}
	}
}

// attemptHosts returns the addresses of the hosts of the observed attempts, in order.
func attemptHosts[Q any](got []Q, host func(Q) string) []string {
	out := make([]string, len(got))
	for i, q := range got {
		out[i] = host(q)
	}
	return out
}

// TestReviewPolicyTokenAwareFallbackRepeats: TokenAwareHostPolicy skips the hosts its
// fallback's plan names again (a replica already tried, or a host the fallback named before),
// as gocql v1.7.0 does: with a fallback naming each host twice in a row, a query failing
// everywhere is tried once on each node. compat skipped only the replicas, and tried every
// other node twice.
func TestReviewPolicyTokenAwareFallbackRepeats(t *testing.T) {
	s, ls, _, _, key := repeatingSessions(t, 2, 6)
	lobs := &legacyObserver{}
	lerr := ls.Query(repeatingSelect, key).RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 5}).Observer(lobs).Exec()
	obs := &countingObserver{}
	err := s.Query(repeatingSelect, key).RetryPolicy(&SimpleRetryPolicy{NumRetries: 5}).Observer(obs).Exec()
	want := attemptHosts(lobs.all(), func(q gocqlv1.ObservedQuery) string { return q.Host.ConnectAddress().String() })
	got := attemptHosts(obs.all(), func(q ObservedQuery) string { return q.Host.ConnectAddress().String() })
	if len(want) != 3 {
		t.Fatalf("gocql v1.7.0 tried %v (%v), the test expects each of the three nodes once", want, lerr)
	}
	if !slices.Equal(got, want) || err == nil || err.Error() != lerr.Error() {
		t.Fatalf("tried %v (%v), want %v (%v) as gocql v1.7.0", got, err, want, lerr)
	}
}

// TestReviewPolicyTokenAwareStuckFallback: when TokenAwareHostPolicy's fallback plan names
// only hosts already tried, again and again (HostPoolHostPolicy's does once its pool's hosts
// were all tried, or while its best host is the replica), gocql v1.7.0's plan asks it for ever,
// spinning (apache/cassandra-gocql-driver#1259; here the fallback plan ends after 100000
// entries, so gocql's query returns). compat ends the plan after maxFallbackRepeats such
// entries in a row (docs/deviations.md G55): the query fails with the last attempt's error.
func TestReviewPolicyTokenAwareStuckFallback(t *testing.T) {
	const limit = 100000
	s, ls, fb, lfb, key := repeatingSessions(t, limit, limit)
	lerr := ls.Query(repeatingSelect, key).RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 2}).Exec()
	if lfb.calls.Load() != limit+1 || lerr == nil {
		t.Fatalf("gocql v1.7.0: %v after %d calls of the fallback plan; the test expects its %d entries all read", lerr, lfb.calls.Load(), limit)
	}
	done := make(chan error, 1)
	go func() { done <- s.Query(repeatingSelect, key).RetryPolicy(&SimpleRetryPolicy{NumRetries: 2}).Exec() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(failoverDeadline):
		t.Fatalf("the query did not return within %v", failoverDeadline)
	}
	if err == nil || err.Error() != lerr.Error() || fb.calls.Load() > maxFallbackRepeats+1 {
		t.Fatalf("%v after %d calls of the fallback plan; want %v after at most %d", err, fb.calls.Load(), lerr, maxFallbackRepeats+1)
	}
	// The same through the policy's own Pick.
	fb.calls.Store(0)
	next := s.cfg.PoolConfig.HostSelectionPolicy.Pick(s.Query(repeatingSelect, key))
	if got := planStart(next, 10); len(got) != 1 || fb.calls.Load() > maxFallbackRepeats+1 {
		t.Fatalf("Pick's plan: %v after %d calls of the fallback plan; want the replica only after at most %d", got, fb.calls.Load(), maxFallbackRepeats+1)
	}
}

// guardedPool is a host pool whose responses record a Mark of a host the pool no longer has,
// instead of passing it on: go-hostpool's pools end the program then (log.Fatalf).
type guardedPool struct {
	hostpool.HostPool
	stale atomic.Int64
}

func (p *guardedPool) Get() hostpool.HostPoolResponse {
	return guardedResponse{p.HostPool.Get(), p}
}

type guardedResponse struct {
	hostpool.HostPoolResponse
	pool *guardedPool
}

func (r guardedResponse) Mark(err error) {
	if !slices.Contains(r.pool.Hosts(), r.Host()) {
		r.pool.stale.Add(1)
		return
	}
	r.HostPoolResponse.Mark(err)
}

// TestReviewPolicyHostPoolMarkAfterRemoval: HostPoolHostPolicy does not report to its pool the
// outcome of an attempt on a host removed from the policy since the plan named it (a node
// that went down during the query), as gocql v1.7.0 does not: go-hostpool's pools end the
// program (log.Fatalf) on a Mark of a host they do not have. compat passed every Mark on.
func TestReviewPolicyHostPoolMarkAfterRemoval(t *testing.T) {
	hosts := testHosts(2)
	pool := &guardedPool{HostPool: hostpool.New(nil)}
	p := HostPoolHostPolicy(pool)
	for _, h := range hosts {
		p.AddHost(h)
	}
	sel := p.Pick(nil)()
	p.HostDown(sel.Info())
	sel.Mark(errors.New("connection reset"))

	lpool := &guardedPool{HostPool: hostpool.New(nil)}
	lp := gocqlv1.HostPoolHostPolicy(lpool)
	for i := range hosts {
		lp.AddHost((&gocqlv1.HostInfo{}).SetConnectAddress(hosts[i].ConnectAddress()))
	}
	lsel := lp.Pick(nil)()
	lp.HostDown(lsel.Info())
	lsel.Mark(errors.New("connection reset"))
	if lpool.stale.Load() != 0 {
		t.Fatalf("gocql v1.7.0 marked a removed host %d times; the test expects none", lpool.stale.Load())
	}
	if n := pool.stale.Load(); n != 0 {
		t.Fatalf("Mark of a host removed since the plan named it reached the pool (%d times); gocql v1.7.0 drops it", n)
	}
	// A host still in the pool is marked.
	sel = p.Pick(nil)()
	sel.Mark(nil)
	if n := pool.stale.Load(); n != 0 || !slices.Contains(pool.Hosts(), sel.Info().ConnectAddress().String()) {
		t.Fatalf("the pool %v, %d stale marks, after a Mark of %v", pool.Hosts(), n, sel.Info().ConnectAddress())
	}
}

// callCounts counts the calls of a policy's methods, by method name.
type callCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *callCounts) add(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[method]++
}

func (c *callCounts) get() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// countingPolicy is a round-robin policy counting the calls of its methods but Pick.
type countingPolicy struct {
	HostSelectionPolicy
	calls callCounts
}

func (p *countingPolicy) Init(s *Session) { p.calls.add("Init"); p.HostSelectionPolicy.Init(s) }
func (p *countingPolicy) SetPartitioner(part string) {
	p.calls.add("SetPartitioner " + part)
	p.HostSelectionPolicy.SetPartitioner(part)
}
func (p *countingPolicy) AddHost(h *HostInfo) {
	p.calls.add("AddHost")
	p.HostSelectionPolicy.AddHost(h)
}
func (p *countingPolicy) HostUp(h *HostInfo) { p.calls.add("HostUp"); p.HostSelectionPolicy.HostUp(h) }
func (p *countingPolicy) KeyspaceChanged(e KeyspaceUpdateEvent) {
	p.calls.add("KeyspaceChanged")
	p.HostSelectionPolicy.KeyspaceChanged(e)
}

// legacyCountingPolicy is countingPolicy for gocql v1.7.0.
type legacyCountingPolicy struct {
	gocqlv1.HostSelectionPolicy
	calls callCounts
}

func (p *legacyCountingPolicy) Init(s *gocqlv1.Session) {
	p.calls.add("Init")
	p.HostSelectionPolicy.Init(s)
}
func (p *legacyCountingPolicy) SetPartitioner(part string) {
	p.calls.add("SetPartitioner " + part)
	p.HostSelectionPolicy.SetPartitioner(part)
}
func (p *legacyCountingPolicy) AddHost(h *gocqlv1.HostInfo) {
	p.calls.add("AddHost")
	p.HostSelectionPolicy.AddHost(h)
}
func (p *legacyCountingPolicy) HostUp(h *gocqlv1.HostInfo) {
	p.calls.add("HostUp")
	p.HostSelectionPolicy.HostUp(h)
}
func (p *legacyCountingPolicy) KeyspaceChanged(e gocqlv1.KeyspaceUpdateEvent) {
	p.calls.add("KeyspaceChanged")
	p.HostSelectionPolicy.KeyspaceChanged(e)
}

// TestReviewPolicyTokenAwareFallbackCalls: TokenAwareHostPolicy passes to its fallback policy
// what gocql v1.7.0's does: AddHost and HostUp for every node, SetPartitioner once (when the
// partitioner changes), and neither Init (gocql's Init binds the token-aware policy alone) nor
// KeyspaceChanged. compat called the fallback's Init, and its SetPartitioner once per node.
func TestReviewPolicyTokenAwareFallbackCalls(t *testing.T) {
	fb := &countingPolicy{HostSelectionPolicy: RoundRobinHostPolicy()}
	lfb := &legacyCountingPolicy{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy()}
	sim := keyspaceCluster(t, cqlsim.Options{Nodes: 3}, "fc", "{'class': 'SimpleStrategy', 'replication_factor': 1}")
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Keyspace, l.Keyspace = "fc", "fc"
		c.PoolConfig.HostSelectionPolicy, l.PoolConfig.HostSelectionPolicy = TokenAwareHostPolicy(fb), gocqlv1.TokenAwareHostPolicy(lfb)
	})
	// gocql calls HostUp as each node's pool connects, maybe after CreateSession returned.
	deadline := time.Now().Add(failoverDeadline)
	for lfb.calls.get()["HostUp"] < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, q := range []string{"SELECT v FROM fc.t WHERE k = ?"} {
		if err := ls.Query(q, 1).Exec(); err != nil {
			t.Fatal(err)
		}
		if err := s.Query(q, 1).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(lfb.calls.get(), fb.calls.get()); diff != "" {
		t.Fatalf("calls of the fallback policy (-gocql v1.7.0 +compat):\n%s", diff)
	}
}

// TestReviewPolicySessionCalls: at CreateSession, a custom policy gets from compat the calls
// gocql v1.7.0 makes: Init, SetPartitioner once (before the hosts), AddHost and HostUp for
// every node, and KeyspaceChanged for the session keyspace. compat called SetPartitioner once
// per node.
func TestReviewPolicySessionCalls(t *testing.T) {
	p := &countingPolicy{HostSelectionPolicy: RoundRobinHostPolicy()}
	lp := &legacyCountingPolicy{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy()}
	sim := keyspaceCluster(t, cqlsim.Options{Nodes: 3}, "sc", "{'class': 'SimpleStrategy', 'replication_factor': 1}")
	sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Keyspace, l.Keyspace = "sc", "sc"
		c.PoolConfig.HostSelectionPolicy, l.PoolConfig.HostSelectionPolicy = p, lp
	})
	deadline := time.Now().Add(failoverDeadline)
	for lp.calls.get()["HostUp"] < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if diff := cmp.Diff(lp.calls.get(), p.calls.get()); diff != "" {
		t.Fatalf("calls of the policy (-gocql v1.7.0 +compat):\n%s", diff)
	}
}

// TestReviewPolicyHostPoolSetHosts: HostPoolHostPolicy implements SetHosts, as gocql v1.7.0's
// does: the hosts given replace the policy's and its pool's.
func TestReviewPolicyHostPoolSetHosts(t *testing.T) {
	if _, ok := gocqlv1.HostPoolHostPolicy(hostpool.New(nil)).(gocqlv1.SetHosts); !ok {
		t.Fatal("gocql v1.7.0's HostPoolHostPolicy is no SetHosts; the test expects it to be")
	}
	pool := hostpool.New(nil)
	p := HostPoolHostPolicy(pool)
	sh, ok := p.(SetHosts)
	if !ok {
		t.Fatal("HostPoolHostPolicy is no SetHosts, unlike gocql v1.7.0's")
	}
	hosts := testHosts(3)
	p.AddHost(hosts[0])
	sh.SetHosts(hosts[1:])
	got := pool.Hosts()
	slices.Sort(got)
	if want := []string{"10.0.0.2", "10.0.0.3"}; !slices.Equal(got, want) {
		t.Fatalf("the pool has %v after SetHosts, want %v", got, want)
	}
	if plan := planStart(p.Pick(nil), 1); len(plan) == 0 || plan[0] == "10.0.0.1" {
		t.Fatalf("plan after SetHosts: %v", plan)
	}
}
