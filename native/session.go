package native

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"iter"
	"math"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/workpool"
	"github.com/cqlbridge/cqlbridge/native/internal/conn"
	"github.com/cqlbridge/cqlbridge/native/internal/topology"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Session is a connection to a cluster: a control connection that tracks the topology, a
// pool of connections per node, a prepared statement cache and the routing of requests. It
// is safe for concurrent use by any number of goroutines; create one per cluster with Connect
// and share it. A Session that Connect did not make (the zero value) fails every request,
// Prepare and AwaitSchemaAgreement with ErrNotConnected, and closes without error.
type Session struct {
	cfg     Config
	ctx     context.Context // cancelled by Close; bounds background work
	cancel  context.CancelFunc
	wg      goroutineSet             // background goroutines and asynchronous requests
	asyncMu sync.RWMutex             // orders enter's wg.Add before Close's wg.Wait
	async   workpool.Pool[asyncTask] // the goroutines that run asynchronous requests (initAsync)
	closed  atomic.Bool
	// opened is set once Connect has filled the first pools itself: until then a topology
	// snapshot does not start background refills, which would dial alongside it.
	opened atomic.Bool
	// sharded is set once a pool found its node sharded (a ScyllaDB node, see shard.go):
	// from then on requests compute their partition's token whatever Config.Routing says,
	// to choose the shard's connection.
	sharded  atomic.Bool
	keyspace atomic.Pointer[string]
	// useMu orders keyspace changes against what must see every connection in the session
	// keyspace: a USE and its propagation to every connection hold it for writing; a PREPARE
	// (whose statement resolves in its connection's keyspace) and a new connection joining a
	// pool hold it for reading.
	useMu sync.RWMutex

	state atomic.Pointer[clusterState]
	rr    atomic.Uint64 // round-robin counter

	mu    sync.Mutex
	pools map[string]*hostPool // by address, across snapshots

	control *control

	prepMu   sync.Mutex
	prepared map[prepKey]*prepEntry
	prepRing prepRing // bounds prepared (Config.MaxPreparedStatements); guarded by prepMu

	asideMu sync.Mutex
	aside   map[asideKey]*asideFlight // statements being prepared aside (see prepareAside)

	voids sync.Map // host -> shared *Result of kind ResultVoid

	tablets tabletMap // tablets learnt from ScyllaDB nodes (see tablets.go)

	clock *coarseClock // checks the request timeouts of waiting requests

	// refuseUnset is set when the session speaks protocol v3, which has no unset value:
	// statements binding Unset fail before they are sent (see encodedValues.refuseUnset).
	refuseUnset bool

	// discovering is set, with Config.ProtocolVersion 0, until the control connection's
	// first handshake settles the version (see control.dialControl). Only Connect's
	// goroutine reads and writes it, and cfg.ProtocolVersion, before any pool opens.
	discovering bool
}

// clusterState is an immutable view: the topology snapshot and the pool of each node.
type clusterState struct {
	snap   *topology.Snapshot
	pools  []*hostPool // pools[i] serves snap.Nodes[i]
	remote []bool      // nodes outside Config.LocalDC; nil when LocalDC is unset
}

// contactAddrs returns the contact points hosts lists as host:port, DefaultPort where a host
// has none; blank entries are left out.
func contactAddrs(hosts []string) []string {
	addrs := make([]string, 0, len(hosts))
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), DefaultPort)
		}
		addrs = append(addrs, h)
	}
	return addrs
}

