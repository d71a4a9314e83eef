package gocql

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// RetryType is a retry policy's decision for a failed attempt.
type RetryType uint16

// The retry decisions.
const (
	Retry         RetryType = 0x00 // retry on the same host
	RetryNextHost RetryType = 0x01 // retry on the next host of the query plan
	Ignore        RetryType = 0x02 // stop retrying; like gocql, the error is still returned
	Rethrow       RetryType = 0x03 // stop retrying and return the error
)

// RetryableQuery is what a RetryPolicy sees of a query or batch.
type RetryableQuery interface {
	Attempts() int
	SetConsistency(c Consistency)
	GetConsistency() Consistency
	Context() context.Context
}

// RetryPolicy decides whether and how a failed attempt is retried. As in gocql v1.7.0, the
// policy is consulted whatever the query's idempotence.
type RetryPolicy interface {
	// Attempt reports whether another attempt may be made; q.Attempts() counts the
	// attempts made so far by this query object.
	Attempt(RetryableQuery) bool
	// GetRetryType chooses how to retry after err.
	GetRetryType(error) RetryType
}

// SimpleRetryPolicy retries up to NumRetries times, always on the next host of the plan (so
// with a single host no retry happens, as in gocql).
type SimpleRetryPolicy struct {
	NumRetries int // number of retries allowed
}

// Attempt reports whether q.Attempts() <= NumRetries.
func (s *SimpleRetryPolicy) Attempt(q RetryableQuery) bool {
	return q.Attempts() <= s.NumRetries
}

// GetRetryType always returns RetryNextHost.
func (s *SimpleRetryPolicy) GetRetryType(error) RetryType { return RetryNextHost }

// ExponentialBackoffRetryPolicy retries up to NumRetries times on the next host, sleeping
// between attempts for Min*2^(attempt-1) (with jitter), capped at Max. Min defaults to 100ms
// and Max to 10s. Unlike gocql, the sleep ends early when the query's context is done.
type ExponentialBackoffRetryPolicy struct {
	NumRetries int
	Min, Max   time.Duration
}

