package native

import (
	"context"
	"crypto/tls"
	"time"
)

// Config configures a Session. The zero value of every field selects the documented default,
// so Config{Hosts: []string{"127.0.0.1"}} is a complete configuration.
//
// The functions a Config holds (Observer, RetryPolicy, OnSchemaChange, OnConnect,
// ResolveHosts, HostFilter, AddressTranslator) run in the caller's goroutine or in one of the
// session's own, as each field says. A panic in one reaches the caller when it runs in the
// caller's goroutine; in one of the session's own (an asynchronous request's worker, the
// control connection's, a pool's refill), it ends the program, as a panic in a function given
// to time.AfterFunc does. Only a Dialer's and an Authenticator's panic are recovered: they
// fail the connection being opened.
type Config struct {
	// Hosts are the contact points, as "host" or "host:port" (port 9042 when omitted). The
	// session connects to the first that answers, reads the cluster's topology from it and
	// then connects to every node it finds (unless DisablePeerDiscovery is set).
	Hosts []string

	// Keyspace is the keyspace statements run in when they name no keyspace; every
	// connection sends USE for it after its handshake. Empty means none.
	Keyspace string

	// Consistency is the default consistency level of statements and batches. Zero selects
	// DefaultConsistency (LOCAL_QUORUM); ANY, which is only valid for writes, can be asked for
	// per statement with WithConsistency.
	Consistency Consistency

	// SerialConsistency is the default serial consistency of conditional (LWT) statements.
	// Zero leaves it to the server (SERIAL).
	SerialConsistency Consistency

	// PageSize is the default number of rows per page. Zero selects 5000; a negative value
	// disables paging (the server returns every row in one page); values above the protocol's
	// limit (math.MaxInt32) mean that limit.
	PageSize int

	// Timeout bounds each request, retries and re-prepares included, in addition to the
	// caller's context (no retry is sent once it has passed), and so the wait for a free
	// stream id on a connection whose 32768 are all in use (a request not fixed to a node
	// tries the plan's other nodes of the data center first; a request whose timeout passes
	// while it waits was not sent, and its error matches ErrNotSent unless an attempt of it
	// was sent before). Zero selects 12s; a negative value disables it. Timeouts under a
	// second are exact; longer ones share one clock per session and fire up to 10 ms late (a
	// timer per request costs measurable CPU at high concurrency).
	Timeout time.Duration

	// ConnectTimeout bounds opening each connection's network connection, and then its TLS
	// and CQL handshake (each step gets the whole timeout). Zero selects 10s.
	ConnectTimeout time.Duration

	// ConnsPerHost is the number of connections kept to each node. Zero selects 2. Each
	// connection multiplexes up to 32768 concurrent requests. A ScyllaDB node that says it
	// is sharded gets one connection per shard instead (see DisableShardAwareness).
	ConnsPerHost int

	// DisableShardAwareness treats ScyllaDB nodes like any other node: ConnsPerHost
	// connections, each served by whichever shard (core) the node gives it. By default, a
	// node whose SUPPORTED options describe its sharding (SCYLLA_NR_SHARDS above 1, the
	// biased-token-round-robin algorithm, the Murmur3 partitioner) gets one connection per
	// shard, and a request whose partition token is known (Routing TokenAware, see there)
	// goes on the connection of the shard that owns it, which spares the node a hop between
	// its cores; the others go on the least busy connection. Connections to a
	// shard are opened through the node's shard-aware port (SCYLLA_SHARD_AWARE_PORT, or
	// SCYLLA_SHARD_AWARE_PORT_SSL with TLS) from a local port that selects the shard;
	// without one, or with a custom Dialer, or when that port does not answer or does not
	// give the shard asked for (a NAT rewriting source ports), through the node's own port
	// (the shard-aware port is tried again a minute later), which hands out shards itself:
	// connections to shards already covered are closed, and the missing ones are tried again
	// after a backoff. A node reporting more than 1024
	// shards is treated as not sharded.
	DisableShardAwareness bool
	// DisableShardAwarePort opens every connection to a sharded ScyllaDB node through its
	// ordinary port (for networks that rewrite source ports or block the shard-aware port).
	DisableShardAwarePort bool

	// Compression is the frame compression: "" (none), "lz4" or "snappy".
	Compression string
	// CompressionFallback connects uncompressed to a node whose SUPPORTED options do not
	// list Compression (or list none), instead of failing to connect to it.
	CompressionFallback bool

	// Authenticator answers the server's authentication challenges; nil sends no
	// credentials. PasswordAuthenticator covers Cassandra's PasswordAuthenticator. A panic in
	// the Authenticator or its exchange fails the connection with an error, as a Dialer's
	// does.
	Authenticator Authenticator

	// TLS enables TLS with this configuration when non-nil, over the connection Dialer
	// opens. A Dialer that sets up TLS itself goes with a nil TLS.
	TLS *tls.Config

	// TLSServerName, when set, names the server a TLS connection to host verifies, and sends
	// it as SNI, when TLS.ServerName is empty and TLS.InsecureSkipVerify is false; host is what
	// a HostDialer would be given (only Addr for a contact point dialled before discovery). An
	// empty name, like a nil TLSServerName, leaves it to the host part of host.Addr. A client
	// that resolves a contact point's name itself, and lists its addresses in Hosts, uses it
	// to verify the name.
	TLSServerName func(host Host) string

	// Dialer opens each connection's network connection (the control connection's and the
	// pools'), for a proxy, a tunnel or a custom socket setup; nil dials TCP with a
	// net.Dialer. It gets network "tcp" and the node's host:port, and a context without
	// deadline that ends when the connection closes (so a dialer may tie what it sets up to
	// it). A dial that has not returned after ConnectTimeout is abandoned, whether or not
	// the dialer heeds its context: the context ends, and a connection returned later is
	// closed. A dialer's panic fails the dial with an error. When it implements HostDialer,
	// DialHost is called instead, with the node. A *net.Dialer fits.
	Dialer Dialer

	// HeartbeatInterval is how often an idle connection sends OPTIONS to detect a dead peer.
	// Zero selects 30s; a negative value disables heartbeats. A connection whose OPTIONS
	// gets no answer within HeartbeatInterval, or ConnectTimeout when that is longer, is
	// closed as dead, failing the requests in flight on it: a short interval makes idle
	// connections checked often, not healthy ones that answer slowly closed.
	HeartbeatInterval time.Duration

	// ProtocolVersion is the native protocol version to speak: 3, 4 or 5. Every connection
	// speaks it, with no negotiation: a node that does not speak it fails the dial. Zero
	// discovers the version, as gocql does: the control connection's first dial speaks v4,
	// and when the server refuses v4 as a version it does not speak (a protocol error saying
	// so, or an answer in v3), that contact point is dialled again at v3 and the session
	// speaks v3 from then on (Session.ProtocolVersion reports it). Any other failure (a
	// connection refused, bad credentials) changes nothing; a server answering in v1 or v2
	// fails the dial with an error saying that it speaks no version the driver does; a server
	// that speaks v4 costs no extra round trip or connection.
	//
	// Protocol v3 (for servers or tools that require it) lacks what v4 added: prepared
	// statements carry no partition key indexes, so with TokenAware routing Prepare reads the
	// key's columns from system_schema.columns (one more query per statement prepared) and
	// matches them to the bind markers by name, as gocql does; where that table does not
	// exist (Cassandra 2.x), prepared statements are routed without a token, as statements
	// whose key is unknown (unless a routing key is set on the statement); a statement
	// binding Unset fails before it is sent (a v3 server would
	// read the value as NULL), with an error wrapping ErrUnsupported; and a custom payload
	// fails the request. Warnings are never received.
	//
	// Protocol v5 (Cassandra 4.0 and later; not ScyllaDB) is used only when asked for: after
	// the handshake every frame travels in segments checksummed with CRC24 and CRC32, so a
	// corrupted byte fails the connection instead of reaching a result; Compression "lz4"
	// compresses whole segments ("snappy" is refused, v5 has no snappy); statements and
	// batches can name their keyspace (Statement.WithKeyspace); and a prepared statement
	// carries its result metadata id. When its result columns change (a column added to the
	// table of a SELECT *), Cassandra forgets the statement and the session prepares it again
	// on its next execution, as at v4; but when another client has already prepared it
	// again, the node knows the id and sends the new columns once, with a new result metadata
	// id that the session keeps (Prepared.Columns then reports them), where at v4 the rows
	// would come without metadata and the session would have to prepare the statement again.
	// (A ScyllaDB node offers result metadata ids at v3 and v4 through its
	// SCYLLA_USE_METADATA_ID extension, which connections opt in to: see the package
	// documentation.)
	ProtocolVersion int

	// Routing chooses the coordinator of each request. The zero value is TokenAware.
	Routing Routing

	// LocalDC, when set, makes routing prefer nodes of this data center; nodes of other data
	// centers are only used when no local node is available. Connect fails (ErrUnknownLocalDC)
	// when no node of the cluster is in it.
	LocalDC string

	// RetryPolicy decides whether a failed attempt is retried. Nil retries nothing (the
	// transparent re-prepare after an UNPREPARED error is not a retry and always happens).
	RetryPolicy RetryPolicy

	// Observer, when set, is called after every attempt of every request (including
	// re-prepares and retries), in the goroutine that ran the attempt. It must not block, and
	// must not Prepare a statement or Close the session when it observes a USE statement
	// (which holds the session's keyspace lock until it has reached every connection). It may
	// Close the session otherwise, asynchronous requests (ExecuteAsync, ExecuteBatchAsync,
	// NextPageAsync) included: Close does not wait for an asynchronous request while its
	// Observer runs (see Session.Close).
	Observer func(ctx context.Context, a Attempt)

	// OnSchemaChange, when set, is called for each schema change event the control
	// connection receives (the DDL of every client, this one's included), one at a time, in
	// the order received, in the goroutine that reads events: it must not block for long.
	// It may Close the session (Close does not wait for that goroutine, which ends once the
	// callback returns). Events received while the control connection is being reopened are
	// missed.
	OnSchemaChange func(SchemaChange)

	// OnConnect, when set, is called after each attempt to open a connection (the control
	// connection's and the pools'), successful or not, from the goroutine that made it: it
	// must not block for long. It may Close the session: Close does not wait for the
	// goroutine while OnConnect runs (see Session.Close). For connection metrics. The
	// short-lived connection that prepares a statement again in the keyspace it was prepared
	// in, after a USE (see ErrPreparedKeyspaceChanged), is not reported.
	OnConnect func(ConnectEvent)

	// SpeculativeAttempts, when positive, lets idempotent requests start up to this many
	// extra attempts on the next nodes of their plan, one each time SpeculativeDelay passes
	// without an answer; the first answer wins. An attempt not sent (an error matching
	// ErrNotSent) does not count: the next node takes the request at once. Zero disables
	// speculative execution.
	SpeculativeAttempts int
	// SpeculativeDelay is the wait before each speculative attempt (see SpeculativeAttempts).
	SpeculativeDelay time.Duration

	// DisablePeerDiscovery makes the session use only the contact points, never the nodes
	// listed in system.peers.
	DisablePeerDiscovery bool

	// ShuffleContactPoints makes the control connection (see Session) try the contact points,
	// and when it reconnects the known nodes, in a random order instead of the order given, so
	// that many clients configured with the same list spread their control connections over
	// the cluster instead of all opening them to its first node, as gocql and the Python
	// driver do.
	ShuffleContactPoints bool

	// ResolveHosts, when set, gives the contact points each time the control connection
	// falls back to them (when every node it knew failed), in place of Hosts: a client that
	// resolves its contact points' names itself and lists their addresses in Hosts resolves
	// them again there, as gocql does, for nodes that changed addresses under the same names.
	// With DisablePeerDiscovery the addresses it last gave are the cluster's nodes from then
	// on. It is not called for the first connection. Its context ends when the session is
	// closed (Close waits for it). When it gives none (a name service down), the contact
	// points it last gave (Hosts before any) are tried again.
	ResolveHosts func(ctx context.Context) []string

	// HostFilter, when set, excludes every node for which it returns false, the control
	// connection's included: as in gocql, a contact point it excludes is not used, and Connect
	// fails (ErrHostFiltered) when it excludes every contact point that answers.
	HostFilter func(Host) bool

	// AddressTranslator, when set, maps the address a node advertises (host:port) to the
	// address to dial, for clusters behind NAT. Contact points are not translated (see
	// TranslateContactPoints).
	AddressTranslator func(addr string) string

	// TranslateContactPoints makes the session dial the node its control connection reached
	// through a contact point at AddressTranslator(contact point) rather than at the contact
	// point itself, as gocql does: the control connection stays on the contact point, the
	// node's pool, Host.Addr and HostFilter take the translated address. A control connection
	// reopened to a node already known keeps that node's address (translated once). It has no
	// effect without AddressTranslator or with DisablePeerDiscovery.
	TranslateContactPoints bool

	// SchemaAgreementTimeout bounds how long Execute waits, after a statement that changed the
	// schema (DDL), until the node that ran it and every peer it lists report the same schema
	// version, as gocql and the Python driver do: the change is then visible from every
	// coordinator and replica. Nodes the session knows to be down are not waited for (see
	// Session.AwaitSchemaAgreement). The wait also ends with the statement's context. Zero
	// selects 60s; a negative value disables it. Result.SchemaAgreed tells whether agreement
	// was reached; not reaching it is not an error, since the DDL itself succeeded.
	SchemaAgreementTimeout time.Duration

	// PrepareOnOneNode makes Prepare prepare a statement only on the first node that answers.
	// By default, once that node has prepared it, the session also sends the PREPARE, in the
	// background, to every other node it has an open connection to, as the Java driver does
	// (prepare-on-all-nodes): each node keeps its own prepared statement cache, and a node
	// that does not know a statement answers its first EXECUTE with UNPREPARED, which costs a
	// re-prepare and a second EXECUTE. Prepare does not wait for the other nodes, and their
	// failures are ignored: a node that missed the statement still gets it on demand.
	PrepareOnOneNode bool

	// MaxPreparedStatements bounds the session's cache of prepared statements (see
	// Session.Prepare). Zero selects DefaultMaxPreparedStatements; a negative value keeps
	// every statement for the life of the session. Past the bound, adding a statement drops
	// one neither prepared nor bound since the cache last looked at it (the CLOCK algorithm,
	// close to least recently used), so that texts with literal values built per request
	// cannot grow the cache without end. A dropped statement stays valid for whoever holds
	// its *Prepared; preparing its text again sends a new PREPARE.
	MaxPreparedStatements int

	// ClientTimestamps makes the session give every statement and batch without an explicit
	// timestamp the current time as its default timestamp (the protocol's
	// default-timestamp flag). By default the coordinator assigns timestamps.
	ClientTimestamps bool

	// maxStreams, for the tests, limits the stream ids of every connection (0: the protocol's
	// 32768), so that a test saturates a connection with a few requests.
	maxStreams int

	// beforeTryStart, for the tests, is called with the connection's address before a request
	// that must not wait for a stream id takes one (sendAndWait): a test takes the last free
	// ids there, as concurrent requests may between nextConn's look and the start.
	beforeTryStart func(addr string)

	// afterStart, for the tests, is called with the request's context and the connection's
	// address once a request started on its connection (its frame written or queued for the
	// writer), before a speculative attempt takes its number (sendAndWait).
	afterStart func(ctx context.Context, addr string)
}

// Routing selects how a session picks the coordinator of a request.
type Routing int

const (
	// TokenAware sends a request to a replica of its partition when the partition key is
	// known (a prepared statement whose key columns are all bound), and otherwise round-robin.
	TokenAware Routing = iota
	// RoundRobin spreads requests over all nodes in turn.
	RoundRobin
)

// String returns "token-aware" or "round-robin".
func (r Routing) String() string {
	switch r {
	case TokenAware:
		return "token-aware"
	case RoundRobin:
		return "round-robin"
	}
	return "routing(?)"
}

// Defaults applied to zero Config fields.
const (
	DefaultPageSize          = 5000
	DefaultTimeout           = 12 * time.Second
	DefaultConnectTimeout    = 10 * time.Second
	DefaultConnsPerHost      = 2
	DefaultHeartbeatInterval = 30 * time.Second
	// DefaultSchemaAgreementTimeout is gocql's MaxWaitSchemaAgreement default.
	DefaultSchemaAgreementTimeout = 60 * time.Second
	DefaultPort                   = "9042"

	// DefaultMaxPreparedStatements is gocql's MaxPreparedStmts default.
	DefaultMaxPreparedStatements = 1000
)