// withDefaults fills in the zero fields of cfg and checks the others.
func (cfg Config) withDefaults() (Config, error) {
	if len(cfg.Hosts) == 0 {
		return cfg, errors.New("native: Config.Hosts is empty: give at least one contact point")
	}
	hosts := contactAddrs(cfg.Hosts)
	if len(hosts) == 0 {
		return cfg, errors.New("native: Config.Hosts has no usable contact point")
	}
	cfg.Hosts = hosts
	if cfg.Consistency == 0 {
		cfg.Consistency = DefaultConsistency
	}
	if !cfg.Consistency.valid() {
		return cfg, fmt.Errorf("native: Config.Consistency %s is not a consistency level", cfg.Consistency)
	}
	if cfg.SerialConsistency != 0 && !cfg.SerialConsistency.IsSerial() {
		return cfg, fmt.Errorf("native: Config.SerialConsistency must be SERIAL or LOCAL_SERIAL, not %s", cfg.SerialConsistency)
	}
	switch {
	case cfg.PageSize == 0:
		cfg.PageSize = DefaultPageSize
	case cfg.PageSize < 0:
		cfg.PageSize = -1
	case cfg.PageSize > math.MaxInt32:
		cfg.PageSize = math.MaxInt32 // the protocol's page size is an int32
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.ConnsPerHost <= 0 {
		cfg.ConnsPerHost = DefaultConnsPerHost
	}
	if cfg.MaxPreparedStatements == 0 {
		cfg.MaxPreparedStatements = DefaultMaxPreparedStatements
	}
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if cfg.SchemaAgreementTimeout == 0 {
		cfg.SchemaAgreementTimeout = DefaultSchemaAgreementTimeout
	}
	switch cfg.Compression {
	case "", "lz4", "snappy":
	default:
		return cfg, fmt.Errorf("native: Config.Compression %q is not \"\", \"lz4\" or \"snappy\"", cfg.Compression)
	}
	switch cfg.ProtocolVersion {
	case 0:
		cfg.ProtocolVersion = 4
	case 3, 4:
	case 5:
		if cfg.Compression == "snappy" {
			return cfg, errors.New("native: Config.Compression \"snappy\" with ProtocolVersion 5: v5 compresses only with lz4")
		}
	default:
		return cfg, fmt.Errorf("native: Config.ProtocolVersion %d: only versions 3, 4 and 5 are supported", cfg.ProtocolVersion)
	}
	if cfg.Routing != TokenAware && cfg.Routing != RoundRobin {
		return cfg, fmt.Errorf("native: Config.Routing %d is not TokenAware or RoundRobin", cfg.Routing)
	}
	return cfg, nil
}

// Connect connects to the cluster described by cfg: it dials the contact points until one
// answers, reads the topology from it, and opens the connection pools. It returns an error
// when cfg is invalid or no contact point can be reached (a *NoHostAvailableError with
// each one's cause).
//
// Connect returns once every node's pool has opened or failed, so that the first requests
// are spread over the cluster. A node that accepts connections but never answers (a paused
// process, a node stuck in a long garbage collection) is given up only when its
// Config.ConnectTimeout runs out, per step of opening a connection: as a contact point it
// delays the next one by as much, and among the others it delays Connect's return by as
// much. ctx bounds the whole of Connect (when it ends while the pools open, Connect returns
// the session if a node's pool has opened); a shorter ConnectTimeout shortens both waits.
func Connect(ctx context.Context, cfg Config) (*Session, error) {
	if ctx == nil {
		return nil, errNilContext
	}
	discover := cfg.ProtocolVersion == 0
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, pools: map[string]*hostPool{}, prepared: map[prepKey]*prepEntry{}, clock: newCoarseClock()}
	s.discovering = discover
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.initAsync()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.clock.run(s.ctx)
	}()
	ks := cfg.Keyspace
	s.keyspace.Store(&ks)
	s.control = &control{s: s, refresh: make(chan struct{}, 1)}
	if err := s.control.connect(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.refuseUnset = s.cfg.ProtocolVersion < 4 // the version is settled now
	if err := s.checkLocalDC(); err != nil {
		s.Close()
		return nil, err
	}
	// Open every pool, in parallel, before returning, so that the first requests are spread
	// over the cluster; fail only when no node can be reached.
	st := s.state.Load()
	errs := make([]error, len(st.pools))
	var wg sync.WaitGroup
	for i, p := range st.pools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.fill(ctx); !errors.Is(err, errShardsMissing) {
				errs[i] = err // a sharded node with shards still missing is reachable
			}
		}()
	}
	wg.Wait()
	var nh NoHostAvailableError
	for i, err := range errs {
		if err != nil {
			nh.Errors = append(nh.Errors, HostError{Host: st.pools[i].addr, Err: err})
		}
	}
	if len(nh.Errors) == len(st.pools) {
		s.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoPoolOpened, &nh)
	}
	s.opened.Store(true)
	for _, p := range st.pools {
		p.startRefill()
	}
	s.wg.Add(1)
	go s.control.run()
	return s, nil
}