// Attempt sleeps the backoff for the next attempt and reports whether it may be made.
func (e *ExponentialBackoffRetryPolicy) Attempt(q RetryableQuery) bool {
	if q.Attempts() > e.NumRetries {
		return false
	}
	ctx := q.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	t := time.NewTimer(backoff(e.Min, e.Max, q.Attempts()))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// GetRetryType always returns RetryNextHost.
func (e *ExponentialBackoffRetryPolicy) GetRetryType(error) RetryType { return RetryNextHost }

func backoff(lo, hi time.Duration, attempts int) time.Duration {
	if lo <= 0 {
		lo = 100 * time.Millisecond
	}
	if hi <= 0 {
		hi = 10 * time.Second
	}
	d := float64(lo) * math.Pow(2, float64(attempts-1))
	d += rand.Float64()*float64(lo) - float64(lo)/2
	if d > float64(hi) {
		return hi
	}
	if d < 0 {
		return 0
	}
	return time.Duration(d)
}

// DowngradingConsistencyRetryPolicy retries with the next consistency level of
// ConsistencyLevelsToTry on each attempt (it changes the query's consistency, as gocql does).
type DowngradingConsistencyRetryPolicy struct {
	ConsistencyLevelsToTry []Consistency
}

// Attempt allows len(ConsistencyLevelsToTry) retries and sets the consistency for the next one.
func (d *DowngradingConsistencyRetryPolicy) Attempt(q RetryableQuery) bool {
	n := q.Attempts()
	if n > len(d.ConsistencyLevelsToTry) {
		return false
	}
	if n > 0 {
		q.SetConsistency(d.ConsistencyLevelsToTry[n-1])
	}
	return true
}

// GetRetryType retries an Unavailable with live replicas, a ReadTimeout, and an unlogged batch
// WriteTimeout on the same host; ignores a simple, batch or counter write timeout that reached
// at least one replica; rethrows other timeouts; moves to the next host on anything else.
func (d *DowngradingConsistencyRetryPolicy) GetRetryType(err error) RetryType {
	switch e := err.(type) {
	case *RequestErrUnavailable:
		if e.Alive > 0 {
			return Retry
		}
		return Rethrow
	case *RequestErrWriteTimeout:
		switch e.WriteType {
		case "SIMPLE", "BATCH", "COUNTER":
			if e.Received > 0 {
				return Ignore
			}
			return Rethrow
		case "UNLOGGED_BATCH":
			return Retry
		}
		return Rethrow
	case *RequestErrReadTimeout:
		return Retry
	}
	return RetryNextHost
}

// SpeculativeExecutionPolicy configures speculative executions of idempotent queries: up to
// Attempts() extra executions, one every Delay(), the first result winning.
type SpeculativeExecutionPolicy interface {
	Attempts() int
	Delay() time.Duration
}

// NonSpeculativeExecution disables speculative execution (the default).
type NonSpeculativeExecution struct{}

// Attempts returns 0.
func (sp NonSpeculativeExecution) Attempts() int { return 0 }

// Delay returns 1ns (unused).
func (sp NonSpeculativeExecution) Delay() time.Duration { return 1 }

// SimpleSpeculativeExecution starts up to NumAttempts extra executions, one every TimeoutDelay.
type SimpleSpeculativeExecution struct {
	NumAttempts  int
	TimeoutDelay time.Duration
}

// Attempts returns NumAttempts.
func (sp *SimpleSpeculativeExecution) Attempts() int { return sp.NumAttempts }

// Delay returns TimeoutDelay.
func (sp *SimpleSpeculativeExecution) Delay() time.Duration { return sp.TimeoutDelay }

// ReconnectionPolicy spaces the attempts to reconnect to a host.
type ReconnectionPolicy interface {
	GetInterval(currentRetry int) time.Duration
	GetMaxRetries() int
}

// ConstantReconnectionPolicy waits Interval between up to MaxRetries attempts.
type ConstantReconnectionPolicy struct {
	MaxRetries int
	Interval   time.Duration
}

// GetInterval returns Interval.
func (c *ConstantReconnectionPolicy) GetInterval(int) time.Duration { return c.Interval }

// GetMaxRetries returns MaxRetries.
func (c *ConstantReconnectionPolicy) GetMaxRetries() int { return c.MaxRetries }

// ExponentialReconnectionPolicy waits InitialInterval*2^retry (with jitter), capped at
// MaxInterval (no cap when zero), between up to MaxRetries attempts.
type ExponentialReconnectionPolicy struct {
	MaxRetries      int
	InitialInterval time.Duration
	MaxInterval     time.Duration
}

// GetInterval returns the wait before retry number currentRetry.
func (e *ExponentialReconnectionPolicy) GetInterval(currentRetry int) time.Duration {
	hi := e.MaxInterval
	if hi <= 0 {
		hi = math.MaxInt64
	}
	return backoff(e.InitialInterval, hi, currentRetry)
}

// GetMaxRetries returns MaxRetries.
func (e *ExponentialReconnectionPolicy) GetMaxRetries() int { return e.MaxRetries }

// ConvictionPolicy decides whether a connection failure marks a host down.
type ConvictionPolicy interface {
	// AddFailure returns true when the host should be marked down.
	AddFailure(error error, host *HostInfo) bool
	// Reset forgets the failures of host.
	Reset(host *HostInfo)
}

// SimpleConvictionPolicy convicts a host on its first failure.
type SimpleConvictionPolicy struct{}

// AddFailure returns true.
func (e *SimpleConvictionPolicy) AddFailure(error, *HostInfo) bool { return true }

// Reset does nothing.
func (e *SimpleConvictionPolicy) Reset(*HostInfo) {}

// HostStateNotifier is told about hosts joining, leaving, coming up and going down.
type HostStateNotifier interface {
	AddHost(host *HostInfo)
	RemoveHost(host *HostInfo)
	HostUp(host *HostInfo)
	HostDown(host *HostInfo)
}

// KeyspaceUpdateEvent reports a schema change of a keyspace.
type KeyspaceUpdateEvent struct {
	Keyspace string
	Change   string
}

// SetPartitioner is implemented by policies that need the cluster's partitioner.
type SetPartitioner interface {
	SetPartitioner(partitioner string)
}

// SetHosts is implemented by policies that accept the whole host list at once.
type SetHosts interface {
	SetHosts(hosts []*HostInfo)
}

// HostTierer ranks hosts by distance (0 is closest) for tiered selection.
type HostTierer interface {
	// HostTier returns the tier of host, starting at 0.
	HostTier(host *HostInfo) uint
	// MaxHostTier returns the largest tier HostTier can return.
	MaxHostTier() uint
}

// SelectedHost is one host of a query plan.
type SelectedHost interface {
	Info() *HostInfo
	// Mark reports the outcome of using the host (nil on success).
	Mark(error)
}

// NextHost returns the next host of a query plan, or nil when the plan is exhausted.
type NextHost func() SelectedHost

// HostSelectionPolicy builds query plans. An instance belongs to one session.
type HostSelectionPolicy interface {
	HostStateNotifier
	SetPartitioner
	KeyspaceChanged(KeyspaceUpdateEvent)
	Init(*Session)
	IsLocal(host *HostInfo) bool
	// Pick returns the plan for one query execution. The returned NextHost is not called
	// concurrently.
	Pick(ExecutableQuery) NextHost
}

// ReadyPolicy is implemented by host selection policies that tell when they can be used.
type ReadyPolicy interface {
	Ready() bool
}

type selectedHost HostInfo

func (h *selectedHost) Info() *HostInfo { return (*HostInfo)(h) }
func (h *selectedHost) Mark(error)      {}

// hostList is a copy-on-write list of hosts shared by the policies.
type hostList struct {
	mu    sync.Mutex
	hosts atomic.Pointer[[]*HostInfo]
}

func (l *hostList) get() []*HostInfo {
	if p := l.hosts.Load(); p != nil {
		return *p
	}
	return nil
}

func (l *hostList) add(h *HostInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.get()
	for _, x := range cur {
		if x.Equal(h) {
			return
		}
	}
	next := make([]*HostInfo, len(cur), len(cur)+1)
	copy(next, cur)
	next = append(next, h)
	l.hosts.Store(&next)
}

func (l *hostList) remove(h *HostInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.get()
	next := make([]*HostInfo, 0, len(cur))
	for _, x := range cur {
		if !x.Equal(h) {
			next = append(next, x)
		}
	}
	l.hosts.Store(&next)
}

// rotation returns a plan walking hosts from a rotating start, skipping hosts that are down.
func rotation(hosts []*HostInfo, start uint64) NextHost {
	i := 0
	return func() SelectedHost {
		for i < len(hosts) {
			h := hosts[(start+uint64(i))%uint64(len(hosts))]
			i++
			if h.IsUp() {
				return (*selectedHost)(h)
			}
		}
		return nil
	}
}

// RoundRobinHostPolicy returns a policy that starts each plan at the next host in turn and
// then tries the others in order.
func RoundRobinHostPolicy() HostSelectionPolicy { return &roundRobinHostPolicy{} }

type roundRobinHostPolicy struct {
	hosts hostList
	next  atomic.Uint64
}

func (r *roundRobinHostPolicy) IsLocal(*HostInfo) bool              { return true }
func (r *roundRobinHostPolicy) KeyspaceChanged(KeyspaceUpdateEvent) {}
func (r *roundRobinHostPolicy) SetPartitioner(string)               {}
func (r *roundRobinHostPolicy) Init(*Session)                       {}
func (r *roundRobinHostPolicy) AddHost(h *HostInfo)                 { r.hosts.add(h) }
func (r *roundRobinHostPolicy) RemoveHost(h *HostInfo)              { r.hosts.remove(h) }
func (r *roundRobinHostPolicy) HostUp(h *HostInfo)                  { r.hosts.add(h) }

// HostDown drops the host from the rotation until HostUp, as gocql does: the hosts left up
// share the plans' first places evenly (skipping a down host in place would give its share to
// the host after it).
func (r *roundRobinHostPolicy) HostDown(h *HostInfo) { r.hosts.remove(h) }

func (r *roundRobinHostPolicy) Pick(ExecutableQuery) NextHost {
	return rotation(r.hosts.get(), r.next.Add(1)-1)
}

// DCAwareRoundRobinPolicy returns a policy that round-robins over the hosts of localDC
// first, then over the hosts of the other data centres.
func DCAwareRoundRobinPolicy(localDC string) HostSelectionPolicy {
	return &dcAwarePolicy{t: &tieredPolicy{tier: func(h *HostInfo) uint {
		if h.DataCenter() == localDC {
			return 0
		}
		return 1
	}, maxTier: 1}}
}

// dcAwarePolicy is DCAwareRoundRobinPolicy's policy: a tieredPolicy of two tiers that, like
// gocql v1.7.0's, is not a HostTierer (an application's type assertion finds no HostTier; the
// token-aware policy ranks its replicas by IsLocal, to the same effect).
type dcAwarePolicy struct{ t *tieredPolicy }

func (d *dcAwarePolicy) Init(s *Session)                       { d.t.Init(s) }
func (d *dcAwarePolicy) KeyspaceChanged(e KeyspaceUpdateEvent) { d.t.KeyspaceChanged(e) }
func (d *dcAwarePolicy) SetPartitioner(p string)               { d.t.SetPartitioner(p) }
func (d *dcAwarePolicy) IsLocal(h *HostInfo) bool              { return d.t.IsLocal(h) }
func (d *dcAwarePolicy) AddHost(h *HostInfo)                   { d.t.AddHost(h) }
func (d *dcAwarePolicy) RemoveHost(h *HostInfo)                { d.t.RemoveHost(h) }
func (d *dcAwarePolicy) HostUp(h *HostInfo)                    { d.t.HostUp(h) }
func (d *dcAwarePolicy) HostDown(h *HostInfo)                  { d.t.HostDown(h) }
func (d *dcAwarePolicy) Pick(q ExecutableQuery) NextHost       { return d.t.Pick(q) }

// RackAwareRoundRobinPolicy returns a policy that round-robins over the hosts of localRack in
// localDC, then the rest of localDC, then the other data centres.
func RackAwareRoundRobinPolicy(localDC string, localRack string) HostSelectionPolicy {
	return &tieredPolicy{tier: func(h *HostInfo) uint {
		switch {
		case h.DataCenter() != localDC:
			return 2
		case h.Rack() != localRack:
			return 1
		}
		return 0
	}, maxTier: 2}
}

// tieredPolicy round-robins within each tier, closest tier first.
type tieredPolicy struct {
	tier    func(*HostInfo) uint
	maxTier uint
	hosts   hostList
	next    atomic.Uint64
}

func (d *tieredPolicy) Init(*Session)                       {}
func (d *tieredPolicy) KeyspaceChanged(KeyspaceUpdateEvent) {}
func (d *tieredPolicy) SetPartitioner(string)               {}
func (d *tieredPolicy) IsLocal(h *HostInfo) bool            { return d.tier(h) == 0 }
func (d *tieredPolicy) AddHost(h *HostInfo)                 { d.hosts.add(h) }
func (d *tieredPolicy) RemoveHost(h *HostInfo)              { d.hosts.remove(h) }
func (d *tieredPolicy) HostUp(h *HostInfo)                  { d.hosts.add(h) }

// HostDown drops the host from its tier until HostUp, as gocql does (see
// roundRobinHostPolicy.HostDown).
func (d *tieredPolicy) HostDown(h *HostInfo) { d.hosts.remove(h) }

// HostTier returns the host's tier (0 is closest).
func (d *tieredPolicy) HostTier(h *HostInfo) uint { return d.tier(h) }

// MaxHostTier returns the largest tier.
func (d *tieredPolicy) MaxHostTier() uint { return d.maxTier }

func (d *tieredPolicy) Pick(ExecutableQuery) NextHost {
	all := d.hosts.get()
	start := d.next.Add(1) - 1
	tiers := make([][]*HostInfo, d.maxTier+1)
	for _, h := range all {
		t := d.tier(h)
		tiers[t] = append(tiers[t], h)
	}
	t := 0
	cur := rotation(tiers[0], start)
	return func() SelectedHost {
		for {
			if h := cur(); h != nil {
				return h
			}
			t++
			if t >= len(tiers) {
				return nil
			}
			cur = rotation(tiers[t], start)
		}
	}
}

// SingleHostReadyPolicy wraps p so that it reports Ready once one host is up (and p itself,
// if it is a ReadyPolicy, is ready).
func SingleHostReadyPolicy(p HostSelectionPolicy) *singleHostReadyPolicy {
	return &singleHostReadyPolicy{HostSelectionPolicy: p}
}

type singleHostReadyPolicy struct {
	HostSelectionPolicy
	ready atomic.Bool
}

// HostUp forwards to the wrapped policy and marks the policy ready.
func (s *singleHostReadyPolicy) HostUp(h *HostInfo) {
	s.HostSelectionPolicy.HostUp(h)
	s.ready.Store(true)
}

// Ready reports whether a host came up and the wrapped policy is ready.
func (s *singleHostReadyPolicy) Ready() bool {
	if !s.ready.Load() {
		return false
	}
	if rp, ok := s.HostSelectionPolicy.(ReadyPolicy); ok {
		return rp.Ready()
	}
	return true
}

// NonLocalReplicasFallback makes TokenAwareHostPolicy try the replicas outside the local data
// centre before falling back to the fallback policy.
func NonLocalReplicasFallback() func(policy *tokenAwareHostPolicy) {
	return func(t *tokenAwareHostPolicy) { t.nonLocalReplicasFallback = true }
}

// ShuffleReplicas makes TokenAwareHostPolicy shuffle the replicas of each plan.
func ShuffleReplicas() func(*tokenAwareHostPolicy) {
	return func(t *tokenAwareHostPolicy) { t.shuffleReplicas = true }
}

// TokenAwareHostPolicy returns a policy that sends a query first to the replicas owning its
// partition (found from the routing key with the Murmur3 token ring, replicas being the next
// distinct hosts on the ring), then to the hosts of fallback. Without a routing key, or with
// another partitioner, it is fallback.
func TokenAwareHostPolicy(fallback HostSelectionPolicy, opts ...func(*tokenAwareHostPolicy)) HostSelectionPolicy {
	t := &tokenAwareHostPolicy{fallback: fallback}
	for _, o := range opts {
		o(t)
	}
	return t
}

type tokenAwareHostPolicy struct {
	fallback                 HostSelectionPolicy
	nonLocalReplicasFallback bool
	shuffleReplicas          bool
	session                  atomic.Pointer[Session]
	partitioner              atomic.Value // string
	hosts                    hostList
	ring                     atomic.Pointer[tokenRing] // the ring of the last plan (see ringFor)
}

// Init binds the policy to s. A policy already bound to another session is refused, as
// gocql v1.7.0 refuses it (with a panic there; here CreateSession fails, see
// errSharedTokenAware), even after that session closed. As in gocql, the fallback policy's
// Init is not called.
func (t *tokenAwareHostPolicy) Init(s *Session) {
	if !t.session.CompareAndSwap(nil, s) && t.session.Load() != s {
		s.policyErr = errSharedTokenAware
	}
}

// errSharedTokenAware fails a CreateSession whose TokenAwareHostPolicy another session uses.
var errSharedTokenAware = errors.New("sharing token aware host selection policy between sessions is not supported")

func (t *tokenAwareHostPolicy) IsLocal(h *HostInfo) bool { return t.fallback.IsLocal(h) }

// KeyspaceChanged does not reach the fallback policy, as in gocql v1.7.0 (the replicas are
// read when a statement needs them, see docs/deviations.md G36).
func (t *tokenAwareHostPolicy) KeyspaceChanged(KeyspaceUpdateEvent) {}

// SetPartitioner records the cluster's partitioner and, as gocql v1.7.0, passes it on to the
// fallback policy only when it changes.
func (t *tokenAwareHostPolicy) SetPartitioner(p string) {
	if old, _ := t.partitioner.Swap(p).(string); old != p {
		t.fallback.SetPartitioner(p)
	}
}

func (t *tokenAwareHostPolicy) AddHost(h *HostInfo) {
	t.hosts.add(h)
	t.fallback.AddHost(h)
}

func (t *tokenAwareHostPolicy) RemoveHost(h *HostInfo) {
	t.hosts.remove(h)
	t.fallback.RemoveHost(h)
}

func (t *tokenAwareHostPolicy) HostUp(h *HostInfo) {
	t.hosts.add(h)
	t.fallback.HostUp(h)
}

func (t *tokenAwareHostPolicy) HostDown(h *HostInfo) { t.fallback.HostDown(h) }

func (t *tokenAwareHostPolicy) Pick(q ExecutableQuery) NextHost {
	var buf [maxPlanReplicas]*HostInfo
	n, more := t.planReplicas(q, &buf)
	if n == 0 {
		return t.fallback.Pick(q)
	}
	ordered := append(buf[:n:n], more...)
	tried := ordered // the hosts yielded so far: the replicas, then the fallback's
	i := 0
	var fb NextHost
	ended := false
	return func() SelectedHost {
		if i < len(ordered) {
			i++
			return (*selectedHost)(ordered[i-1])
		}
		if fb == nil && !ended {
			// As gocql, the fallback's plan is made (advancing its round-robin position)
			// only once the replicas are used up, so that queries served by a replica do
			// not skew the rotation of the others.
			fb = t.fallback.Pick(q)
			ended = fb == nil
		}
		if ended {
			return nil
		}
		h, _ := untried(fb, func(h *HostInfo) bool { return isReplica(tried, h) })
		if h == nil {
			ended = true
			return nil
		}
		tried = append(tried, h.Info())
		return h
	}
}

// untried returns the first host next yields that tried does not report, or nil when next
// yields nil or has yielded maxFallbackRepeats hosts already tried in a row; exhausted is
// true in the second case.
func untried(next NextHost, tried func(*HostInfo) bool) (h SelectedHost, exhausted bool) {
	for range maxFallbackRepeats {
		if h = next(); h == nil || !tried(h.Info()) {
			return h, false
		}
	}
	return nil, true
}

// maxFallbackRepeats bounds how many hosts already tried a token-aware plan takes from its
// fallback's plan in a row before it ends: as gocql v1.7.0, a token-aware plan skips the
// hosts its fallback names again, but gocql asks for ever when the fallback's plan never ends
// and names only hosts already tried, as HostPoolHostPolicy's does (docs/deviations.md G55).
const maxFallbackRepeats = 100

// maxPlanReplicas is the number of replicas a token-aware plan holds without allocating.
const maxPlanReplicas = 8

// planRoutingKey is q's routing key for a token-aware plan: GetRoutingKey, without the
// PREPARE of a statement that can have no key (see Query.routingKeyFor).
func planRoutingKey(q ExecutableQuery) ([]byte, error) {
	switch q := q.(type) {
	case *Query:
		return q.routingKeyFor(true)
	case *Batch:
		return q.routingKeyFor(true)
	}
	return q.GetRoutingKey()
}

// planReplicas finds the hosts a plan tries before the fallback policy's: the replicas of
// q's routing key under its keyspace's placement (SimpleStrategy or NetworkTopologyStrategy)
// that are up, shuffled with ShuffleReplicas, those of the fallback's closest tier first (and
// with NonLocalReplicasFallback, then the others, tier by tier). The first n are in buf, the rest
// (beyond len(buf)) in more. n is 0 when q has no routing key, the partitioner is not
// Murmur3 or no replica is up.
func (t *tokenAwareHostPolicy) planReplicas(q ExecutableQuery, buf *[maxPlanReplicas]*HostInfo) (n int, more []*HostInfo) {
	p, _ := t.partitioner.Load().(string)
	if q == nil || (p != "" && p != murmur3Partitioner) {
		return 0, nil
	}
	key, err := planRoutingKey(q)
	if err != nil || len(key) == 0 {
		return 0, nil
	}
	var scratch [maxPlanReplicas]*HostInfo
	ring := t.ringFor(t.hosts.get())
	token := murmur3Token(key)
	var replicas []*HostInfo
	if pl := t.placementOf(q.Keyspace()); pl.dcs != nil {
		replicas = append(scratch[:0], ring.tableFor(pl).replicasFor(token)...)
	} else {
		replicas = ring.appendReplicas(scratch[:0], token, pl.rf)
	}
	if len(replicas) == 0 {
		// No range has replicas (no data centre of the ring has a factor): as gocql, the
		// token's owner.
		replicas = ring.appendReplicas(scratch[:0], token, 1)
	}
	var tabletScratch [maxPlanReplicas]*HostInfo
	if tr := t.tabletReplicas(q, key, &tabletScratch); len(tr) > 0 {
		replicas = tr
	}
	if t.shuffleReplicas {
		rand.Shuffle(len(replicas), func(i, j int) { replicas[i], replicas[j] = replicas[j], replicas[i] })
	}
	add := func(h *HostInfo) {
		if n < len(buf) {
			buf[n] = h
			n++
			return
		}
		more = append(more, h)
	}
	// As gocql: the replicas of the closest tier (HostTier 0 when the fallback policy ranks
	// hosts in tiers, else IsLocal) first; with NonLocalReplicasFallback, then the others,
	// closest tier first.
	tierer, tiered := t.fallback.(HostTierer)
	tierOf := func(h *HostInfo) uint {
		switch {
		case tiered:
			return tierer.HostTier(h)
		case t.fallback.IsLocal(h):
			return 0
		}
		return 1
	}
	maxTier := uint(0)
	switch {
	case !t.nonLocalReplicasFallback:
	case tiered:
		maxTier = tierer.MaxHostTier()
	default:
		maxTier = 1
	}
	for tier := uint(0); tier <= maxTier; tier++ {
		for _, h := range replicas {
			if h.IsUp() && tierOf(h) == tier {
				add(h)
			}
		}
	}
	return n, more
}

// tabletReplicas returns the replicas of the tablet holding q's partition, when q's table
// uses tablets (ScyllaDB) and the native session knows the tablet, as scylladb/gocql routes
// (docs/deviations.md G48); nil otherwise, and the token ring decides, as in gocql v1.7.0.
// Replicas outside the policy's hosts (HostFilter) are left out.
func (t *tokenAwareHostPolicy) tabletReplicas(q ExecutableQuery, key []byte, buf *[maxPlanReplicas]*HostInfo) []*HostInfo {
	s := t.session.Load()
	if s == nil || s.native == nil {
		return nil
	}
	table := q.Table()
	if table == "" {
		return nil
	}
	var abuf [maxPlanReplicas]string
	addrs := s.native.AppendTabletReplicas(abuf[:0], q.Keyspace(), table, key)
	if len(addrs) == 0 {
		return nil
	}
	out := buf[:0]
	hosts := t.hosts.get()
	for _, a := range addrs {
		if h := s.hostByAddr(a); h != nil && isReplica(hosts, h) {
			out = append(out, h)
		}
	}
	return out
}

// isReplica reports whether h is one of replicas (the same node).
func isReplica(replicas []*HostInfo, h *HostInfo) bool {
	for _, r := range replicas {
		if r.Equal(h) {
			return true
		}
	}
	return false
}

// placementOf reads the keyspace's replica placement from the session's schema metadata; the
// token's primary owner alone when unknown.
func (t *tokenAwareHostPolicy) placementOf(keyspace string) placement {
	s := t.session.Load()
	if s == nil || keyspace == "" {
		return primaryOnly
	}
	return s.placementOf(keyspace)
}

// ErrUnknownRetryType is returned when a retry policy returns a RetryType the executor does
// not know.
var ErrUnknownRetryType = errors.New("unknown retry type returned by retry policy")
