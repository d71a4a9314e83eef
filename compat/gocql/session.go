package gocql

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/workpool"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// protoVersion4 is the protocol version of a Session with no native session.
const protoVersion4 = 4

// protoVersion is the protocol version the session speaks (ClusterConfig.ProtoVersion, or with
// 0 the version the native core discovered), which the TypeInfo of its columns report, as
// gocql's do.
func (s *Session) protoVersion() byte {
	if s.proto == 0 {
		return protoVersion4
	}
	return s.proto
}

// Session is a connection to a cluster, safe for concurrent use by any number of goroutines.
// It runs on cqlbridge's native core: Session.Native returns the native session sharing the
// same connections.
type Session struct {
	cfg    ClusterConfig
	native *native.Session
	proto  byte // the protocol version the native session speaks (see protoVersion)
	policy HostSelectionPolicy
	logger StdLogger
	// policyErr is set by a policy's Init that refuses the session (see
	// tokenAwareHostPolicy.Init); CreateSession then fails with it.
	policyErr error

	mu            sync.RWMutex
	cons          Consistency
	pageSize      int
	prefetch      float64
	trace         Tracer
	queryObserver QueryObserver
	batchObserver BatchObserver
	// defaults is a snapshot of the query defaults above, built on demand (see queryDefaults);
	// nil when one of them changed since.
	defaults atomic.Pointer[queryDefaults]

	hostsMu   sync.Mutex
	hosts     map[string]*HostInfo // by the native core's address (host:port)
	hostCount atomic.Int32         // len(hosts)

	preparedText textCache // see preparedByText
	placements   sync.Map  // keyspace -> placementEntry

	closed    atomic.Bool
	stop      chan struct{}
	refresher sync.WaitGroup
	// async keeps the goroutines that run asynchronous executions (IterAsync and
	// ExecuteBatchAsync): a new goroutine per page would grow its stack every time.
	async workpool.Pool[func()]
	// refreshNow asks refreshLoop for a refresh before its next tick (buffered 1): a query
	// found no host up (see run).
	refreshNow chan struct{}
}

// preparedInfo is a prepared statement's metadata in gocql's terms. It describes one version
// of the statement's native metadata: the native core replaces that metadata as a whole when
// it prepares the statement again (the table changed), and then a new preparedInfo is made.
type preparedInfo struct {
	stmt  *native.Prepared
	args  []ColumnInfo
	rval  []ColumnInfo
	pkIdx []int
	// params and cols are the native metadata args and rval were converted from.
	params []native.Column
	cols   []native.Column
	// schemaKey caches routingKeyInfoFromSchema's answer (protocol v3), nil for no routing
	// key; errors are not cached, as gocql does not cache them.
	schemaKeyMu   sync.Mutex
	schemaKey     *routingKeyInfo
	schemaKeyDone bool
}

// current reports whether info was converted from the statement's current native metadata.
func (info *preparedInfo) current() bool {
	return sameColumnSlice(info.stmt.Params(), info.params) && sameColumnSlice(info.stmt.Columns(), info.cols)
}

// sameColumnSlice reports whether a and b are the same slice of columns (not merely equal ones).
func sameColumnSlice(a, b []native.Column) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// NewSession connects to the cluster described by cfg.
//
// Deprecated: use ClusterConfig.CreateSession.
func NewSession(cfg ClusterConfig) (*Session, error) {
	if len(cfg.Hosts) == 0 {
		return nil, ErrNoHosts
	}
	if cfg.Authenticator != nil && cfg.AuthProvider != nil {
		//lint:ignore ST1005 gocql v1.7.0's message, kept verbatim
		return nil, errors.New("Can't use both Authenticator and AuthProvider in cluster config.")
	}
	if wl, ok := cfg.HostFilter.(*whiteListFilter); ok && wl.err != nil {
		// gocql v1.7.0 panics in WhiteListHostFilter (docs/deviations.md G72).
		return nil, fmt.Errorf("gocql: unable to create session: %w", wl.err)
	}
	if cfg.NumConns < 0 {
		// gocql v1.7.0 panics in a pool goroutine (makeslice), killing the program
		// (docs/deviations.md G26).
		return nil, fmt.Errorf("gocql: unable to create session: NumConns is %d, it must not be negative", cfg.NumConns)
	}
	ncfg, err := nativeConfig(&cfg)
	if err != nil {
		return nil, fmt.Errorf("gocql: unable to create session: %w", err)
	}
	contacts, names, err := contactPoints(context.Background(), &cfg)
	if err != nil {
		// gocql formats these with %v: the message is all there is.
		return nil, errors.New("gocql: unable to create session: " + err.Error())
	}
	ncfg.Hosts, cfg.contacts = contacts, &contactSet{names: names}
	ncfg.ResolveHosts = func(ctx context.Context) []string {
		// As gocql's control connection when every node it knew failed: the names are
		// resolved again, as nodes may have changed addresses under the same names.
		contacts, names, err := contactPoints(ctx, &cfg)
		if err != nil {
			return nil
		}
		cfg.contacts.add(names)
		return contacts
	}
	// Schema change events reach the session's schemaLoop through a buffer that the native
	// core's event goroutine never blocks on; one that overflows is dropped.
	schemaEvents := make(chan native.SchemaChange, 256)
	ncfg.OnSchemaChange = func(sc native.SchemaChange) {
		select {
		case schemaEvents <- sc:
		default:
		}
	}
	ns, err := connectNative(&cfg, ncfg)
	if err != nil {
		if addr := filteredContactPoint(err); addr != "" {
			// gocql's control connection refuses a contact point HostFilter excludes.
			return nil, errors.New("gocql: unable to create session: unable to connect to initial hosts: host was filtered: " + addr)
		}
		if cause := handshakeFailure(err); cause != nil {
			return nil, fmt.Errorf("gocql: unable to create session: %s%w", initStep(&cfg, true), cause)
		}
		var re *native.RequestError
		if errors.As(err, &re) {
			// The node answered but refused the session (a missing keyspace, say): gocql
			// returns ErrNoConnectionsStarted itself and logs the cause.
			cfg.logger().Printf("gocql: unable to create session: %v", err)
			return nil, ErrNoConnectionsStarted
		}
		if app := appDialFailure(err); app != nil {
			// gocql formats it with %v: a flat error, whatever the dialer's was.
			return nil, errors.New("gocql: unable to create session: " + initStep(&cfg, true) + app.Error())
		}
		if errors.Is(err, native.ErrNoPoolOpened) {
			// gocql's control connection opened but none of its pools did (a node whose
			// AddressTranslator address refuses connections, say): it returns
			// ErrNoConnectionsStarted (its pools log why they failed).
			cfg.logger().Printf("gocql: unable to create session: %v", err)
			return nil, ErrNoConnectionsStarted
		}
		if cause := dialFailure(err, ncfg.Hosts, ncfg.ConnectTimeout); cause != "" {
			return nil, errors.New("gocql: unable to create session: " + initStep(&cfg, true) + cause)
		}
		return nil, fmt.Errorf("gocql: unable to create session: %w", convertError(err))
	}
	if err := checkLikeGocqlInit(&cfg, ns); err != nil {
		_ = ns.Close()
		return nil, err
	}
	s := &Session{
		cfg:           cfg,
		native:        ns,
		proto:         byte(ns.ProtocolVersion()),
		logger:        cfg.logger(),
		cons:          cfg.Consistency,
		pageSize:      cfg.PageSize,
		prefetch:      0.25,
		queryObserver: cfg.QueryObserver,
		batchObserver: cfg.BatchObserver,
		hosts:         make(map[string]*HostInfo),
		stop:          make(chan struct{}),
		refreshNow:    make(chan struct{}, 1),
	}
	s.preparedText.max, s.preparedText.drop = cfg.MaxPreparedStmts, ns.DropPrepared
	s.async.Run = func(f func()) { f() }
	s.policy = cfg.PoolConfig.HostSelectionPolicy
	if s.policy == nil {
		s.policy = RoundRobinHostPolicy()
	}
	s.policy.Init(s)
	if s.policyErr != nil {
		_ = ns.Close()
		return nil, fmt.Errorf("gocql: unable to create session: %w", s.policyErr)
	}
	s.refreshHosts()
	if cfg.Keyspace != "" && !cfg.disableControlConn {
		// As gocql v1.7.0 at the end of its initialisation: the policy may cache the
		// session keyspace's settings.
		s.policy.KeyspaceChanged(KeyspaceUpdateEvent{Keyspace: cfg.Keyspace})
	}
	s.refresher.Add(2)
	go s.refreshLoop()
	go s.schemaLoop(schemaEvents)
	return s, nil
}