// checkLocalDC fails when Config.LocalDC is set and no node of the cluster, as the control
// connection read it, is in that data center.
func (s *Session) checkLocalDC() error {
	if s.cfg.LocalDC == "" {
		return nil
	}
	var dcs []string
	for _, n := range s.state.Load().snap.Nodes {
		if n.DataCenter == s.cfg.LocalDC {
			return nil
		}
		if !slices.Contains(dcs, n.DataCenter) {
			dcs = append(dcs, n.DataCenter)
		}
	}
	slices.Sort(dcs)
	return fmt.Errorf("%w: %q (the cluster's data centers: %s)", ErrUnknownLocalDC, s.cfg.LocalDC, strings.Join(dcs, ", "))
}

// dial opens one connection to addr with the session's settings.
func (s *Session) dial(ctx context.Context, addr string) (*conn.Conn, error) {
	return s.dialPorts(ctx, addr, 0, 0)
}

// dialPorts is dial through port instead of addr's own, and from localPort, when not 0 (a
// ScyllaDB node's shard-aware port, see hostPool.dialShard).
func (s *Session) dialPorts(ctx context.Context, addr string, port, localPort int) (*conn.Conn, error) {
	start := time.Now()
	cc := s.connConfig(addr, nil)
	cc.Port, cc.LocalPort = port, localPort
	c, err := conn.Dial(ctx, addr, cc)
	err = dialError(addr, err)
	s.observeConnect(addr, false, start, err)
	return c, err
}

// dialError turns a server ERROR met during the handshake (bad credentials, say) into the
// typed error for its code, keeping the step that failed in the message:
// "native: connecting to ADDR: authentication: authentication error: MESSAGE (host ADDR)".
func dialError(addr string, err error) error {
	if err == nil {
		return nil
	}
	var er *proto.ErrorResponse
	if !errors.As(err, &er) {
		return err
	}
	var de *conn.DialError
	if errors.As(err, &de) && de.Step != "" && de.Err == error(er) {
		// The server refused the step itself: its error says all the connection's does.
		return fmt.Errorf("native: connecting to %s: %s: %w", addr, de.Step, serverError(er, addr, nil))
	}
	return fmt.Errorf("native: connecting to %s: %w (%v)", addr, serverError(er, addr, nil), err)
}

// connConfig is the connection configuration for dialling addr.
func (s *Session) connConfig(addr string, onEvent func(proto.Event)) conn.Config {
	cc := conn.Config{
		Version:             proto.Version(s.cfg.ProtocolVersion),
		Compression:         s.cfg.Compression,
		CompressionFallback: s.cfg.CompressionFallback,
		Authenticator:       s.authenticatorFor(addr),
		TLS:                 s.tlsFor(addr),
		Keyspace:            *s.keyspace.Load(),
		HeartbeatInterval:   s.cfg.HeartbeatInterval,
		HeartbeatTimeout:    max(s.cfg.HeartbeatInterval, s.cfg.ConnectTimeout),
		DialTimeout:         s.cfg.ConnectTimeout,
		Dialer:              s.dialerFor(addr),
		StartupOptions:      map[string]string{"DRIVER_NAME": "cqlbridge", "DRIVER_VERSION": "0.1"},
		MaxStreams:          s.cfg.maxStreams,
	}
	if onEvent != nil {
		cc.OnEvent = onEvent
	}
	return cc
}

// tlsFor returns the TLS configuration of a connection to addr: Config.TLS, with the server
// name Config.TLSServerName gives when it gives one (see there).
func (s *Session) tlsFor(addr string) *tls.Config {
	t := s.cfg.TLS
	if t == nil || t.ServerName != "" || t.InsecureSkipVerify || s.cfg.TLSServerName == nil {
		return t
	}
	name := s.cfg.TLSServerName(s.hostAt(addr))
	if name == "" {
		return t
	}
	t = t.Clone()
	t.ServerName = name
	return t
}

// poolFor returns the pool of addr, creating it.
func (s *Session) poolFor(addr string) *hostPool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pools[addr]
	if p == nil {
		p = newHostPool(s, addr)
		if s.closed.Load() {
			p.closed = true
		}
		s.pools[addr] = p
	}
	return p
}

