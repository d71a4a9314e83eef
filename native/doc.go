// Package native is the new core of cqlbridge: a context-first, channel-based Cassandra and
// ScyllaDB client. It imports nothing of gocql; the compatibility layer (compat/gocql) and the
// legacy future model (future, callbacks) are built on top of it.
//
// # Sessions
//
// Connect opens a Session from a Config; the zero value of every Config field selects a
// documented default (LOCAL_QUORUM, 5000 rows per page, a 12 s timeout, two connections per
// node, token-aware routing). A Session is safe for concurrent use; share one per cluster.
//
// The session speaks protocol v4, or v3 with a server that refuses v4. Config.ProtocolVersion
// 5 (Cassandra 4.0 and later) adds checksummed framing, lz4 compression of whole segments,
// per-statement keyspaces (Statement.WithKeyspace) and result metadata ids, with which a
// prepared statement that another client prepared again after its result columns changed
// picks up the new columns without being prepared again (see Config.ProtocolVersion).
// ScyllaDB, which does not speak v5, offers the same result metadata ids at v3 and v4 as an
// extension (SCYLLA_USE_METADATA_ID), which the session's connections opt in to: there a
// statement whose result columns changed gets the new ones from the node, even when the
// column count stayed the same (a column dropped and another added), which plain v4 cannot
// tell. A statement prepared on a connection without the extension has no id; on a
// connection with it, its first execution gets the node's id with the columns.
//
// # Statements
//
// A Statement is a value: Query makes a simple statement, Prepared.Bind a bound prepared one,
// and the With methods (WithConsistency, WithPageSize, WithPagingState, WithTimestamp,
// WithIdempotent, WithTracing, WithCustomPayload, WithHost, ...) return modified copies.
// Values are positional, or named with Named. Batch groups statements in one request.
// Session.Prepare caches prepared statements by keyspace and text, prepares them on every node
// it is connected to (the first answer is waited for, the other nodes are sent the PREPARE in
// the background; see Config.PrepareOnOneNode) and re-prepares them transparently when a node
// answers UNPREPARED; Session.PrepareTraced also traces the PREPARE
// it sends and returns its trace id. A USE statement changes the keyspace of every connection of
// the session; concurrent ones apply one after the other, so when they have returned every
// connection uses the keyspace Session.Keyspace reports. A statement prepared before a USE keeps
// its keyspace: should a node need it re-prepared while the session uses another keyspace, it is
// prepared there again in its own keyspace, on a short-lived connection of its own, and never
// against the other keyspace's tables (ErrPreparedKeyspaceChanged when that fails).
//
// # Results
//
// Session.Execute returns an immutable *Result: a page of rows with their Columns, the paging
// state, warnings, trace id, custom payload, schema change and LWT outcome (Applied).
// Result.NextPage returns the next page as a new Result and leaves the old one unchanged.
// Rows are read with Go iterators: Result.Rows for one page, Result.All and Session.Iter across
// pages. Row.Scan decodes cells into Go values (the mapping is documented in package cqltype);
// Get[T] decodes one column without letting the destination escape (the allocation-free
// path: a prepared single-row read costs 3 allocations with Get, 5 with Scan); Row.Raw gives
// the encoded bytes, Row.Values and Row.Map natural Go values. Collect, CollectOne, RowTo,
// RowToStruct and ScanOne are generic helpers; BindStruct binds a struct's fields to a prepared
// statement's markers by name, as RowToStruct fills them from columns.
//
// # Routing, retries and observation
//
// Requests go to a replica of their partition when the partition key is known (a prepared
// statement with its key bound; Murmur3 tokens as Cassandra computes them), otherwise
// round-robin; Config.LocalDC keeps them in one data center. On ScyllaDB, a node that
// describes its sharding gets one connection per shard (core), opened through its
// shard-aware port when it has one, and a request whose partition is known goes on the
// connection of the shard that owns it (see Config.DisableShardAwareness). A table in a
// keyspace that uses tablets (ScyllaDB 6 and later) has no replicas on the token ring: the
// session opts in to ScyllaDB's tablets routing (at protocol v4), and once a node has
// described a partition's tablet (it does so in its answer to a request that reached a node or
// shard holding no replica), the requests for that tablet's partitions go to its replicas, on
// the shard holding it there; a tablet moved to other nodes is learnt again the same way, and
// the tablets of a dropped table or keyspace are forgotten. With TokenAware
// routing and the partition known, a prepared lightweight transaction that ScyllaDB flags
// (its LWT mark) goes to the partition's primary replica (the first in ring order in
// Config.LocalDC, or for a table using tablets the first of its tablet's replicas in the
// order the node gave), not to a rotating one, so that its Paxos rounds do not contend across
// coordinators; the plan moves on to the next replica only when that node cannot take it.
// Statement.WithHost pins a request to one node; Session.Hosts lists the nodes; Result.Host
// names the coordinator.
// Config.RetryPolicy decides retries (none by default), Config.Observer sees every attempt,
// including transparent re-prepares. Whatever the policy, a request that was not sent (its
// node's connections were down, or the server had closed an idle connection, which a request
// checks before writing to it, on plain TCP connections on Linux; or the connection's write
// failed before reaching the request's frame) goes to the next node of its plan: a node going
// down fails only the requests that were in flight on it, and a node that leaves the topology
// (decommissioned, or rejected by Config.HostFilter) none: it gets no new request, and its
// connections close once the requests in flight on them are answered. A node's pool
// reconnects in the background (100 ms between failed attempts, doubling to 10 s, and at once
// when the control connection sees the node back); a connection that the node closes within a
// second of its opening counts as a failed attempt. A node that the cluster reports DOWN (a
// STATUS_CHANGE event) while its connections are still open, as a paused or partitioned node
// leaves them, must answer an OPTIONS on each within 2 seconds (or Config.ConnectTimeout when
// shorter): a connection that does not is closed, failing the requests in flight on it with
// ErrConnClosed, and the node gets no request until a connection to it opens again; without
// that event, only the heartbeat would find it out (see Config.HeartbeatInterval). The control
// connection itself is retried at least every second, so after a whole cluster was down a
// session serves queries again within about a second of its return.
//
// # Asynchronous requests
//
// Session.ExecuteAsync, Session.ExecuteBatchAsync and Result.NextPageAsync return a *Pending
// at once; its Done channel closes when the request completes, Result returns the outcome,
// and Wait returns it too unless a context of the caller's ends first (ending only the wait).
// One goroutine can keep thousands of requests in flight. With no observer, no speculative
// execution, no timeout under a second, not a USE, and a free stream id on the connection of
// the first node of its plan, a request takes no goroutine while it waits (a context that can
// end is watched with context.AfterFunc, which interrupts the request when it ends; for a
// context type of the application's own, AfterFunc may start a goroutine): the connection's
// reader completes its Pending when the answer is rows or void of at most 64 KiB, and OnDone
// hooks then run on a worker.
// Anything else (a larger page, which the reader would take long to decode, a server error and
// its retries, re-preparing, a timeout, a schema change)
// goes on on one of the session's worker goroutines, from the answer received, along the same
// path as a synchronous request. Other asynchronous requests run wholly on a worker. Workers
// are kept for the next requests (a new goroutine's stack would grow every time) and end after
// about five idle seconds, or at Close.
//
// # Errors
//
// Every server error is a typed error (*UnavailableError, *ReadTimeoutError,
// *WriteTimeoutError, *SyntaxError, ...) carrying all the fields the protocol defines; each
// unwraps to a *RequestError with the code, message and host (and, for a traced request, the
// trace id the server sent with the error: TraceID, Traced). Client errors are
// ErrSessionClosed (ErrNotConnected for a Session that Connect did not make), ErrTimeout,
// *NoHostAvailableError (with each host's cause), *BindError (wrong value count or type,
// detected before anything is sent) and *ScanError. A request whose connection failed
// matches ErrConnClosed; it also matches ErrNotSent when it never left the client (so it did
// not run, and may be sent again even when it is not idempotent), which a
// *NoHostAvailableError does only when no host's attempt was sent. A request whose timeout
// or context ends while it waits for a free stream id (every id of the connection in use, a
// node slow to answer: see Config.Timeout), or before it is sent, fails with an error matching
// ErrNotSent too, besides ErrTimeout (and context.DeadlineExceeded) or the context's error.
// Such a wait is no attempt, as a request not sent on a node never is (Attempt.Number): the
// Observer does not see it and the RetryPolicy is not asked about it. The error of a request
// an earlier attempt of which was sent (it may have run) never matches ErrNotSent, whatever
// happened to the later ones, nor does that of a request a node ran and answered with rows
// that its prepared metadata does not describe (the table changed), whose PREPARE sent again
// or whose request after it was not sent. Each page of a result is a request of its own: an
// error of Result.NextPage (or yielded by Result.All and Session.Iter after rows) that matches
// ErrNotSent says that the request for that page never left the client. The pages before it
// were fetched: calling NextPage again on the Result whose NextPage failed fetches the missing
// page, while running the statement again would start over from its first page. Result.All
// and Session.Iter yield that Result in their error, a *PageError (PageError.Last).
package native