// schemaLoop handles the cluster's schema change events until the session closes. A keyspace
// change drops the keyspace's cached replica placement (token-aware routing reads it again)
// and, as in gocql v1.7.0, once the nodes agree on the schema (waiting at most
// MaxWaitSchemaAgreement), is passed to the host selection policy's KeyspaceChanged, unless
// Events.DisableSchemaEvents is set or the session runs without a control connection (gocql
// then receives no events).
func (s *Session) schemaLoop(events <-chan native.SchemaChange) {
	defer s.refresher.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		var sc native.SchemaChange
		select {
		case <-s.stop:
			return
		case sc = <-events:
		}
		if sc.Target != "KEYSPACE" {
			continue
		}
		s.placements.Delete(sc.Keyspace)
		if s.cfg.Events.DisableSchemaEvents || s.cfg.disableControlConn {
			continue
		}
		_ = s.awaitSchemaAgreement(ctx, "") // as gocql: the outcome does not matter
		if ctx.Err() != nil {
			return
		}
		s.policy.KeyspaceChanged(KeyspaceUpdateEvent{Keyspace: sc.Keyspace, Change: sc.Change})
	}
}

// filteredContactPoint returns the address (without the port) of the last contact point tried
// when it was refused for being excluded by HostFilter, as gocql reports it; "" otherwise.
func filteredContactPoint(err error) string {
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || len(nh.Errors) == 0 {
		return ""
	}
	last := nh.Errors[len(nh.Errors)-1]
	if !errors.Is(last.Err, native.ErrHostFiltered) {
		return ""
	}
	host, _, err := net.SplitHostPort(last.Host)
	if err != nil {
		host = last.Host
	}
	return host // an address: contactPoints resolved the names
}

// connectNative opens the native session, once: like gocql v1.7.0, CreateSession does not retry
// (its ReconnectionPolicy spaces the reconnections of pools, which the native core does with its
// own backoff). ConnectTimeout bounds the handshake, and twice that the whole connection with
// topology discovery and pool opening.
func connectNative(cfg *ClusterConfig, ncfg native.Config) (*native.Session, error) {
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = 11 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	return native.Connect(ctx, ncfg)
}

// contactPoints resolves cfg.Hosts as gocql v1.7.0 does before it dials them, and returns
// the ip:port addresses the native core dials, with the host each was given as (see
// ClusterConfig.contacts). Like gocql: a host given by name stands for every address the
// resolver returns for it, IPv4 and IPv6, in the resolver's order, each a contact point of
// its own (only its IPv4 addresses, when it has any, with GOCQL_HOST_LOOKUP_PREFER_V4=true);
// a host that does not resolve (a DNS error, an empty host) is logged and skipped, and none
// left is the error "failed to resolve any of the provided hostnames"; a port that does not
// parse is an error at once; a contact point whose port is 0 or out of range cannot be
// dialled, and when no contact point can be, CreateSession fails with the last one's dial
// error, under the prefix of the step gocql was at (discovering the protocol version when
// ProtoVersion is 0, else connecting the control connection). An address listed twice (by
// two names, or by a name and as an address) is one contact point, under its first host:
// gocql keeps both, and with DisableInitialHostLookup opens two pools to the node.
func contactPoints(ctx context.Context, cfg *ClusterConfig) ([]string, map[string]string, error) {
	var addrs []string
	names := make(map[string]string)
	var dialErr error
	resolved := 0
	for _, h := range cfg.Hosts {
		host, portText, err := net.SplitHostPort(h)
		port := cfg.Port
		if err != nil {
			host = h
		} else if port, err = strconv.Atoi(portText); err != nil {
			return nil, nil, err
		}
		var ips []net.IPAddr
		if a, err := netip.ParseAddr(host); err == nil {
			ips = []net.IPAddr{{IP: a.AsSlice(), Zone: a.Zone()}} // an address (a zone kept)
		} else {
			ips, err = net.DefaultResolver.LookupIPAddr(ctx, host)
			var dnsErr *net.DNSError
			switch {
			case ctx.Err() != nil:
				return nil, nil, ctx.Err()
			case errors.As(err, &dnsErr):
				cfg.logger().Printf("gocql: dns error: %v\n", err)
				continue
			case err != nil:
				return nil, nil, err
			case len(ips) == 0:
				return nil, nil, fmt.Errorf("no IP's returned from DNS lookup for %q", h)
			}
			ips = preferV4(ips)
		}
		resolved++
		for _, ip := range ips {
			if err := checkDialPort(ip.String(), port); err != nil {
				dialErr = err
				continue
			}
			addr := net.JoinHostPort(ip.String(), strconv.Itoa(port))
			if _, dup := names[addr]; !dup {
				names[addr] = host
				addrs = append(addrs, addr)
			}
		}
	}
	if resolved == 0 {
		return nil, nil, errors.New("failed to resolve any of the provided hostnames")
	}
	if len(addrs) == 0 {
		return nil, nil, errors.New(initStep(cfg, true) + dialErr.Error())
	}
	return addrs, names, nil
}

// contactSet is the host each contact point's address was given as (see contactPoints),
// shared by the copies of a session's ClusterConfig; names resolved again when the control
// connection falls back to the contact points add theirs.
type contactSet struct {
	mu    sync.RWMutex
	names map[string]string
}

// name returns the host the contact point at addr was given as, "" for another address.
func (c *contactSet) name(addr string) string {
	if c == nil {
		return ""
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.names[addr]
}

// add records names, the latest resolution's (an address may have moved to another name).
func (c *contactSet) add(names map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	maps.Copy(c.names, names)
}

// hostLookupPreferV4 is gocql v1.7.0's switch of the same name, read as it reads it, once,
// from the environment: with GOCQL_HOST_LOOKUP_PREFER_V4=true a contact point's name stands
// only for its IPv4 addresses when it has any.
var hostLookupPreferV4 = os.Getenv("GOCQL_HOST_LOOKUP_PREFER_V4") == "true"

// preferV4 returns the addresses a contact point's name stands for, of the ips it resolved
// to (see hostLookupPreferV4).
func preferV4(ips []net.IPAddr) []net.IPAddr {
	if !hostLookupPreferV4 {
		return ips
	}
	var v4 []net.IPAddr
	for _, ip := range ips {
		if ip4 := ip.IP.To4(); ip4 != nil {
			v4 = append(v4, net.IPAddr{IP: ip4})
		}
	}
	if len(v4) == 0 {
		return ips
	}
	return v4
}

// checkDialPort returns the error gocql's dialer meets before any network traffic for a port
// that cannot be dialled: 0 ("host missing port"), or one out of range (the net package's
// own error, produced by the same call, which fails before dialling).
func checkDialPort(ip string, port int) error {
	if port == 0 {
		return fmt.Errorf("host missing port: %v", port)
	}
	if port < 0 || port > 65535 {
		var d net.Dialer
		conn, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
		if err == nil {
			_ = conn.Close()
			return nil
		}
		return err
	}
	return nil
}

// dialFailure returns gocql v1.7.0's description of a failure of the first connection: the
// dialer's own error (refused, unreachable, timed out), or, for a connection cut short by
// ConnectTimeout, gocql's dialer timing out on the last contact point when ConnectTimeout is
// too short for any dial (dialTimeoutFloor), else its handshake timing out. It returns "" for
// any other failure.
func dialFailure(err error, hosts []string, connectTimeout time.Duration) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return op.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) && len(hosts) > 0 {
		if connectTimeout > 0 && connectTimeout < dialTimeoutFloor {
			return "dial tcp " + hosts[len(hosts)-1] + ": i/o timeout"
		}
		return "gocql: no response to connection startup within timeout"
	}
	return ""
}

// dialTimeoutFloor is a ConnectTimeout under which no TCP connection, even on the loopback
// interface, is established in time.
const dialTimeoutFloor = time.Millisecond

// initStep is the prefix gocql v1.7.0 puts before an error of its session initialisation:
// with ProtoVersion 0 the first connection discovers the protocol version, so an error of
// that first connection (dialStep) is reported under that step; every other error comes from
// connecting the control connection.
func initStep(cfg *ClusterConfig, dialStep bool) string {
	if dialStep && cfg.ProtoVersion == 0 {
		return "unable to discover protocol version: "
	}
	return "unable to connect to initial hosts: "
}

// writeDeadlineFloor is the shortest write timeout with which gocql v1.7.0 can write a frame:
// with a shorter one the socket's write deadline has passed before the write, so the first
// connection's STARTUP never leaves and CreateSession fails.
const writeDeadlineFloor = time.Microsecond