// installSnapshot swaps in a new topology, creating pools for new nodes and retiring the
// pools of nodes that left (see hostPool.retire).
func (s *Session) installSnapshot(snap *topology.Snapshot) {
	st := &clusterState{snap: snap, pools: make([]*hostPool, len(snap.Nodes))}
	keep := make(map[string]bool, len(snap.Nodes))
	for i, n := range snap.Nodes {
		st.pools[i] = s.poolFor(n.Addr)
		keep[n.Addr] = true
	}
	if s.cfg.LocalDC != "" {
		st.remote = make([]bool, len(snap.Nodes))
		for i, n := range snap.Nodes {
			st.remote[i] = n.DataCenter != s.cfg.LocalDC
		}
	}
	s.state.Store(st)
	for _, p := range st.pools {
		if s.opened.Load() && (len(p.all()) < s.cfg.ConnsPerHost || !p.up()) {
			p.kick() // a new node, or one that may be back
		}
	}
	var gone []*hostPool
	s.mu.Lock()
	for addr, p := range s.pools {
		if !keep[addr] {
			gone = append(gone, p)
			delete(s.pools, addr)
		}
	}
	s.mu.Unlock()
	for _, p := range gone {
		p.retire()
	}
}

// poolOfEvent returns the pool of the node a topology or status event names by its client
// address (rpc_address and native port), or nil when no known node has it.
func (s *Session) poolOfEvent(addr netip.AddrPort) *hostPool {
	st := s.state.Load()
	if st == nil {
		return nil
	}
	ip := addr.Addr().Unmap()
	for i, n := range st.snap.Nodes {
		if n.Addr == addr.String() || (n.RPCAddress.Unmap() == ip && portOf(n.Addr) == int(addr.Port())) {
			return st.pools[i]
		}
	}
	return nil
}

// Close closes every connection. Requests in flight fail with an error matching
// ErrSessionClosed (unless the server's answer came first); later calls fail with
// ErrSessionClosed. Close waits for the session's goroutines, asynchronous requests
// included, to exit: when it returns, every Pending started before it is complete (its OnDone
// hooks may still be running, so that a hook may call Close). The exceptions are goroutines
// running a callback when Close is called or while it waits (Config.OnConnect; an
// asynchronous request's Observer or RetryPolicy), so that a callback may call Close without
// waiting for itself: such a goroutine ends after its callback returns, and its request then
// completes, with its answer or with its error (a request is not retried once Close is
// called). Close is idempotent. On a Session that Connect did not make (the zero value) it
// only marks it closed.
func (s *Session) Close() error {
	s.asyncMu.Lock()
	already := s.closed.Swap(true)
	s.asyncMu.Unlock()
	if already || s.ctx == nil {
		s.wg.Wait()
		return nil
	}
	s.cancel()
	s.async.Close()
	if s.control != nil {
		s.control.close()
	}
	s.mu.Lock()
	pools := make([]*hostPool, 0, len(s.pools))
	for _, p := range s.pools {
		pools = append(pools, p)
	}
	s.mu.Unlock()
	for _, p := range pools {
		p.retire()
	}
	s.wg.Wait()
	return nil
}

// errAsyncExited is the error of an asynchronous request whose goroutine a policy or observer
// ended with runtime.Goexit.
var errAsyncExited = errors.New("native: the asynchronous request's goroutine exited without a result (runtime.Goexit in a policy or observer?)")

// enter adds a goroutine that Close must wait for to the session's WaitGroup, or returns
// false when the session is closed. The read lock orders the Add before Close's Wait.
func (s *Session) enter() bool {
	s.asyncMu.RLock()
	defer s.asyncMu.RUnlock()
	if s.closed.Load() {
		return false
	}
	s.wg.Add(1)
	return true
}

// goBackground runs f in a goroutine that Close cancels (through f's context) and waits
// for; it does nothing once the session is closed.
func (s *Session) goBackground(f func(ctx context.Context)) {
	if !s.enter() {
		return
	}
	go func() {
		defer s.wg.Done()
		f(s.ctx)
	}()
}

