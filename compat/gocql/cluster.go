package gocql

import "time"

// ClusterConfig configures a Session. Build it with NewCluster, change the fields, then call
// CreateSession. Fields the native core has no equivalent for are accepted and documented as
// having no effect.
type ClusterConfig struct {
	// Hosts are the contact points (host or host:port); the rest of the ring is discovered.
	// As in gocql, a host given by name stands for every address it resolves to when the
	// session is created, IPv4 and IPv6 (only IPv4 ones, when it has any, with the environment
	// variable GOCQL_HOST_LOOKUP_PREFER_V4=true), each a contact point of its own; a name that
	// does not resolve is logged and skipped. The names are resolved again when the control
	// connection falls back to the contact points (every node it knew failed).
	Hosts []string

	// CQLVersion was sent in gocql's STARTUP (default "3.0.0"); the native core sends
	// "3.0.0" itself.
	CQLVersion string

	// ProtoVersion is the protocol version: 3, 4 or 5 (Cassandra 4.0 and later, which gocql
	// v1.7.0 cannot speak: docs/deviations.md G46). 0 discovers it on the first connection, as
	// gocql does: v4, or v3 when the server refuses v4 (a server that speaks v3 at most,
	// Cassandra 2.1 and older); v5 is used only when asked for. Any other value fails
	// CreateSession (docs/deviations.md G25).
	ProtoVersion int

	// Timeout bounds one attempt of a request (default 11s), and the PREPARE a statement
	// needs first (which then fails with ErrTimeoutNoResponse); it does not bound the whole
	// query when retries or paging are involved. As in gocql, it also bounds the session's
	// first query (system.local) in CreateSession, so a Timeout shorter than a round trip
	// fails CreateSession; with no WriteTimeout, one under a microsecond fails it as gocql's
	// handshake write does. 0 or less disables it.
	Timeout time.Duration

	// ConnectTimeout bounds opening a connection, handshake included (default 11s). As in
	// gocql, a negative value fails every dial (CreateSession fails with an i/o timeout)
	// unless Dialer or HostDialer is set. 0 (or, with a Dialer or HostDialer, a negative
	// value), which gocql takes for no bound, is the native core's default, 10s
	// (docs/deviations.md G53).
	ConnectTimeout time.Duration

	// WriteTimeout bounds writing a request; the native core uses Timeout for the whole
	// attempt, so it has no separate effect, except that, as in gocql, a write timeout
	// (WriteTimeout, else Timeout) under a microsecond fails CreateSession.
	WriteTimeout time.Duration

	// Port is the CQL port used for hosts given without one (default 9042). As in gocql, a
	// host whose port is 0 or out of range cannot be dialled.
	Port int

	// Keyspace is the initial keyspace of every connection.
	Keyspace string

	// NumConns is the number of connections per host (default 2). As in gocql, 0 opens none:
	// CreateSession returns ErrNoConnectionsStarted. A negative value, on which gocql panics,
	// fails CreateSession. A ScyllaDB node that describes its sharding gets one connection
	// per shard instead, as with scylladb/gocql (see docs/deviations.md, G45).
	NumConns int

	// Consistency is the default consistency of queries and batches (default Quorum).
	Consistency Consistency

	// Compressor compresses frames; only snappy and lz4 compressors are supported, by name.
	Compressor Compressor

	// Authenticator answers the server's authentication challenge.
	Authenticator Authenticator

	// AuthProvider returns the authenticator for a host; it takes precedence over
	// Authenticator.
	AuthProvider func(h *HostInfo) (Authenticator, error)

	// RetryPolicy is the default retry policy of queries and batches (default nil: no retry).
	RetryPolicy RetryPolicy

	// ConvictionPolicy decided when gocql marked a failing host down (default
	// SimpleConvictionPolicy); the native core tracks host state itself, so it has no effect
	// (nil included, on which gocql panics: docs/deviations.md G52).
	ConvictionPolicy ConvictionPolicy

	// ReconnectionPolicy spaced gocql's reconnections of a host's pool (default 3 retries one
	// second apart); the native core reconnects with its own backoff (100 ms doubling to 10 s),
	// so it has no effect. As in gocql, CreateSession does not retry. A nil policy, or one
	// whose GetMaxRetries is 0, on which gocql panics, is accepted (docs/deviations.md G52).
	ReconnectionPolicy ReconnectionPolicy

	// SocketKeepalive is the TCP keep-alive period of the connections when neither Dialer
	// nor HostDialer is set (zero: Go's default, 15 s), as in gocql. The native core also
	// detects dead connections with heartbeats.
	SocketKeepalive time.Duration

	// MaxPreparedStmts bounds the cache of prepared statements (default 1000), least
	// recently used out first, as in gocql; 0 means no bound, a negative value caches nothing
	// (every execution prepares again). The cache is per session, gocql's per node
	// (docs/deviations.md G39).
	MaxPreparedStmts int

	// MaxRoutingKeyInfo bounded gocql's routing key cache (default 1000); no effect.
	MaxRoutingKeyInfo int

	// PageSize is the default page size (default 5000; <= 0 disables paging).
	PageSize int

	// SerialConsistency is the default serial consistency of conditional updates (0: the
	// server's default, SERIAL). As in gocql, another consistency level is accepted but
	// refused by the server for a conditional update, and a value that is no consistency
	// level fails CreateSession (docs/deviations.md G29).
	SerialConsistency SerialConsistency

	// SslOpts enables TLS.
	SslOpts *SslOptions

	// DefaultTimestamp sends a client-side timestamp with each request (default true).
	DefaultTimestamp bool

	// PoolConfig configures host selection.
	PoolConfig PoolConfig

	// ReconnectInterval is how often gocql re-dialled down hosts (default 60s); the native
	// core reconnects on its own schedule, so it has no effect.
	ReconnectInterval time.Duration

	// MaxWaitSchemaAgreement bounds the wait for schema agreement after DDL (default 60s).
	// Zero or less waits not at all: as in gocql, DDL returns at once and
	// AwaitSchemaAgreement fails with "cluster schema versions not consistent: []".
	MaxWaitSchemaAgreement time.Duration

	// HostFilter selects the hosts connected to.
	HostFilter HostFilter

	// AddressTranslator maps discovered addresses to dialled ones.
	AddressTranslator AddressTranslator

	// IgnorePeerAddr uses the contact point address rather than the peer address (no effect).
	IgnorePeerAddr bool

	// DisableInitialHostLookup connects only to Hosts (every address of a name), without
	// reading system.peers. As in gocql, the hosts then carry nothing the system tables
	// tell, not even the node the session read system.local from: no data centre, rack,
	// version or tokens, and a made-up host id. So the HostSelectionPolicy gets no
	// partitioner (TokenAwareHostPolicy uses its fallback), DCAwareRoundRobinPolicy sees
	// every host as remote, and a HostFilter that rejects such hosts (DataCentreHostFilter)
	// leaves no pool: CreateSession returns ErrNoConnectionsStarted.
	DisableInitialHostLookup bool

	// Events disables kinds of server events. The native core always follows topology and
	// status events, so DisableNodeStatusEvents and DisableTopologyEvents have no effect;
	// DisableSchemaEvents stops the calls of the host selection policy's KeyspaceChanged, as
	// in gocql.
	Events struct {
		DisableNodeStatusEvents bool
		DisableTopologyEvents   bool
		DisableSchemaEvents     bool
	}

	// DisableSkipMetadata asks the server for result metadata on every EXECUTE.
	DisableSkipMetadata bool

	// QueryObserver is the default query observer.
	QueryObserver QueryObserver

	// BatchObserver is the default batch observer.
	BatchObserver BatchObserver

	// ConnectObserver is told of every attempt to open a connection (the control
	// connection's and the pools'), successful or not, as in gocql: the host (for a contact
	// point dialled before discovery, its address and port alone), when the dial began,
	// when the connection was ready or the attempt failed, and the error (a refused or
	// unreachable node's is the dialer's own *net.OpError, as in gocql). It is called from
	// the goroutine that connects and must not block for long.
	ConnectObserver ConnectObserver

	// FrameHeaderObserver is accepted but never called (no frame access in the native core).
	FrameHeaderObserver FrameHeaderObserver

	// StreamObserver is accepted but never called (no stream access in the native core).
	StreamObserver StreamObserver

	// DefaultIdempotence is the default of Query.Idempotent.
	DefaultIdempotence bool

	// WriteCoalesceWaitTime is gocql's write coalescing delay; the native core writes every
	// queued request at once without a timer, so it has no effect.
	WriteCoalesceWaitTime time.Duration

	// Dialer opens every connection's network connection (the control connection's and the
	// pools'), with network "tcp" and the node's ip:port (a contact point given by name is
	// resolved first); SslOpts' TLS runs over it. It is ignored when HostDialer is set. Its
	// context ends when the connection closes; its errors fail CreateSession as they are,
	// under gocql's step prefix. Unlike gocql, a dial that has not returned after
	// ConnectTimeout is abandoned, even when the Dialer ignores its context, and a panic in
	// it is an error (docs/deviations.md G40).
	Dialer Dialer

	// HostDialer opens every connection, TLS included: SslOpts is ignored when it is set.
	// It gets the HostInfo gocql gives it: for a contact point dialled before discovery
	// only its address and port, for a discovered node the ring's host (data center, rack,
	// host id, ...). DialedHost.DisableCoalesce has no effect (the native core has no
	// coalescing timer). A nil DialedHost or Conn without an error is an error, where gocql
	// panics (docs/deviations.md G40).
	HostDialer HostDialer

	// Logger receives the session's diagnostics (default: the package Logger).
	Logger StdLogger

	// disableControlConn mirrors gocql's unexported field (tests of gocql set it); with it
	// set, AwaitSchemaAgreement reports that no control connection is available.
	disableControlConn bool

	// contacts tells, for the address (ip:port) of each contact point the native core
	// dials, the host it was given as in Hosts. NewSession sets it (see contactPoints and
	// contactName).
	contacts *contactSet
}