// checkLikeGocqlInit fails a session the native core opened where gocql v1.7.0's
// initialisation fails, in gocql's order, with gocql's errors:
//   - a write timeout (WriteTimeout, else Timeout) under writeDeadlineFloor: the handshake
//     cannot be written;
//   - a Timeout shorter than a request's round trip: the control connection's first query
//     (system.local) times out; the same query is sent here, bounded by Timeout;
//   - a SerialConsistency that is no consistency code: that query carries it, and the server
//     refuses it as a protocol error;
//   - NumConns 0, or with DisableInitialHostLookup a HostFilter that rejects every contact
//     point as gocql knows it then (without data centre, rack or tokens): no pool connection
//     is opened (ErrNoConnectionsStarted);
//   - a Consistency that is no consistency code, with a Keyspace: every pool connection's
//     USE carries it and is refused (ErrNoConnectionsStarted).
func checkLikeGocqlInit(cfg *ClusterConfig, ns *native.Session) error {
	fail := func(dialStep bool, cause string) error {
		return errors.New("gocql: unable to create session: " + initStep(cfg, dialStep) + cause)
	}
	writeTimeout := cfg.WriteTimeout
	if writeTimeout <= 0 {
		writeTimeout = cfg.Timeout
	}
	if writeTimeout > 0 && writeTimeout < writeDeadlineFloor {
		return fail(true, "gocql: no response to connection startup within timeout")
	}
	if cfg.Timeout > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout+cfg.ConnectTimeout+time.Second)
		_, err := ns.Execute(ctx, native.Query("SELECT key FROM system.local").
			WithConsistency(native.One).WithTimeout(cfg.Timeout))
		cancel()
		if errors.Is(err, native.ErrTimeout) {
			return fail(false, ErrTimeoutNoResponse.Error())
		}
	}
	if unknownConsistencyCode(Consistency(cfg.SerialConsistency)) {
		return fail(false, unknownConsistencyError(Consistency(cfg.SerialConsistency)).Error())
	}
	if cfg.NumConns == 0 || !acceptsAContactPoint(cfg, ns) {
		return ErrNoConnectionsStarted
	}
	if unknownConsistencyCode(cfg.Consistency) && cfg.Keyspace != "" {
		cfg.logger().Printf("gocql: unable to create session: USE %s: %v", cfg.Keyspace, unknownConsistencyError(cfg.Consistency))
		return ErrNoConnectionsStarted
	}
	return nil
}

// acceptsAContactPoint reports whether, with DisableInitialHostLookup, cfg.HostFilter accepts
// one of the session's nodes in the form gocql v1.7.0 filters its pools' hosts then (see
// Session.policyHostInfo). It is true without DisableInitialHostLookup or HostFilter.
func acceptsAContactPoint(cfg *ClusterConfig, ns *native.Session) bool {
	if !cfg.DisableInitialHostLookup || cfg.HostFilter == nil {
		return true
	}
	for _, h := range ns.Hosts() {
		if cfg.HostFilter.Accept(contactHostInfo(h, cfg)) {
			return true
		}
	}
	return false
}

// nativeConfig translates a ClusterConfig into the native core's configuration.
func nativeConfig(cfg *ClusterConfig) (native.Config, error) {
	port := cfg.Port
	if port == 0 {
		port = 9042
	}
	n := native.Config{
		Keyspace:    cfg.Keyspace,
		Consistency: native.Consistency(cfg.Consistency),
		// SerialConsistency is set on every statement (Query.serialCons), and gocql sends any
		// value, even one that is not SERIAL or LOCAL_SERIAL, which the native core's session
		// default refuses: it is left unset here.
		PageSize:             cfg.PageSize,
		Timeout:              -1, // per-attempt timeouts are set on every statement
		ConnectTimeout:       connectTimeout(cfg),
		ConnsPerHost:         cfg.NumConns,
		ProtocolVersion:      cfg.ProtoVersion,
		Routing:              native.RoundRobin,
		DisablePeerDiscovery: cfg.DisableInitialHostLookup,
		// gocql shuffles the contact points (and the nodes it reconnects to) for its
		// control connection.
		ShuffleContactPoints: true,
		// The shim waits for schema agreement after DDL itself, as gocql does
		// (ClusterConfig.MaxWaitSchemaAgreement, failures logged), so the core must not.
		SchemaAgreementTimeout: -1,
	}
	if n.PageSize <= 0 {
		n.PageSize = -1
	}
	// The shim's cache of statement texts (see textCache) bounds the core's.
	n.MaxPreparedStatements = -1
	if cfg.Consistency == Any || cfg.Consistency > LocalOne {
		// ANY is set per statement; the session default must be valid for reads. A code no
		// server knows fails CreateSession later, as in gocql (see checkLikeGocqlInit).
		n.Consistency = native.One
	}
	for _, h := range cfg.Hosts {
		n.Hosts = append(n.Hosts, JoinHostPort(h, port)) // NewSession replaces them (contactPoints)
	}
	if cfg.Compressor != nil {
		switch name := cfg.Compressor.Name(); name {
		case "snappy", "lz4":
			// As gocql, a node that does not offer the compression gets an uncompressed
			// connection rather than none.
			n.Compression, n.CompressionFallback = name, true
		default:
			return n, fmt.Errorf("gocql: compressor %q is not supported by the native core (snappy and lz4 are)", name)
		}
	}
	// Always set: without an authenticator, a server asking for one gets gocql's error.
	n.Authenticator = authAdapter{cfg: cfg}
	n.Dialer = nativeDialer(cfg)
	n.OnConnect = connectObserver(cfg)
	if cfg.SslOpts != nil && cfg.HostDialer == nil { // a HostDialer sets up TLS itself
		tc, err := tlsConfigOf(cfg.SslOpts)
		if err != nil {
			return n, err
		}
		n.TLS = tc
		// As gocql's dialer, TLS verifies the host name of the connection's HostInfo: a
		// contact point's name, not the address it resolved to.
		n.TLSServerName = func(h native.Host) string { return contactName(cfg, h) }
	}
	if cfg.HostFilter != nil {
		filter := cfg.HostFilter
		n.HostFilter = func(h native.Host) bool { return filter.Accept(discoveredHostInfo(h, port)) }
	}
	if cfg.AddressTranslator != nil {
		// As gocql v1.7.0, which translates the address of the contact point its control
		// connection reached, and dials the node there (its control connection stays on the
		// contact point).
		n.TranslateContactPoints = true
		tr := cfg.AddressTranslator
		n.AddressTranslator = func(addr string) string {
			host, p, err := net.SplitHostPort(addr)
			if err != nil {
				return addr
			}
			pn, err := strconv.Atoi(p)
			if err != nil {
				return addr
			}
			ip, pn2 := tr.Translate(net.ParseIP(host), pn)
			if ip == nil {
				return addr
			}
			return net.JoinHostPort(ip.String(), strconv.Itoa(pn2))
		}
	}
	return n, nil
}

// connectTimeout returns the native core's ConnectTimeout for cfg. A negative
// ClusterConfig.ConnectTimeout is the shortest one: gocql v1.7.0 gives it to its own dialer
// (net.Dialer.Timeout), whose deadline has then passed, so every dial times out and
// CreateSession fails. With the application's Dialer or HostDialer gocql bounds nothing then,
// as with 0; the native core's default (10 s) applies to both (docs/deviations.md G53).
func connectTimeout(cfg *ClusterConfig) time.Duration {
	if cfg.ConnectTimeout < 0 && cfg.Dialer == nil && cfg.HostDialer == nil {
		return time.Nanosecond
	}
	return cfg.ConnectTimeout
}

// tlsConfigOf builds the TLS configuration gocql derives from SslOptions.
func tlsConfigOf(o *SslOptions) (*tls.Config, error) {
	var tc *tls.Config
	if o.Config != nil {
		tc = o.Config.Clone()
	} else {
		tc = &tls.Config{InsecureSkipVerify: !o.EnableHostVerification} //nolint:gosec // gocql semantics
	}
	if o.EnableHostVerification {
		tc.InsecureSkipVerify = false
	}
	if o.CaPath != "" {
		pem, err := os.ReadFile(o.CaPath)
		if err != nil {
			return nil, fmt.Errorf("connectionpool: unable to open CA certs: %w", err)
		}
		if tc.RootCAs == nil {
			tc.RootCAs = x509.NewCertPool()
		}
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, errors.New("connectionpool: failed parsing or CA certs")
		}
	}
	if o.CertPath != "" || o.KeyPath != "" {
		cert, err := tls.LoadX509KeyPair(o.CertPath, o.KeyPath)
		if err != nil {
			return nil, fmt.Errorf("connectionpool: unable to load X509 key pair: %w", err)
		}
		tc.Certificates = append(tc.Certificates, cert)
	}
	return tc, nil
}

// demandRefreshGap is the shortest time between two refreshes asked for by queries that found
// no host up (see refreshLoop).
const demandRefreshGap = 100 * time.Millisecond

// refreshLoop re-reads the topology every second until Close, and sooner when a query found no
// host up (refreshNow), at most once per demandRefreshGap: gocql's pool retries a node on
// every query that finds it without a connection, so a session sees a node back from the
// first query after its reconnection. Without this a compat session would wait up to a second
// more, failing every query meanwhile.
func (s *Session) refreshLoop() {
	defer s.refresher.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var last time.Time
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		case <-s.refreshNow:
			if wait := demandRefreshGap - time.Since(last); wait > 0 {
				select {
				case <-s.stop:
					return
				case <-time.After(wait):
				}
			}
		}
		s.refreshHosts()
		last = time.Now()
	}
}

// askRefresh makes refreshLoop refresh the hosts soon; it never blocks.
func (s *Session) askRefresh() {
	select {
	case s.refreshNow <- struct{}{}:
	default:
	}
}