// usable returns the error of a call on a Session that cannot take requests: ErrSessionClosed
// once Close was called, ErrNotConnected for a Session that Connect did not make (the zero
// value), whose ctx is nil.
func (s *Session) usable() error {
	if s.closed.Load() {
		return ErrSessionClosed
	}
	if s.ctx == nil {
		return ErrNotConnected
	}
	return nil
}

// Closed reports whether Close has been called.
func (s *Session) Closed() bool { return s.closed.Load() }

// Execute runs stmt and waits for its result. For a SELECT the Result holds the first page;
// use Result.NextPage, Result.All or Session.Iter for the others. A USE statement changes
// the session keyspace on every connection.
func (s *Session) Execute(ctx context.Context, stmt Statement) (*Result, error) {
	return s.run(ctx, &stmt)
}

// ExecuteAsync starts running stmt and returns at once; the Pending completes with the
// result. Binding errors (wrong number or type of values) complete it immediately, before
// anything is sent. Cancelling ctx abandons the request. A panic in a policy or observer
// while the request runs completes it with an error saying so, which wraps the panic's value
// when it is an error (Execute lets it reach its caller; here there is none). A plain request
// takes no goroutine while it waits (see "Asynchronous requests" in the package doc).
func (s *Session) ExecuteAsync(ctx context.Context, stmt Statement) *Pending {
	p := newPending()
	if err := s.checkStatement(ctx, &stmt); err != nil {
		p.complete(nil, err)
		return p
	}
	// Bound here, so that a binding error completes p before ExecuteAsync returns.
	req := getRequest()
	vals, err := bindStatement(&stmt, req, s.refuseUnset)
	if err != nil {
		putRequest(req)
		p.complete(nil, err)
		return p
	}
	if s.startDetached(ctx, &stmt, req, vals, p) {
		return p
	}
	if !s.goAsync(p, func() (*Result, error) {
		defer putRequest(req)
		return s.runBound(ctx, &stmt, req, vals, true)
	}) {
		putRequest(req)
	}
	return p
}

// ExecuteBatch runs a batch and waits for its result (void, or the [applied] rows of a
// conditional batch).
func (s *Session) ExecuteBatch(ctx context.Context, b Batch) (*Result, error) {
	return s.runBatch(ctx, &b)
}

// ExecuteBatchAsync starts running a batch and returns at once; the Pending completes with
// the result. As with ExecuteAsync, the values of the batch's statements are bound before it
// returns (a binding error has completed the Pending by then, and the slices given to Bind may
// be reused at once), and cancelling ctx abandons the request.
func (s *Session) ExecuteBatchAsync(ctx context.Context, b Batch) *Pending {
	p := newPending()
	req := getRequest()
	info := &reqInfo{}
	if err := s.bindBatch(ctx, &b, true, req, info); err != nil {
		putRequest(req)
		p.complete(nil, err)
		return p
	}
	if !s.goAsync(p, func() (*Result, error) {
		defer putRequest(req)
		return s.send(ctx, req, info)
	}) {
		putRequest(req)
	}
	return p
}

// Iter runs stmt and iterates over all its rows, fetching the following pages as needed. An
// error (of the first or any later page) is yielded as the last element, with a zero Row. As
// with Result.All, ctx bounds the fetches, not the rows of a page already fetched.
func (s *Session) Iter(ctx context.Context, stmt Statement) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		res, err := s.Execute(ctx, stmt)
		if err != nil {
			yield(Row{}, err)
			return
		}
		for row, err := range res.All(ctx) {
			if !yield(row, err) {
				return
			}
		}
	}
}

// Hosts returns the nodes of the cluster as last seen by the control connection.
func (s *Session) Hosts() []Host {
	st := s.state.Load()
	if st == nil {
		return nil
	}
	out := make([]Host, len(st.snap.Nodes))
	for i, n := range st.snap.Nodes {
		out[i] = hostOf(n, st.pools[i].up())
	}
	return out
}

// Keyspace returns the session keyspace (Config.Keyspace, or the last USE); "" for a Session
// that Connect did not make.
func (s *Session) Keyspace() string {
	if ks := s.keyspace.Load(); ks != nil {
		return *ks
	}
	return ""
}

