package native

import (
	"context"
	"time"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// Statement is one CQL statement with its values and options: a simple statement made by
// Query, or a bound prepared statement made by Prepared.Bind. It is a value: every With
// method returns a modified copy and leaves the receiver unchanged, so a Statement can be
// built once and shared between goroutines. Options not set fall back to the session's
// Config.
//
// Values are bound by position, or by name when every value is a NamedValue (see Named). Go
// values map to CQL types as documented in package cqltype; nil is NULL and Unset leaves a
// column unchanged. The slices and maps given to a Statement (values, paging state, custom
// payload) must not be modified while it is in use.
type Statement struct {
	cql      string
	prepared *Prepared
	values   []any
	opts     options
}

// options are the per-request settings shared by Statement and Batch. The settings that are
// small, or that applications (compat's gocql among them) set on every request, are held
// inline; the rarely set, large ones are behind rare, so that a Statement stays small (a
// batch holds a slice of them). A Statement or Batch is a value and its copies share rare:
// it is never modified, every change goes to a copy (see editRare), and nil stands for all
// zero (read it through the accessors below).
type options struct {
	host              string
	timestamp         int64
	timeout           time.Duration
	rare              *rareOptions
	pageSize          int32
	set               optionSet
	consistency       Consistency
	serialConsistency Consistency
	idempotent        bool
	tracing           bool
	skipMetadata      bool
}

// rareOptions are the options behind options.rare: immutable once shared.
type rareOptions struct {
	pagingState     []byte
	keyspace        string
	payload         map[string][]byte
	routingKey      []byte
	routingKeyspace string
	specDelay       time.Duration
	specAttempts    int
	retry           RetryPolicy
	observer        func(context.Context, Attempt)
	encoded         *encodedValues // Statement only: values already encoded (the next page of a Result); overrides values
	prefetch        bool           // Statement only: Result.All requests each next page ahead (WithPrefetch)
}

// editRare gives o a copy of its rare options of its own (all zero when it has none) and
// returns it for modification: the rare options o had may be shared with other copies of
// the Statement or Batch, and are left unchanged.
func (o *options) editRare() *rareOptions {
	r := new(rareOptions)
	if o.rare != nil {
		*r = *o.rare
	}
	o.rare = r
	return r
}

func (o *options) pagingState() []byte {
	if o.rare == nil {
		return nil
	}
	return o.rare.pagingState
}

func (o *options) keyspace() string {
	if o.rare == nil {
		return ""
	}
	return o.rare.keyspace
}

func (o *options) payload() map[string][]byte {
	if o.rare == nil {
		return nil
	}
	return o.rare.payload
}

// routingKey returns the routing key and its keyspace set by WithRoutingKey.
func (o *options) routingKey() (keyspace string, key []byte) {
	if o.rare == nil {
		return "", nil
	}
	return o.rare.routingKeyspace, o.rare.routingKey
}

// speculative returns the settings of WithSpeculativeExecution (meaningful when
// o.set&setSpeculative != 0).
func (o *options) speculative() (delay time.Duration, attempts int) {
	if o.rare == nil {
		return 0, 0
	}
	return o.rare.specDelay, o.rare.specAttempts
}

func (o *options) retry() RetryPolicy {
	if o.rare == nil {
		return nil
	}
	return o.rare.retry
}

func (o *options) observer() func(context.Context, Attempt) {
	if o.rare == nil {
		return nil
	}
	return o.rare.observer
}

// encoded returns the values a Statement carries already encoded, or nil.
func (o *options) encoded() *encodedValues {
	if o.rare == nil {
		return nil
	}
	return o.rare.encoded
}

type optionSet uint16

const (
	setConsistency optionSet = 1 << iota
	setSerialConsistency
	setPageSize
	setTimestamp
	setTimeout
	setSkipMetadata
	setSpeculative
)

// NamedValue is a value bound to a bind marker by name (":name" in the CQL text, or the
// column name for "?" markers of a prepared statement). For a prepared statement, a value
// binds every marker of its name (":x" used twice, or "c > ? AND c < ?", whose markers are
// both named c): markers that share a name take one value, so bind such markers apart with
// positional values. A name matches a marker's exactly, or else in case only when no
// marker has that exact name (with markers a and "A", a value named a binds a alone). Two
// values of one name, and a value no marker takes (its name matches none, or differs in
// case only from one another value matches exactly), are errors (*BindError matching
// ErrArgCount), as is a marker without a value (a *BindError naming it).
type NamedValue struct {
	Name  string
	Value any
}

// Named returns a NamedValue. A statement's values must be either all named or all
// positional.
func Named(name string, value any) NamedValue { return NamedValue{Name: name, Value: value} }

// Unset is a value that leaves its bind marker unset: the column keeps its current value
// (protocol v4's "not set" value), unlike nil, which writes NULL. It is cqltype.Unset.
var Unset = cqltype.Unset

// Query returns a simple (unprepared) statement. The CQL text is sent as is on every
// execution; for a statement run more than once, Session.Prepare it and use Prepared.Bind.
//
// With no metadata from the server, each value is encoded by its Go type: int, int64 and
// uint32 as bigint, int32 as int, int16 as smallint, int8 as tinyint, string as text, []byte
// as blob, bool as boolean, float32 as float, float64 as double, time.Time as timestamp,
// cqltype.UUID as uuid, netip.Addr and net.IP as inet, *big.Int as varint, cqltype.Decimal as
// decimal, cqltype.Date as date, cqltype.Duration as duration; a pointer as what it points to
// (a nil pointer, like nil, is NULL); slices and arrays of those as lists, maps as maps, and
// maps with struct{} values as sets (named slice, map and pointer types too, by what they are
// made of). Any other type (a named scalar type such as type Status int, time.Duration,
// []float32, a struct for a tuple or UDT, a recursive type) fails with a *BindError before
// anything is sent: prepare the statement, whose bind markers the server types.
//
// The server checks a simple statement's values by their size only, not their type: a value
// whose Go type maps to another CQL type of the column's size is stored as its bytes read as
// the column's type, a wrong value without an error (an int bound to a double column is stored
// as 2.5e-323 for 5, a float64 bound to a bigint, timestamp or decimal column as garbage; an
// int bound to an int column fails, 8 bytes for 4). Give each value the Go type of its
// column's CQL type above (int32 for int, float64 for double, cqltype.Decimal for decimal), or
// prepare the statement, whose values are checked against the server's types before they are
// sent.
func Query(cql string, values ...any) Statement {
	return Statement{cql: cql, values: values}
}

// CQL returns the statement's text.
func (s Statement) CQL() string { return s.cql }

// Prepared returns the prepared statement s was bound from, or nil for a simple statement.
func (s Statement) Prepared() *Prepared { return s.prepared }

// Values returns the bound values. The slice is shared; do not modify it.
func (s Statement) Values() []any { return s.values }

// WithValues returns a copy of s bound to values instead of its current ones.
func (s Statement) WithValues(values ...any) Statement {
	s.values = values
	if s.opts.encoded() != nil {
		s.opts.editRare().encoded = nil
	}
	return s
}

// WithConsistency returns a copy of s that runs at consistency c.
func (s Statement) WithConsistency(c Consistency) Statement {
	s.opts.consistency = c
	s.opts.set |= setConsistency
	return s
}

// Consistency returns the statement's consistency and whether it was set (otherwise the
// session's default applies).
func (s Statement) Consistency() (Consistency, bool) {
	return s.opts.consistency, s.opts.set&setConsistency != 0
}

// WithSerialConsistency returns a copy of s whose conditional updates use c (SERIAL or
// LOCAL_SERIAL) for their Paxos phase.
func (s Statement) WithSerialConsistency(c Consistency) Statement {
	s.opts.serialConsistency = c
	s.opts.set |= setSerialConsistency
	return s
}

// WithPageSize returns a copy of s that fetches n rows per page; n <= 0 disables paging.
func (s Statement) WithPageSize(n int) Statement {
	if n <= 0 {
		n = -1
	}
	if n > 1<<31-1 {
		n = 1<<31 - 1
	}
	s.opts.pageSize = int32(n)
	s.opts.set |= setPageSize
	return s
}

// WithPrefetch returns a copy of s whose pages are fetched one ahead by Result.All and
// Session.Iter (on): each next page is requested as soon as the page before it has arrived, so
// that it travels while the rows in hand are read, as gocql's prefetch does. A loop that stops
// early leaves the page requested ahead to complete unread: its request has cost the server
// its work. Result.NextPage and NextPageAsync are unaffected.
func (s Statement) WithPrefetch(on bool) Statement {
	s.opts.editRare().prefetch = on
	return s
}

// PageSize returns the statement's page size and whether it was set.
func (s Statement) PageSize() (int, bool) { return int(s.opts.pageSize), s.opts.set&setPageSize != 0 }

// WithPagingState returns a copy of s that resumes after the page whose Result.PagingState
// returned state. A nil or empty state starts from the first page (as in gocql: an empty state,
// what a stored nil state often reads back as, is not sent, where a server would refuse it).
func (s Statement) WithPagingState(state []byte) Statement {
	if len(state) == 0 {
		state = nil
	}
	s.opts.editRare().pagingState = state
	return s
}

// PagingState returns the paging state set with WithPagingState.
func (s Statement) PagingState() []byte { return s.opts.pagingState() }

// WithTimestamp returns a copy of s whose writes carry this timestamp (microseconds since
// the Unix epoch) instead of one assigned by the coordinator.
func (s Statement) WithTimestamp(micros int64) Statement {
	s.opts.timestamp = micros
	s.opts.set |= setTimestamp
	return s
}

// WithIdempotent returns a copy of s marked idempotent (or not): only idempotent
// statements are retried after a timeout or a connection failure whose outcome is unknown.
func (s Statement) WithIdempotent(idempotent bool) Statement {
	s.opts.idempotent = idempotent
	return s
}

// Idempotent reports whether s is marked idempotent.
func (s Statement) Idempotent() bool { return s.opts.idempotent }

// WithTracing returns a copy of s that asks the server to trace its execution; the trace id
// is in Result.TraceID.
func (s Statement) WithTracing(trace bool) Statement {
	s.opts.tracing = trace
	return s
}

// WithKeyspace returns a copy of s that runs in keyspace ks instead of the session's: its
// unqualified table names are ks's, and with a routing key (WithRoutingKey naming no keyspace)
// its replicas are ks's. The protocol carries a per-statement keyspace from version 5 on
// (Config.ProtocolVersion 5); with an earlier version, executing the statement fails with an
// error wrapping ErrUnsupported (name the keyspace in the CQL text instead). A prepared
// statement runs in the keyspace it was prepared in: executing a bound statement with
// WithKeyspace fails the same way. A batch sends only its own keyspace (Batch.WithKeyspace):
// a statement with one of its own fails the batch.
func (s Statement) WithKeyspace(ks string) Statement {
	s.opts.editRare().keyspace = ks
	return s
}

// WithCustomPayload returns a copy of s that sends this custom payload with the request.
func (s Statement) WithCustomPayload(payload map[string][]byte) Statement {
	s.opts.editRare().payload = payload
	return s
}

// WithHost returns a copy of s that runs on the node with this address (host:port, as in
// Host.Addr) and nowhere else: no routing, no failover to other nodes.
func (s Statement) WithHost(addr string) Statement {
	s.opts.host = addr
	return s
}

// WithTimeout returns a copy of s with its own timeout instead of Config.Timeout; d <= 0
// disables the timeout (the context still applies).
func (s Statement) WithTimeout(d time.Duration) Statement {
	s.opts.timeout = d
	s.opts.set |= setTimeout
	return s
}

// Timeout returns the statement's own timeout (WithTimeout); ok is false when it has none and
// Config.Timeout applies.
func (s Statement) Timeout() (d time.Duration, ok bool) {
	return s.opts.timeout, s.opts.set&setTimeout != 0
}

// WithSkipMetadata returns a copy of s that asks the server to omit (skip true) or send
// (skip false) the result metadata of a prepared statement. By default it is skipped and
// the metadata returned by PREPARE is used, which saves decoding it on every execution.
// Simple statements always receive metadata.
func (s Statement) WithSkipMetadata(skip bool) Statement {
	s.opts.skipMetadata = skip
	s.opts.set |= setSkipMetadata
	return s
}

// WithRoutingKey returns a copy of s routed by this partition key of keyspace (empty: the
// session keyspace, or the prepared statement's) instead of the key computed from a
// prepared statement's bound values. key is the routing key: the encoded value of a
// single-column partition key, or the composite form (for each component a 2-byte length,
// the bytes and a 0 byte). It makes token-aware routing possible for simple statements.
func (s Statement) WithRoutingKey(keyspace string, key []byte) Statement {
	r := s.opts.editRare()
	r.routingKey = key
	r.routingKeyspace = keyspace
	return s
}

// WithRetryPolicy returns a copy of s retried by p instead of Config.RetryPolicy.
func (s Statement) WithRetryPolicy(p RetryPolicy) Statement {
	s.opts.editRare().retry = p
	return s
}

// RetryPolicy returns the policy set by WithRetryPolicy, nil when s uses Config.RetryPolicy.
func (s Statement) RetryPolicy() RetryPolicy { return s.opts.retry() }

// WithObserver returns a copy of s whose attempts are reported to observe instead of
// Config.Observer.
func (s Statement) WithObserver(observe func(context.Context, Attempt)) Statement {
	s.opts.editRare().observer = observe
	return s
}

// WithSpeculativeExecution returns a copy of s that, when marked idempotent, starts another
// attempt on the next node of its plan each time delay passes without an answer, up to
// attempts extra attempts; the first answer wins and the others are abandoned. attempts 0
// turns speculative execution off for s (overriding Config.SpeculativeAttempts).
func (s Statement) WithSpeculativeExecution(delay time.Duration, attempts int) Statement {
	r := s.opts.editRare()
	r.specDelay, r.specAttempts = delay, max(attempts, 0)
	s.opts.set |= setSpeculative
	return s
}