// refreshHosts synchronises the host map and the policy with the native core's topology.
func (s *Session) refreshHosts() {
	port := s.cfg.Port
	if port == 0 {
		port = 9042
	}
	seen := make(map[string]bool)
	partitionerSet := false
	s.hostsMu.Lock()
	defer s.hostsMu.Unlock()
	for _, nh := range s.native.Hosts() {
		fresh := s.policyHostInfo(nh, port)
		if fresh == nil {
			continue
		}
		key := nh.Addr
		seen[key] = true
		cur, ok := s.hosts[key]
		if s.cfg.DisableInitialHostLookup {
			// As gocql, which makes up the host id of a contact point it did not look up.
			if ok {
				fresh.hostID = cur.HostID()
			} else {
				fresh.hostID = MustRandomUUID().String()
			}
		}
		if !ok {
			s.hosts[key] = fresh
			if !s.cfg.DisableInitialHostLookup && !partitionerSet {
				// gocql v1.7.0 reads the partitioner from system.local only when it looks the
				// hosts up, and passes it on once per look-up, before the hosts at
				// CreateSession. Peers' HostInfo have none, as in gocql.
				s.policy.SetPartitioner(nh.Partitioner)
				partitionerSet = true
			}
			s.policy.AddHost(fresh)
			if fresh.IsUp() {
				s.policy.HostUp(fresh)
			} else {
				// As gocql, whose pool for a node it cannot connect to calls HostDown (the
				// round-robin policies then leave it out until HostUp).
				s.policy.HostDown(fresh)
			}
			continue
		}
		was := cur.State()
		cur.refreshFrom(fresh)
		switch {
		case was != NodeUp && fresh.IsUp():
			// As gocql, which adds a node that comes back to its pools and to the policy
			// (AddHost) and calls HostUp once connected: a policy may forget a host on
			// HostDown and count on AddHost to learn it again.
			s.policy.AddHost(cur)
			s.policy.HostUp(cur)
		case was == NodeUp && !fresh.IsUp():
			s.policy.HostDown(cur)
		}
	}
	for key, h := range s.hosts {
		if !seen[key] {
			delete(s.hosts, key)
			s.policy.RemoveHost(h)
		}
	}
	s.hostCount.Store(int32(len(s.hosts)))
}

// policyHostInfo returns the HostInfo the session and its policy know the node nh by, port
// being the default port. With DisableInitialHostLookup it is the contact point gocql v1.7.0
// connects to without reading the system tables (see contactHostInfo; refreshHosts makes up
// its host id), or nil when HostFilter rejects it: gocql filters its pools'
// hosts in that form, and opens none to a host it rejects.
func (s *Session) policyHostInfo(nh native.Host, port int) *HostInfo {
	if !s.cfg.DisableInitialHostLookup {
		hi := pooledHostInfo(nh, port)
		if name := contactName(&s.cfg, nh); name != "" {
			hi.hostname = name
		}
		return hi
	}
	hi := contactHostInfo(nh, &s.cfg)
	if s.cfg.HostFilter != nil && !s.cfg.HostFilter.Accept(hi) {
		return nil
	}
	return hi
}

// hostByAddr returns the HostInfo of a host:port address, nil when unknown.
func (s *Session) hostByAddr(addr string) *HostInfo {
	s.hostsMu.Lock()
	defer s.hostsMu.Unlock()
	return s.hosts[addr]
}

// allHosts returns the known hosts.
func (s *Session) allHosts() []*HostInfo {
	s.hostsMu.Lock()
	defer s.hostsMu.Unlock()
	out := make([]*HostInfo, 0, len(s.hosts))
	for _, h := range s.hosts {
		out = append(out, h)
	}
	return out
}

// SetConsistency sets the default consistency of queries created afterwards.
func (s *Session) SetConsistency(cons Consistency) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cons = cons
	s.defaults.Store(nil)
}

// SetPageSize sets the default page size of queries created afterwards.
func (s *Session) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
	s.defaults.Store(nil)
}

// SetPrefetch sets the default prefetch fraction of queries created afterwards.
func (s *Session) SetPrefetch(p float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prefetch = p
	s.defaults.Store(nil)
}

// SetTrace sets the default tracer of queries and batches created afterwards.
func (s *Session) SetTrace(trace Tracer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trace = trace
	s.defaults.Store(nil)
}

// Query returns a query for stmt bound to values, with the session's defaults.
func (s *Session) Query(stmt string, values ...interface{}) *Query {
	// One allocation for the query and the state it points to.
	b := &queryBlock{}
	q := &b.q
	q.stmt, q.values, q.session, q.routingInfo, q.block = stmt, values, s, &b.routing, b
	q.refCount = 1
	q.defaultsFromSession(&b.metrics)
	return q
}

// queryBlock holds a new Query together with its routing info and metrics, which are only ever
// reached through pointers, so that Session.Query allocates once.
type queryBlock struct {
	q       Query
	routing queryRoutingInfo
	metrics queryMetrics
	// spare is the copy the first WithContext call on q returns (see Query.WithContext), so
	// that the common Query(...).WithContext(ctx) allocates once; spareTaken (accessed
	// atomically) is set once it is handed out.
	spare      Query
	spareTaken uint32
}

// Bind returns a query whose values b computes from the prepared statement's metadata at
// each execution.
func (s *Session) Bind(stmt string, b func(q *QueryInfo) ([]interface{}, error)) *Query {
	q := s.Query(stmt)
	q.binding = b
	return q
}

// NewBatch returns a batch with the session's defaults.
func (s *Session) NewBatch(typ BatchType) *Batch {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return &Batch{
		Type:             typ,
		rt:               s.cfg.RetryPolicy,
		serialCons:       s.cfg.SerialConsistency,
		trace:            s.trace,
		observer:         s.batchObserver,
		session:          s,
		Cons:             s.cons,
		defaultTimestamp: s.cfg.DefaultTimestamp,
		keyspace:         s.cfg.Keyspace,
		metrics:          newQueryMetrics(),
		spec:             &NonSpeculativeExecution{},
		routingInfo:      &queryRoutingInfo{},
	}
}

// Close closes the session and all its connections. It is idempotent.
func (s *Session) Close() {
	if s == nil || !s.closed.CompareAndSwap(false, true) {
		return
	}
	close(s.stop)
	s.async.Close() // idle workers end; those running an execution end after it
	s.refresher.Wait()
	if err := s.native.Close(); err != nil {
		s.logger.Printf("gocql: closing session: %v", err)
	}
}

// Closed reports whether Close was called.
func (s *Session) Closed() bool { return s.closed.Load() }

// ExecuteBatch executes a batch and returns its error.
func (s *Session) ExecuteBatch(batch *Batch) error {
	return s.executeBatch(batch).Close()
}

func (s *Session) executeBatch(batch *Batch) *Iter {
	if s.Closed() {
		return &Iter{err: ErrSessionClosed}
	}
	if batch == nil {
		return &Iter{err: errNilBatch} // gocql v1.7.0 panics (docs/deviations.md G41)
	}
	if batch.Size() > BatchSizeMaximum {
		return &Iter{err: ErrTooManyStmts}
	}
	if batch.session == nil || batch.metrics == nil || batch.routingInfo == nil {
		// A batch of the package-level NewBatch (no session), or a struct literal (no
		// metrics either, where gocql v1.7.0 panics): the execution runs on a copy, so that
		// the caller's batch, which other goroutines may be executing, is not written.
		c := *batch
		if c.session == nil {
			c.session = s
		}
		if c.metrics == nil {
			c.metrics = newQueryMetrics()
		}
		if c.routingInfo == nil {
			c.routingInfo = &queryRoutingInfo{}
		}
		batch = &c
	}
	return s.execute(batch)
}

// errNilBatch is the error of a nil *Batch executed.
var errNilBatch = errors.New("gocql: the batch is nil")

// ExecuteBatchCAS executes a conditional batch and reports whether it was applied. When it
// was not, the first row's current values are scanned into dest and the returned iterator,
// still open, yields the following rows (scan them with &applied first).
func (s *Session) ExecuteBatchCAS(batch *Batch, dest ...interface{}) (applied bool, iter *Iter, err error) {
	iter = s.executeBatch(batch)
	if err := iter.checkErrAndNotFound(); err != nil {
		iter.Close()
		return false, nil, err
	}
	if len(iter.Columns()) > 1 {
		iter.Scan(append([]interface{}{&applied}, dest...)...)
	} else {
		iter.Scan(&applied)
	}
	return applied, iter, nil
}

// MapExecuteBatchCAS is ExecuteBatchCAS reading the first row into dest. Unlike gocql, a
// result without a boolean "[applied]" column is an error, not a panic.
func (s *Session) MapExecuteBatchCAS(batch *Batch, dest map[string]interface{}) (applied bool, iter *Iter, err error) {
	iter = s.executeBatch(batch)
	if err := iter.checkErrAndNotFound(); err != nil {
		iter.Close()
		return false, nil, err
	}
	iter.MapScan(dest)
	if iter.err != nil {
		return false, iter, iter.err
	}
	applied, err = takeApplied(dest)
	return applied, iter, err
}

// executeQuery runs a query (or a page of it) through the host plan, retries and
// speculative executions.
func (s *Session) executeQuery(q *Query) *Iter {
	if s.Closed() {
		return &Iter{err: ErrSessionClosed}
	}
	if q.released {
		return &Iter{err: errReleased}
	}
	q.borrow()
	defer q.unborrow()
	return s.execute(q)
}