// ProtocolVersion returns the native protocol version in use.
func (s *Session) ProtocolVersion() int { return s.cfg.ProtocolVersion }

// useKeyspace makes ks the session keyspace after a USE succeeded on one connection: holding
// useMu for writing (locked says the caller, a USE statement recognised by its text, holds it
// already), it records ks and sends USE on every open connection not using ks yet. So
// concurrent USE statements end with every connection in the keyspace that Keyspace reports.
// The connections are switched in parallel, each bounded by Config.Timeout (DefaultTimeout when
// that is disabled), not by the caller's context (the session keyspace has changed already),
// and the switch ends when the session closes. A connection that could not switch is closed,
// so that it cannot serve another keyspace; its pool opens a new one in ks.
func (s *Session) useKeyspace(ks string, locked bool) error {
	if !locked {
		s.useMu.Lock()
		defer s.useMu.Unlock()
	}
	s.keyspace.Store(&ks)
	st := s.state.Load()
	if st == nil {
		return nil
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, p := range st.pools {
		for _, c := range p.all() {
			if c.Err() != nil || c.Keyspace() == ks {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(s.ctx, s.backgroundTimeout())
				defer cancel()
				if err := s.alignKeyspace(ctx, c, ks); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(errs) > 0 && s.ctx.Err() != nil {
		// Close cut the switch short: its errors (the session's context's) must not read as
		// the end of the USE's own context.
		return ErrSessionClosed
	}
	return errors.Join(errs...)
}

// alignKeyspace sends USE ks on c unless c uses ks already. The caller holds useMu (for
// reading or writing) and ks is the session keyspace. When the USE fails, c is closed: it
// would otherwise serve statements in another keyspace than the session's.
func (s *Session) alignKeyspace(ctx context.Context, c *conn.Conn, ks string) error {
	if c.Keyspace() == ks {
		return nil
	}
	if _, err := s.runOn(ctx, c, "USE "+quoteIdent(ks)); err != nil {
		if c.Err() != nil && errors.Is(err, conn.ErrConnClosed) {
			// The connection was broken (its node went down): it serves nothing, and its
			// replacement joins the pool in ks (hostPool.add).
			return nil
		}
		c.Close()
		return fmt.Errorf("USE %s on %s (connection closed): %w", ks, c.Addr(), err)
	}
	return nil
}

// lockUse takes useMu for writing for a USE statement, giving up when ctx ends or, when
// Config.Timeout is set, after that long (a PREPARE holding it for reading waits for a node).
func (s *Session) lockUse(ctx context.Context) error {
	if s.useMu.TryLock() {
		return nil
	}
	var timeout <-chan time.Time
	if s.cfg.Timeout > 0 {
		t := time.NewTimer(s.cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("native: USE waiting for a keyspace change or PREPARE in progress: %w", ctx.Err())
		case <-timeout:
			return fmt.Errorf("%w after %s: USE waiting for a keyspace change or PREPARE in progress: %w", ErrTimeout, s.cfg.Timeout, context.DeadlineExceeded)
		case <-tick.C:
			if s.useMu.TryLock() {
				return nil
			}
		}
	}
}

// isUseStatement reports whether cql is a USE statement (the keyword first, after white space).
func isUseStatement(cql string) bool {
	cql = strings.TrimLeft(cql, " \t\r\n")
	if len(cql) < 4 || !strings.EqualFold(cql[:3], "use") {
		return false
	}
	switch cql[3] {
	case ' ', '\t', '\r', '\n', '"':
		return true
	}
	return false
}

// quoteIdent quotes a CQL identifier when it is not a plain lower-case one.
func quoteIdent(id string) string {
	plain := id != ""
	for i, r := range id {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return id
	}
	return `"` + strings.ReplaceAll(id, `"`, `""`) + `"`
}

// portOf returns the port of a host:port address, or 9042.
func portOf(addr string) int {
	if _, p, err := net.SplitHostPort(addr); err == nil {
		if n, err := strconv.Atoi(p); err == nil {
			return n
		}
	}
	return 9042
}

// Config returns the session's configuration with every default filled in.
func (s *Session) Config() Config {
	c := s.cfg
	c.Hosts = slices.Clone(c.Hosts)
	return c
}