// PoolConfig configures host selection.
type PoolConfig struct {
	// HostSelectionPolicy chooses the hosts of each query plan (default RoundRobinHostPolicy).
	// A policy must not be shared between sessions: CreateSession fails for a
	// TokenAwareHostPolicy another session was created with (gocql v1.7.0 panics), even
	// once that session is closed.
	HostSelectionPolicy HostSelectionPolicy
}

// NewCluster returns a configuration with gocql v1.7.0's defaults and the given contact
// points.
func NewCluster(hosts ...string) *ClusterConfig {
	return &ClusterConfig{
		Hosts:                  hosts,
		CQLVersion:             "3.0.0",
		Timeout:                11 * time.Second,
		ConnectTimeout:         11 * time.Second,
		Port:                   9042,
		NumConns:               2,
		Consistency:            Quorum,
		MaxPreparedStmts:       1000,
		MaxRoutingKeyInfo:      1000,
		PageSize:               5000,
		DefaultTimestamp:       true,
		MaxWaitSchemaAgreement: 60 * time.Second,
		ReconnectInterval:      60 * time.Second,
		ConvictionPolicy:       &SimpleConvictionPolicy{},
		ReconnectionPolicy:     &ConstantReconnectionPolicy{MaxRetries: 3, Interval: time.Second},
		WriteCoalesceWaitTime:  200 * time.Microsecond,
	}
}

// CreateSession connects to the cluster and returns a Session.
func (cfg *ClusterConfig) CreateSession() (*Session, error) {
	return NewSession(*cfg)
}

func (cfg *ClusterConfig) logger() StdLogger {
	if cfg.Logger != nil {
		return cfg.Logger
	}
	return Logger
}