// execute runs qry with speculative executions when it is idempotent and its policy asks
// for them: the first result (even an error) wins and the others are cancelled. Unlike
// gocql, a speculative execution that finds no host left in the plan delivers nothing, so it
// cannot win with ErrNoConnections while the main execution is still running. As in gocql,
// the winner is returned at once: the cancelled executions end in the background, for one
// may be inside the application's RetryPolicy (an ExponentialBackoffRetryPolicy sleeping its
// backoff, say) or QueryObserver, which no cancellation interrupts. Each holds the query
// (see Query.borrow) until it ends, so that Release cannot reset it under them. A panic of
// one that ends after the winner was returned has no caller left to reach: it is logged.
func (s *Session) execute(qry ExecutableQuery) *Iter {
	ctx := qry.Context()
	var plan hostPlan
	s.plan(qry, &plan)
	sp := qry.speculativeExecutionPolicy()
	if !qry.IsIdempotent() || sp == nil || sp.Attempts() <= 0 {
		iter, _ := s.run(ctx, qry, &plan)
		return iter
	}
	ctx, cancel := context.WithCancel(ctx)
	// The executions share one plan (on the heap, so that the plain path's stays on the stack).
	shared := new(hostPlan)
	*shared = plan
	shared.mu = new(sync.Mutex)
	type outcome struct {
		iter      *Iter
		attempted bool
		panicked  bool // a policy, observer or tracer of the application panicked with pv
		pv        any
	}
	// Buffered for every execution, so none blocks once a winner is chosen. Outcomes are
	// sent under mu, and none once over is set (the caller has returned).
	results := make(chan outcome, sp.Attempts()+1)
	var mu sync.Mutex
	over := false
	deliver := func(o outcome) {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			results <- o
		} else if o.panicked {
			s.logger.Printf("gocql: a speculative execution that lost panicked: %v", o.pv)
		}
	}
	q, _ := qry.(*Query)
	started, finished := 0, 0
	start := func() {
		started++
		if q != nil {
			q.borrow()
		}
		go func() {
			if q != nil {
				defer q.unborrow()
			}
			defer func() {
				// Carried to the caller's goroutine, which panics with it, where the
				// application (or an async execution's future) can recover it.
				if pv := recover(); pv != nil {
					deliver(outcome{panicked: true, pv: pv})
				}
			}()
			it, attempted := s.run(ctx, qry, shared)
			deliver(outcome{iter: it, attempted: attempted})
		}()
	}
	// The losers are cancelled, and not waited for (see above); a panic of theirs that came
	// in unread is logged.
	defer func() {
		cancel()
		mu.Lock()
		over = true
		mu.Unlock()
		for {
			select {
			case o := <-results:
				if o.panicked {
					s.logger.Printf("gocql: a speculative execution that lost panicked: %v", o.pv)
				}
			default:
				return
			}
		}
	}()
	start()
	delay := sp.Delay()
	if delay <= 0 {
		delay = time.Nanosecond // gocql's time.NewTicker panics on a zero delay
	}
	t := time.NewTicker(delay)
	defer t.Stop()
	tick := t.C
	for {
		select {
		case o := <-results:
			if o.panicked {
				panic(o.pv) // after the deferred cancel, in the caller's goroutine
			}
			finished++
			// The first execution that reached a host wins, even with an error. One that
			// found no host only decides when every execution found none.
			if o.attempted || finished == started {
				return o.iter
			}
		case <-tick:
			start()
			if started > sp.Attempts() {
				tick = nil
			}
		case <-ctx.Done():
			// The query's context ended (only the defer cancels ctx itself): as in gocql, the
			// query ends now, whether or not an execution has seen it yet (one may be in the
			// application's RetryPolicy).
			return &Iter{err: ctx.Err()}
		}
	}
}

// plan sets p to the host plan of qry; when the session knows no host yet, or for the
// driver's own queries (see internalQuery), a plan with one placeholder entry lets the
// native core route the request itself.
func (s *Session) plan(qry ExecutableQuery, p *hostPlan) {
	if q, ok := qry.(*Query); ok && q.internal {
		p.placeholder = true
		return
	}
	fillPlan(s.policy, qry, p)
	p.placeholder = s.hostCount.Load() == 0
}

// run is gocql's retry loop over a host plan. attempted reports whether any attempt was made.
func (s *Session) run(ctx context.Context, qry ExecutableQuery, plan *hostPlan) (iter *Iter, attempted bool) {
	rt := qry.retryPolicy()
	var lastErr error
	for sel := plan.nextHost(); sel != nil; sel = plan.nextHost() {
		host := sel.Info()
		switch {
		case sel == routeByCore:
			host = nil // the native core routes the attempt
		case host == nil || !host.IsUp():
			// As gocql v1.7.0: an entry without a host, or whose host is down, is skipped.
			continue
		}
		for {
			iter := qry.execute(ctx, s, host)
			if iter.notSent {
				// The host has no open connection (it went down since the session last read
				// the topology): like gocql, whose pool then picks no connection, move on to
				// the next host without an attempt.
				break
			}
			attempted = true
			switch {
			case iter.err == nil, errors.Is(iter.err, context.Canceled),
				errors.Is(iter.err, context.DeadlineExceeded), iter.err == ErrNotFound:
				sel.Mark(nil)
				return iter, true
			}
			sel.Mark(iter.err)
			if rt == nil || !rt.Attempt(qry) {
				return iter, true
			}
			lastErr = iter.err
			switch rt.GetRetryType(iter.err) {
			case Retry:
				continue
			case Rethrow, Ignore:
				return iter, true
			case RetryNextHost:
			default:
				return &Iter{err: ErrUnknownRetryType}, true
			}
			break
		}
	}
	if lastErr != nil {
		return &Iter{err: lastErr}, attempted
	}
	if !attempted {
		// No host was up, or those up had no connection: the nodes may be back already, which
		// the session learns from the native core (see refreshLoop).
		s.askRefresh()
	}
	return &Iter{err: ErrNoConnections}, attempted
}

// notSent reports whether err, the failure of a request pinned to host, means that nothing
// was sent: the native core returns a NoHostAvailableError for a pinned request only when the
// node had no open connection (or had left the cluster), since the session leaves retries to
// the shim. A request cut off by Close is not such a failure.
func notSent(host *HostInfo, err error) bool {
	var nh *native.NoHostAvailableError
	return host != nil && errors.As(err, &nh) && !errors.Is(err, native.ErrSessionClosed)
}

// attemptTimeout is the per-attempt timeout (ClusterConfig.Timeout; 0 disables it).
func (s *Session) attemptTimeout() time.Duration {
	if s.cfg.Timeout <= 0 {
		return 0
	}
	return s.cfg.Timeout
}

// prepare prepares stmt (cached by the native core) and converts its metadata.
func (s *Session) prepare(ctx context.Context, stmt string) (*preparedInfo, error) {
	if info := s.preparedByText(stmt); info != nil {
		return info, nil
	}
	ctx, cancel := s.prepareContext(ctx)
	defer cancel()
	p, err := s.native.Prepare(ctx, stmt)
	if err != nil {
		return nil, timedPrepareError(ctx, err)
	}
	return s.remember(p), nil
}

// errPrepareTimedOut is the cause of a PREPARE cut off by ClusterConfig.Timeout.
var errPrepareTimedOut = errors.New("gocql: the PREPARE timed out")

// prepareContext bounds a PREPARE by ClusterConfig.Timeout, as gocql v1.7.0 bounds every
// request on a connection (the native core's own timeout is off: per-attempt timeouts are
// set on every statement).
func (s *Session) prepareContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := s.attemptTimeout(); d > 0 {
		return context.WithTimeoutCause(ctx, d, errPrepareTimedOut)
	}
	return ctx, func() {}
}

// timedPrepareError converts the error of a PREPARE run under prepareContext: gocql's
// ErrTimeoutNoResponse when the timeout cut it off, else convertPrepareError's.
func timedPrepareError(ctx context.Context, err error) error {
	if context.Cause(ctx) == errPrepareTimedOut {
		return ErrTimeoutNoResponse
	}
	return convertPrepareError(err)
}

// prepareNotSentError is the error of a PREPARE that no node could take: every node's
// connections were closed (the nodes went down, and the session has not seen it yet). gocql
// prepares on the connection it picked for the attempt's host, so there it finds no connection
// and moves on to the next host without an attempt; an attempt whose statement fails so
// does the same (see attemptQuery). err is the converted error, for every other caller.
type prepareNotSentError struct{ err error }

func (e *prepareNotSentError) Error() string { return e.err.Error() }

// convertPrepareError converts the error of a native Prepare: a *prepareNotSentError when no
// node could take the PREPARE, else convertError's.
func convertPrepareError(err error) error {
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || errors.Is(err, native.ErrSessionClosed) {
		return convertError(err) // Close cut the PREPARE off: ErrSessionClosed, not "not sent"
	}
	for _, he := range nh.Errors {
		if !errors.Is(he.Err, native.ErrNotSent) {
			// A node refused it, or the PREPARE was sent and its connection failed before
			// the answer: an attempt, as in gocql (ErrConnectionClosed, for the latter).
			return convertError(err)
		}
	}
	return &prepareNotSentError{err: convertError(err)}
}

// prepareFailure returns the error a caller reports for err, a failed prepare, and whether it
// is one of a PREPARE no node could take (prepareNotSentError).
func prepareFailure(err error) (error, bool) {
	if pn, ok := err.(*prepareNotSentError); ok {
		return pn.err, true
	}
	return err, false
}

// failedStatementIter is the outcome of an attempt on host whose statement could not be made
// (err, from statement or a prepare): one without attempt (notSent) when no node could take
// its PREPARE and the attempt is pinned to a host, else a failed attempt.
func failedStatementIter(err error, host *HostInfo) *Iter {
	err, notSent := prepareFailure(err)
	return &Iter{err: err, host: host, notSent: notSent && host != nil}
}

// preparedInfoOf converts the current native metadata of p (see preparedInfo.current); proto
// is the session's protocol version, which the converted types report.
func preparedInfoOf(proto byte, p *native.Prepared) *preparedInfo {
	// Params first: if the metadata is replaced while it is read, params is the old one and
	// the next call sees that the result is not current.
	params := p.Params()
	cols := p.Columns()
	return &preparedInfo{
		stmt:   p,
		args:   columnsOf(proto, params),
		rval:   columnsOf(proto, cols),
		pkIdx:  p.PartitionKeyIndexes(),
		params: params,
		cols:   cols,
	}
}

// routingKeyInfo returns the partition key description of stmt, nil when unknown.
func (s *Session) routingKeyInfo(ctx context.Context, stmt string) (*routingKeyInfo, error) {
	info, err := s.prepare(ctx, stmt)
	if err != nil {
		err, notSent := prepareFailure(err)
		if notSent || err == ErrSessionClosed {
			// gocql prepares on any open connection and finds none. It also keeps that error
			// for the statement until its cache drops it; this does not (docs/deviations.md G33).
			return nil, errNoConnForPreparedInfo
		}
		return nil, err
	}
	if len(info.args) == 0 {
		return nil, nil
	}
	if len(info.pkIdx) == 0 {
		if s.protoVersion() < 4 {
			return s.routingKeyInfoFromSchema(info)
		}
		return nil, nil
	}
	rk := &routingKeyInfo{indexes: info.pkIdx, keyspace: info.args[0].Keyspace, table: info.args[0].Table}
	for _, i := range info.pkIdx {
		if i >= len(info.args) {
			return nil, nil
		}
		rk.types = append(rk.types, info.args[i].TypeInfo)
	}
	return rk, nil
}

// routingKeyInfoFromSchema finds the partition key markers of a statement prepared at
// protocol v3, whose metadata has no partition key indexes, as gocql v1.7.0 does: from the
// table's schema metadata, taking for each partition key column the first bind marker of its
// name. A key column without a marker gives no routing key and no error; a table missing from
// the metadata is ErrNoMetadata.
func (s *Session) routingKeyInfoFromSchema(info *preparedInfo) (*routingKeyInfo, error) {
	info.schemaKeyMu.Lock()
	defer info.schemaKeyMu.Unlock()
	if info.schemaKeyDone {
		return info.schemaKey, nil
	}
	rk, err := s.findRoutingKeyInSchema(info)
	if err == nil {
		info.schemaKey, info.schemaKeyDone = rk, true
	}
	return rk, err
}

// findRoutingKeyInSchema is routingKeyInfoFromSchema without its cache.
func (s *Session) findRoutingKeyInSchema(info *preparedInfo) (*routingKeyInfo, error) {
	ks, table := info.args[0].Keyspace, info.args[0].Table
	km, err := s.KeyspaceMetadata(ks)
	if err != nil {
		return nil, err
	}
	tm, ok := km.Tables[table]
	if !ok {
		return nil, ErrNoMetadata
	}
	rk := &routingKeyInfo{keyspace: ks, table: table}
	for _, key := range tm.PartitionKey {
		idx := -1
		for i, arg := range info.args {
			if arg.Name == key.Name {
				idx = i
				break
			}
		}
		if idx < 0 {
			return nil, nil
		}
		rk.indexes = append(rk.indexes, idx)
		rk.types = append(rk.types, info.args[idx].TypeInfo)
	}
	return rk, nil
}

// errNoConnForPreparedInfo is gocql v1.7.0's error for a routing key that needs a statement's
// metadata when no connection is open to prepare it on (every node down, or the session
// closed).
var errNoConnForPreparedInfo = errors.New("gocql: unable to fetch prepared info: no connection available")

// placement is a keyspace's replica placement as token-aware routing reads it from the
// keyspace's replication options, as gocql v1.7.0's getStrategy does.
type placement struct {
	// dcs holds NetworkTopologyStrategy's factors per data centre; nil for the other
	// strategies.
	dcs map[string]int
	// rf is SimpleStrategy's replication factor, and 1 for a keyspace whose placement is
	// unknown (gocql then routes to the token's primary owner only).
	rf int
	// key identifies dcs (its sorted "dc=rf" pairs), for the per-ring replica tables.
	key string
}

// placementEntry caches a keyspace's placement for token-aware routing.
type placementEntry struct {
	p  placement
	at time.Time
}

// placementCacheTTL is how long a keyspace's placement is reused before it is read again.
const placementCacheTTL = 30 * time.Second

// primaryOnly is the placement of a keyspace whose replication is unknown: the token's owner.
var primaryOnly = placement{rf: 1}

// placementOf returns the replica placement of keyspace, cached for placementCacheTTL:
// SimpleStrategy's factor, NetworkTopologyStrategy's factors per data centre, and for the
// system keyspaces and any other strategy (or a keyspace that cannot be read) the token's
// primary owner alone. The schema query it runs is itself routed with the primary owner, so
// routing never recurses.
func (s *Session) placementOf(keyspace string) placement {
	if keyspace == "" || strings.HasPrefix(keyspace, "system") {
		return primaryOnly
	}
	if v, ok := s.placements.Load(keyspace); ok {
		if e := v.(placementEntry); time.Since(e.at) < placementCacheTTL {
			return e.p
		}
	}
	// Provisional entry: concurrent and nested lookups use the primary owner until the read
	// completes.
	s.placements.Store(keyspace, placementEntry{p: primaryOnly, at: time.Now()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ks, err := s.keyspaceMeta(ctx, keyspace, false)
	if err != nil || ks == nil {
		return primaryOnly
	}
	p := placementFromOptions(ks.StrategyClass, ks.StrategyOptions)
	s.placements.Store(keyspace, placementEntry{p: p, at: time.Now()})
	return p
}

// placementFromOptions reads a keyspace's replication class and options as gocql v1.7.0
// does: factors that are not whole non-negative numbers are left out (a data centre) or make
// the placement unknown (SimpleStrategy).
func placementFromOptions(class string, opts map[string]interface{}) placement {
	factor := func(v interface{}) (int, bool) {
		var n int
		switch v := v.(type) {
		case int:
			n = v
		case string:
			var err error
			if n, err = strconv.Atoi(v); err != nil {
				return 0, false
			}
		default:
			return 0, false
		}
		return n, n >= 0
	}
	switch {
	case strings.Contains(class, "SimpleStrategy"):
		if rf, ok := factor(opts["replication_factor"]); ok {
			return placement{rf: max(rf, 1)}
		}
	case strings.Contains(class, "NetworkTopologyStrategy"):
		p := placement{dcs: map[string]int{}}
		for dc, v := range opts {
			if rf, ok := factor(v); ok && dc != "class" {
				p.dcs[dc] = rf
			}
		}
		for _, dc := range slices.Sorted(maps.Keys(p.dcs)) {
			p.key += dc + "=" + strconv.Itoa(p.dcs[dc]) + ";"
		}
		return p
	}
	return primaryOnly
}

// marshalValues encodes values with gocql's rules for the bind markers described by args.
func marshalValues(args []ColumnInfo, values []interface{}) ([]any, error) {
	if bindAsIs(args, values) {
		return values, nil // the native core encodes them itself, to the same bytes
	}
	// Few values take one allocation: the slice native binds and the encoded values its
	// elements point to.
	var out []any
	var raws []rawValue
	switch n := len(values); {
	case n == 1:
		a := &valueArena1{}
		out, raws = a.out[:], a.raws[:]
	case n <= len(valueArena4{}.out):
		a := &valueArena4{}
		out, raws = a.out[:n], a.raws[:n]
	default:
		out, raws = make([]any, n), make([]rawValue, n)
	}
	k := 0 // values kept in out
	for i, v := range values {
		name := ""
		arg := i
		if nv, ok := v.(*namedValue); ok {
			name, v = nv.name, nv.value
			if arg = argByName(args, name); arg < 0 {
				return nil, fmt.Errorf("gocql: named value %q matches no bind marker", name)
			}
		}
		var enc any
		switch {
		case isUnset(v):
			enc = native.Unset
		case bindableAsIs(args[arg].TypeInfo, v):
			enc = v
		default:
			b, err := Marshal(args[arg].TypeInfo, v)
			if err != nil {
				// Returned as is (gocql.MarshalError and friends), as gocql does.
				return nil, err
			}
			raws[i] = rawValue{b: b}
			enc = &raws[i] // a pointer: boxing it allocates nothing
		}
		if name != "" {
			if namedBefore(values[:i], name) {
				// The server binds a marker to the first value of its name and ignores the
				// others (gocql sends them all): the native core refuses such duplicates.
				continue
			}
			enc = native.Named(name, enc)
		}
		out[k] = enc
		k++
	}
	return out[:k], nil
}

// namedBefore reports whether values hold a named value called name.
func namedBefore(values []interface{}, name string) bool {
	for _, v := range values {
		if nv, ok := v.(*namedValue); ok && nv.name == name {
			return true
		}
	}
	return false
}

// argByName finds the bind marker called name (exactly, else ignoring case); -1 when none.
func argByName(args []ColumnInfo, name string) int {
	for i, a := range args {
		if a.Name == name {
			return i
		}
	}
	for i, a := range args {
		if strings.EqualFold(a.Name, name) {
			return i
		}
	}
	return -1
}

// rawValue is a value already encoded by gocql's Marshal; nil bytes are NULL. It is bound as
// *rawValue.
type rawValue struct{ b []byte }

// MarshalCQL returns the encoded bytes.
func (r *rawValue) MarshalCQL(*cqltype.Type) ([]byte, error) { return r.b, nil }

// valueArena1 and valueArena4 back marshalValues for statements with few values.
type (
	valueArena1 struct {
		out  [1]any
		raws [1]rawValue
	}
	valueArena4 struct {
		out  [4]any
		raws [4]rawValue
	}
)

// errNoControl is gocql's error for schema agreement without a control connection.
var errNoControl = errors.New("gocql: no control connection available")

// awaitSchemaAgreementAfterDDL waits for agreement after a schema change coordinated by
// coordinator (host:port), logging failures as gocql does. Unlike gocql, which asks its control
// connection, it asks the coordinator when it can: the other nodes may not have heard of the
// change yet, and asked first they could all agree on the schema before it (a deviation, see
// docs/deviations.md).
func (s *Session) awaitSchemaAgreementAfterDDL(ctx context.Context, coordinator string) {
	if err := s.awaitSchemaAgreement(ctx, coordinator); err != nil {
		s.logger.Println(err)
	}
}

// AwaitSchemaAgreement waits until every node reports the same schema version, at most
// ClusterConfig.MaxWaitSchemaAgreement (and no longer than ctx allows).
func (s *Session) AwaitSchemaAgreement(ctx context.Context) error {
	return s.awaitSchemaAgreement(ctx, "")
}

// awaitSchemaAgreement is AwaitSchemaAgreement asking the node at prefer (host:port) when it is
// up, else the first node up.
func (s *Session) awaitSchemaAgreement(ctx context.Context, prefer string) error {
	if s.Closed() {
		return ErrSessionClosed
	}
	if s.cfg.disableControlConn {
		return errNoControl
	}
	if ctx == nil {
		ctx = context.Background() // gocql v1.7.0 panics (docs/deviations.md G41)
	}
	wait := s.cfg.MaxWaitSchemaAgreement
	if wait <= 0 {
		// gocql v1.7.0 asks no node and reports no versions.
		return fmt.Errorf("gocql: cluster schema versions not consistent: %+v", []string{})
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var versions map[string]bool
	var err error
	for {
		versions, err = s.schemaVersions(ctx, prefer)
		if err == nil && len(versions) <= 1 {
			return nil
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if err != nil {
				return err
			}
			schemas := make([]string, 0, len(versions))
			for v := range versions {
				schemas = append(schemas, v)
			}
			return fmt.Errorf("gocql: cluster schema versions not consistent: %+v", schemas)
		case <-t.C:
		}
	}
}

// schemaVersions reads the schema versions of the peers and of the node answering: prefer
// (host:port) when it is up, else the first node up.
func (s *Session) schemaVersions(ctx context.Context, prefer string) (map[string]bool, error) {
	var host string
	for _, h := range s.allHosts() {
		if !h.IsUp() {
			continue
		}
		if a := h.dialAddr(); host == "" || a == prefer {
			host = a
		}
	}
	run := func(cql string) (*native.Result, error) {
		st := native.Query(cql).WithConsistency(native.One).WithPageSize(-1)
		if host != "" {
			st = st.WithHost(host)
		}
		return s.native.Execute(ctx, st)
	}
	versions := make(map[string]bool)
	for _, cql := range []string{
		"SELECT peer, rpc_address, schema_version FROM system.peers",
		"SELECT schema_version FROM system.local WHERE key='local'",
	} {
		res, err := run(cql)
		if err != nil {
			return nil, convertError(err)
		}
		idx := len(res.Columns()) - 1
		for _, row := range res.Rows() {
			raw := row.Raw(idx)
			if len(raw) == 16 {
				versions[UUID(raw).String()] = true
			}
		}
	}
	return versions, nil
}

// statement builds the native statement for one attempt of q on host; now is the attempt's
// start, the default client-side timestamp.
func (s *Session) statement(ctx context.Context, q *Query, host *HostInfo, now time.Time) (native.Statement, *preparedInfo, error) {
	var st native.Statement
	var info *preparedInfo
	if shouldPrepare(q.stmt) {
		var err error
		if info, err = s.prepareTraced(ctx, q.stmt, q.trace); err != nil {
			return st, nil, err
		}
		values := q.values
		if q.binding != nil {
			values, err = q.binding(&QueryInfo{Id: info.stmt.ID(), Args: info.args, Rval: info.rval, PKeyColumns: info.pkIdx})
			if err != nil {
				return st, nil, err
			}
		}
		// One value per bind marker, a tuple marker included. gocql v1.7.0 expects one per
		// tuple element there and then panics (docs/deviations.md G23).
		if len(values) != len(info.args) {
			return st, nil, fmt.Errorf("gocql: expected %d values send got %d", len(info.args), len(values))
		}
		enc, err := marshalValues(info.args, values)
		if err != nil {
			return st, nil, err
		}
		st = info.stmt.Bind(enc...)
		if s.cfg.DisableSkipMetadata || q.disableSkipMetadata {
			st = st.WithSkipMetadata(false) // skipped unless set: each With copies the statement
		}
		if len(info.args) > 0 && q.routingInfo != nil {
			q.routingInfo.mu.Lock()
			q.routingInfo.keyspace, q.routingInfo.table = info.args[0].Keyspace, info.args[0].Table
			q.routingInfo.mu.Unlock()
		}
	} else {
		st = native.Query(q.stmt)
	}
	sendSerial, err := checkConsistencies(q.cons, q.serialCons, func() bool { return isConditional(q.stmt) })
	if err != nil {
		return st, nil, err
	}
	st = st.WithConsistency(native.Consistency(q.cons)).WithTimeout(s.attemptTimeout())
	if q.idempotent {
		st = st.WithIdempotent(true) // false unless set
	}
	if sendSerial {
		st = st.WithSerialConsistency(native.Consistency(q.serialCons))
	}
	st = st.WithPageSize(q.pageSize)
	if len(q.pageState) > 0 {
		st = st.WithPagingState(q.pageState)
	}
	if q.defaultTimestamp {
		ts := q.defaultTimestampValue
		if ts == 0 {
			ts = now.UnixMicro()
		}
		st = st.WithTimestamp(ts)
	}
	if q.trace != nil {
		st = st.WithTracing(true)
	}
	if q.customPayload != nil {
		st = st.WithCustomPayload(q.customPayload)
	}
	if host != nil {
		st = st.WithHost(host.dialAddr())
	}
	return st, info, nil
}

// execute runs one attempt of q on host and reports it to the observer.
func (q *Query) execute(ctx context.Context, s *Session, host *HostInfo) *Iter {
	start := time.Now()
	iter := s.attemptQuery(ctx, q, host, start)
	if iter.notSent {
		return iter // no attempt: neither counted nor observed
	}
	end := time.Now()
	attempt := q.metrics.attempt(end.Sub(start), iter.host)
	if q.observer != nil {
		// The query's own context, as in gocql v1.7.0: ctx may be the execution's, which is
		// cancelled when an idempotent query with speculative executions ends (see execute).
		q.observer.ObserveQuery(q.Context(), ObservedQuery{
			Keyspace:  s.cfg.Keyspace,
			Statement: q.stmt,
			Values:    q.values,
			Start:     start,
			End:       end,
			Rows:      iter.numRows,
			Host:      iter.host,
			Metrics:   q.metrics.hostMetrics(iter.host),
			Err:       iter.err,
			Attempt:   attempt,
		})
	}
	return iter
}

// attemptQuery runs one attempt of q on host (nil: the native core chooses), started at start.
func (s *Session) attemptQuery(ctx context.Context, q *Query, host *HostInfo, start time.Time) *Iter {
	if err := ctx.Err(); err != nil {
		return &Iter{err: err, host: host}
	}
	st, info, err := s.statement(ctx, q, host, start)
	if err != nil {
		return failedStatementIter(err, host)
	}
	res, err := s.native.Execute(ctx, st)
	if errors.Is(err, native.ErrBindTypesChanged) {
		// The server had forgotten the statement and, prepared again, it takes other types
		// (its table was created again): gocql encodes the values again for the new types,
		// and so does this, once.
		if st, info, err = s.statement(ctx, q, host, start); err != nil {
			return failedStatementIter(err, host)
		}
		res, err = s.native.Execute(ctx, st)
	}
	if err != nil {
		if notSent(host, err) {
			return &Iter{err: convertAttemptError(ctx, err), host: host, notSent: true}
		}
		traceFailure(q.trace, err)
		return &Iter{err: convertAttemptError(ctx, err), host: host}
	}
	if host == nil {
		host = s.hostByAddr(res.Host())
	}
	if q.trace != nil {
		// Declared only here: id escapes to the heap through Trace.
		if id, ok := res.TraceID(); ok {
			q.trace.Trace(id[:])
		}
	}
	iter := newIter()
	iter.host, iter.warnings, iter.customPayload, iter.res = host, res.Warnings(), appPayload(res.CustomPayload()), res
	switch res.Kind() {
	case native.ResultRows:
		iter.fillRows(s.protoVersion(), res, info)
		if iter.pageState == nil && info != nil && !s.cfg.DisableSkipMetadata && !q.disableSkipMetadata {
			// gocql v1.7.0 copies the paging state of a page whose metadata was skipped
			// (copyBytes), so on the last page PageState() is empty but not nil.
			iter.pageState = []byte{}
		}
		if res.HasMorePages() && !q.disableAutoPage {
			pos := int((1 - q.prefetch) * float64(iter.numRows))
			if pos < 1 {
				pos = 1
			}
			if len(q.pageState) > 0 && bytes.Equal(res.PagingState(), q.pageState) {
				// The node answered with the paging state it was sent: the next page would
				// be this one again, for ever (gocql fetches it again and again,
				// docs/deviations.md G60). The iterator ends after this page with the error.
				iter.next = repeatedPageIter(host, res, pos)
				break
			}
			next := q.shallowCopy()
			next.pageState = append([]byte(nil), res.PagingState()...)
			next.metrics = newQueryMetrics()
			iter.next = &nextIter{qry: next, pos: pos}
		}
	case native.ResultSchemaChange:
		s.awaitSchemaAgreementAfterDDL(ctx, res.Host())
	}
	return iter
}

// fillRows loads a page of rows into iter; proto is the session's protocol version.
func (iter *Iter) fillRows(proto byte, res *native.Result, info *preparedInfo) {
	if info != nil && len(res.Columns()) == len(info.rval) && len(info.rval) > 0 && sameColumns(res.Columns(), info) {
		iter.columns = info.rval
	} else {
		iter.columns = columnsOf(proto, res.Columns())
	}
	iter.actualColCount = countColumns(iter.columns)
	iter.numRows = res.Len()
	iter.pageState = res.PagingState()
}

// sameColumns reports whether the page's columns are the result columns info.rval was
// converted from (so the conversion can be reused). They are not when the native core
// prepared the statement again, with new result metadata, after info was made.
func sameColumns(cols []native.Column, info *preparedInfo) bool {
	pc := info.cols
	if len(pc) != len(cols) {
		return false
	}
	if sameColumnSlice(cols, pc) {
		return true // the page reuses the prepared metadata (skipped in the response)
	}
	for i := range cols {
		if cols[i].Name != pc[i].Name || cols[i].Type != pc[i].Type {
			return false
		}
	}
	return true
}

// execute runs one attempt of b on host and reports it to the observer.
func (b *Batch) execute(ctx context.Context, s *Session, host *HostInfo) *Iter {
	start := time.Now()
	iter := s.attemptBatch(ctx, b, host)
	if iter.notSent {
		return iter // no attempt: neither counted nor observed
	}
	end := time.Now()
	attempt := b.metrics.attempt(end.Sub(start), iter.host)
	if b.observer != nil {
		stmts := make([]string, len(b.Entries))
		values := make([][]interface{}, len(b.Entries))
		for i, e := range b.Entries {
			stmts[i], values[i] = e.Stmt, e.Args
		}
		// The batch's own context, as in gocql v1.7.0 (see Query.execute).
		b.observer.ObserveBatch(b.Context(), ObservedBatch{
			Keyspace: s.cfg.Keyspace, Statements: stmts, Values: values, Start: start, End: end,
			Host: iter.host, Err: iter.err, Metrics: b.metrics.hostMetrics(iter.host), Attempt: attempt,
		})
	}
	return iter
}

func (s *Session) attemptBatch(ctx context.Context, b *Batch, host *HostInfo) *Iter {
	iter, again := s.attemptBatchOnce(ctx, b, host)
	if again {
		// A statement of the batch takes other types since it was prepared again (see
		// attemptQuery): bind the values again, once.
		iter, _ = s.attemptBatchOnce(ctx, b, host)
	}
	return iter
}

// attemptBatchOnce is one execution of b for attemptBatch; bindTypesChanged reports the failure
// that binding the values again mends (native.ErrBindTypesChanged).
func (s *Session) attemptBatchOnce(ctx context.Context, b *Batch, host *HostInfo) (iter *Iter, bindTypesChanged bool) {
	if err := ctx.Err(); err != nil {
		return &Iter{err: err, host: host}, false
	}
	stmts := make([]native.Statement, 0, len(b.Entries))
	// Batches usually repeat one statement: its prepared info is looked up once per run of
	// entries with the same text.
	var info *preparedInfo
	var infoStmt string
	for i, e := range b.Entries {
		if len(e.Args) == 0 && e.binding == nil {
			stmts = append(stmts, native.Query(e.Stmt))
			continue
		}
		var err error
		if info == nil || e.Stmt != infoStmt {
			if info, err = s.prepareTraced(ctx, e.Stmt, b.trace); err != nil {
				return failedStatementIter(err, host), false
			}
			infoStmt = e.Stmt
		}
		values := e.Args
		if e.binding != nil {
			if values, err = e.binding(&QueryInfo{Id: info.stmt.ID(), Args: info.args, Rval: info.rval, PKeyColumns: info.pkIdx}); err != nil {
				return &Iter{err: err, host: host}, false
			}
		}
		if len(values) != len(info.args) { // one per bind marker, as in statement
			return &Iter{err: fmt.Errorf("gocql: batch statement %d expected %d values send got %d", i, len(info.args), len(values)), host: host}, false
		}
		enc, err := marshalValues(info.args, values)
		if err != nil {
			return &Iter{err: err, host: host}, false
		}
		stmts = append(stmts, info.stmt.Bind(enc...))
	}
	sendSerial, err := checkConsistencies(b.Cons, b.serialCons, func() bool {
		for _, e := range b.Entries {
			if isConditional(e.Stmt) {
				return true
			}
		}
		return false
	})
	if err != nil {
		return &Iter{err: err, host: host}, false
	}
	nb := native.NewBatch(native.BatchType(b.Type), stmts...).
		WithConsistency(native.Consistency(b.Cons)).
		WithIdempotent(b.IsIdempotent()).
		WithTimeout(s.attemptTimeout())
	if sendSerial {
		nb = nb.WithSerialConsistency(native.Consistency(b.serialCons))
	}
	if b.defaultTimestamp {
		ts := b.defaultTimestampValue
		if ts == 0 {
			ts = time.Now().UnixMicro()
		}
		nb = nb.WithTimestamp(ts)
	}
	if b.trace != nil {
		nb = nb.WithTracing(true)
	}
	if b.CustomPayload != nil {
		nb = nb.WithCustomPayload(b.CustomPayload)
	}
	if host != nil {
		nb = nb.WithHost(host.dialAddr())
	}
	res, err := s.native.ExecuteBatch(ctx, nb)
	if err != nil {
		if notSent(host, err) {
			return &Iter{err: convertAttemptError(ctx, err), host: host, notSent: true}, false
		}
		traceFailure(b.trace, err)
		return &Iter{err: convertAttemptError(ctx, err), host: host}, errors.Is(err, native.ErrBindTypesChanged)
	}
	if host == nil {
		host = s.hostByAddr(res.Host())
	}
	if id, ok := res.TraceID(); ok && b.trace != nil {
		b.trace.Trace(id[:])
	}
	iter = &Iter{host: host, warnings: res.Warnings(), customPayload: appPayload(res.CustomPayload()), res: res}
	if res.Kind() == native.ResultRows {
		iter.fillRows(s.protoVersion(), res, nil)
	}
	return iter, false
}

// appPayload returns the custom payload of a response as gocql v1.7.0 shows it: without the
// tablet description a ScyllaDB node adds for a session that opted in to tablets routing
// (which the native core does and gocql does not), nil when nothing else is left.
func appPayload(p map[string][]byte) map[string][]byte {
	if _, ok := p[proto.TabletsRoutingPayload]; !ok {
		return p
	}
	if len(p) == 1 {
		return nil
	}
	out := make(map[string][]byte, len(p)-1)
	for k, v := range p {
		if k != proto.TabletsRoutingPayload {
			out[k] = v
		}
	}
	return out
}
