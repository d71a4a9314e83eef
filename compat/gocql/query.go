package gocql

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// QueryInfo describes a prepared statement to the binding function of Session.Bind.
type QueryInfo struct {
	Id          []byte
	Args        []ColumnInfo
	Rval        []ColumnInfo
	PKeyColumns []int
}

// ExecutableQuery is implemented by *Query and *Batch; host selection policies receive it.
type ExecutableQuery interface {
	GetRoutingKey() ([]byte, error)
	Keyspace() string
	Table() string
	IsIdempotent() bool
	RetryableQuery

	// execute runs one attempt on host and reports it to the observers.
	execute(ctx context.Context, s *Session, host *HostInfo) *Iter
	retryPolicy() RetryPolicy
	speculativeExecutionPolicy() SpeculativeExecutionPolicy
}

// queryRoutingInfo holds what the routing key lookup learnt about the statement; a pointer so
// that copies of a Query share it (and no mutex is copied).
type queryRoutingInfo struct {
	mu       sync.Mutex
	keyspace string
	table    string
}

// Query is a statement with its values and execution options. The builder methods change the
// Query they are called on and return it (except WithContext, which returns a shallow copy).
// A Query is not safe for concurrent modification.
type Query struct {
	// The fields are ordered by size so that the struct has no padding: Session.Query
	// allocates two of them (see queryBlock) per query.
	stmt                  string
	values                []interface{}
	routingKey            []byte
	pageState             []byte
	trace                 Tracer
	observer              QueryObserver
	rt                    RetryPolicy
	spec                  SpeculativeExecutionPolicy
	context               context.Context
	pageSize              int
	prefetch              float64
	session               *Session
	binding               func(q *QueryInfo) ([]interface{}, error)
	defaultTimestampValue int64
	customPayload         map[string][]byte
	metrics               *queryMetrics
	routingInfo           *queryRoutingInfo
	block                 *queryBlock // the allocation Session.Query made for this Query; nil for copies
	refCount              uint32      // accessed atomically
	cons                  Consistency
	serialCons            SerialConsistency
	defaultTimestamp      bool
	disableSkipMetadata   bool
	idempotent            bool
	disableAutoPage       bool
	released              bool
	internal              bool // the driver's own query (see Session.internalQuery)
}

// defaultsFromSession sets q's options from its session's defaults and gives it metrics, zero
// metrics it takes ownership of.
func (q *Query) defaultsFromSession(metrics *queryMetrics) {
	s := q.session
	d := s.queryDefaults()
	q.cons = d.cons
	q.pageSize = d.pageSize
	q.trace = d.trace
	q.observer = d.observer
	q.prefetch = d.prefetch
	q.rt = s.cfg.RetryPolicy
	q.serialCons = s.cfg.SerialConsistency
	q.defaultTimestamp = s.cfg.DefaultTimestamp
	q.idempotent = s.cfg.DefaultIdempotence
	q.metrics = metrics.init()
	q.spec = &NonSpeculativeExecution{}
}

// Statement returns the CQL text.
func (q Query) Statement() string { return q.stmt }

// Values returns the bound values.
func (q Query) Values() []interface{} { return q.values }

// String describes the query for logs.
func (q Query) String() string {
	return fmt.Sprintf("[query statement=%q values=%+v consistency=%s]", q.stmt, q.values, q.cons)
}

// Attempts returns how many attempts all executions of this Query made so far.
func (q *Query) Attempts() int { return q.metrics.attempts() }

// AddAttempts adds i attempts on host to the query's metrics.
func (q *Query) AddAttempts(i int, host *HostInfo) { q.metrics.addAttempts(i, host) }

// Latency returns the mean latency of the query's attempts, in nanoseconds.
func (q *Query) Latency() int64 { return q.metrics.latency() }

// AddLatency adds l nanoseconds of latency on host to the query's metrics.
func (q *Query) AddLatency(l int64, host *HostInfo) { q.metrics.addLatency(l, host) }

// Consistency sets the consistency level and returns q.
func (q *Query) Consistency(c Consistency) *Query {
	q.cons = c
	return q
}

// GetConsistency returns the consistency level.
func (q *Query) GetConsistency() Consistency { return q.cons }

// SetConsistency sets the consistency level (used by retry policies).
func (q *Query) SetConsistency(c Consistency) { q.cons = c }

// CustomPayload sets the custom payload sent with the request and returns q.
func (q *Query) CustomPayload(customPayload map[string][]byte) *Query {
	q.customPayload = customPayload
	return q
}

// Context returns the query's context (context.Background when none was set).
func (q *Query) Context() context.Context {
	if q.context == nil {
		return context.Background()
	}
	return q.context
}

// Trace enables tracing with tracer and returns q.
func (q *Query) Trace(trace Tracer) *Query {
	q.trace = trace
	return q
}

// Observer sets the query observer and returns q.
func (q *Query) Observer(observer QueryObserver) *Query {
	q.observer = observer
	return q
}

// PageSize sets the page size (<= 0 disables paging) and returns q.
func (q *Query) PageSize(n int) *Query {
	q.pageSize = n
	return q
}

// DefaultTimestamp enables or disables the client-side timestamp and returns q.
func (q *Query) DefaultTimestamp(enable bool) *Query {
	q.defaultTimestamp = enable
	return q
}

// WithTimestamp sends timestamp (microseconds) as the client-side timestamp and returns q.
func (q *Query) WithTimestamp(timestamp int64) *Query {
	q.DefaultTimestamp(true)
	q.defaultTimestampValue = timestamp
	return q
}

// RoutingKey sets the routing key used by token-aware routing and returns q.
func (q *Query) RoutingKey(routingKey []byte) *Query {
	q.routingKey = routingKey
	return q
}

// WithContext returns a shallow copy of q using ctx. The copy shares the metrics, routing
// information and values of q; later changes to either do not affect the other's fields.
func (q *Query) WithContext(ctx context.Context) *Query {
	var c *Query
	if b := q.block; b != nil && atomic.CompareAndSwapUint32(&b.spareTaken, 0, 1) {
		c = &b.spare // allocated with q, never handed out before
	} else {
		c = new(Query)
	}
	q.copyTo(c)
	c.context = ctx
	return c
}

// Cancel does nothing; cancel the query's context instead.
//
// Deprecated: use WithContext.
func (q *Query) Cancel() {}

// shallowCopy copies every field but the reference count.
func (q *Query) shallowCopy() *Query {
	c := new(Query)
	q.copyTo(c)
	return c
}

// copyTo makes c a shallow copy of q with a reference count of 1. c's block stays nil: only
// the Query that Session.Query allocated hands out its spare.
func (q *Query) copyTo(c *Query) {
	*c = Query{
		stmt: q.stmt, values: q.values, cons: q.cons, pageSize: q.pageSize, routingKey: q.routingKey,
		pageState: q.pageState, prefetch: q.prefetch, trace: q.trace, observer: q.observer,
		session: q.session, rt: q.rt, spec: q.spec, binding: q.binding, serialCons: q.serialCons,
		defaultTimestamp: q.defaultTimestamp, defaultTimestampValue: q.defaultTimestampValue,
		disableSkipMetadata: q.disableSkipMetadata, context: q.context, idempotent: q.idempotent,
		customPayload: q.customPayload, metrics: q.metrics, disableAutoPage: q.disableAutoPage,
		routingInfo: q.routingInfo, released: q.released, internal: q.internal,
	}
	c.refCount = 1
}

// Keyspace returns the keyspace the query's table belongs to when the routing lookup found it,
// else the session's keyspace.
func (q *Query) Keyspace() string {
	if q.routingInfo != nil {
		q.routingInfo.mu.Lock()
		ks := q.routingInfo.keyspace
		q.routingInfo.mu.Unlock()
		if ks != "" {
			return ks
		}
	}
	if q.session == nil {
		return ""
	}
	return q.session.cfg.Keyspace
}

// Table returns the query's table when the routing lookup found it.
func (q *Query) Table() string {
	if q.routingInfo == nil {
		return ""
	}
	q.routingInfo.mu.Lock()
	defer q.routingInfo.mu.Unlock()
	return q.routingInfo.table
}

// GetRoutingKey returns the routing key: the one set with RoutingKey, else the partition key
// values encoded from the prepared statement's metadata (composite keys joined as Cassandra's
// CompositeType). It returns nil when the statement has no partition key information. As in
// gocql v1.7.0, it prepares any statement to find out, so a statement the node refuses to
// prepare gives the node's error.
func (q *Query) GetRoutingKey() ([]byte, error) { return q.routingKeyFor(false) }

// routingKeyFor is GetRoutingKey; forPlan, set by the token-aware plan, skips a statement that
// can have no partition key (one shouldPrepare does not name, after leading comments), which
// gocql's plan prepares only to find no key (or an error) and fall back on: the shim spares
// that PREPARE before every DDL statement and reaches the same plan.
func (q *Query) routingKeyFor(forPlan bool) ([]byte, error) {
	if q.routingKey != nil {
		return q.routingKey, nil
	}
	if q.session == nil || (q.binding != nil && len(q.values) == 0) || forPlan && !hasRoutingKeyInfo(q.stmt) {
		return nil, nil
	}
	info, err := q.session.routingKeyInfo(q.Context(), q.stmt)
	if err != nil || info == nil {
		return nil, err
	}
	q.routingInfo.mu.Lock()
	q.routingInfo.keyspace, q.routingInfo.table = info.keyspace, info.table
	q.routingInfo.mu.Unlock()
	return createRoutingKey(info, q.values)
}

// routingKeyInfo is the partition key part of a prepared statement's metadata.
type routingKeyInfo struct {
	indexes  []int
	types    []TypeInfo
	keyspace string
	table    string
}

func createRoutingKey(info *routingKeyInfo, values []interface{}) ([]byte, error) {
	if info == nil || len(info.indexes) == 0 {
		return nil, nil
	}
	for _, i := range info.indexes {
		if i >= len(values) {
			return nil, nil
		}
	}
	if len(info.indexes) == 1 {
		return Marshal(info.types[0], values[info.indexes[0]])
	}
	var buf []byte
	for i, idx := range info.indexes {
		enc, err := Marshal(info.types[i], values[idx])
		if err != nil {
			return nil, err
		}
		buf = binary.BigEndian.AppendUint16(buf, uint16(len(enc)))
		buf = append(buf, enc...)
		buf = append(buf, 0)
	}
	return buf, nil
}

// Prefetch sets the fraction of a page left unread when the next page is fetched in the
// background (default 0.25) and returns q.
func (q *Query) Prefetch(p float64) *Query {
	q.prefetch = p
	return q
}

// RetryPolicy sets the retry policy and returns q.
func (q *Query) RetryPolicy(r RetryPolicy) *Query {
	q.rt = r
	return q
}

// SetSpeculativeExecutionPolicy sets the speculative execution policy (used only when the
// query is idempotent) and returns q.
func (q *Query) SetSpeculativeExecutionPolicy(sp SpeculativeExecutionPolicy) *Query {
	q.spec = sp
	return q
}

// IsIdempotent reports whether the query was marked idempotent.
func (q *Query) IsIdempotent() bool { return q.idempotent }

// Idempotent marks the query idempotent (allowing speculative execution) and returns q.
func (q *Query) Idempotent(value bool) *Query {
	q.idempotent = value
	return q
}

// Bind replaces the values, clears the page state (auto-paging stays as it was) and returns q.
func (q *Query) Bind(v ...interface{}) *Query {
	q.values = v
	q.pageState = nil
	return q
}

// SerialConsistency sets the serial consistency of a conditional update and returns q. As in
// gocql, a value that is not SERIAL or LOCAL_SERIAL is accepted here and treated as the server
// treats it: ignored without an IF clause, refused on a conditional update, a protocol error
// when it is no consistency level (docs/deviations.md G29).
func (q *Query) SerialConsistency(cons SerialConsistency) *Query {
	q.serialCons = cons
	return q
}

// PageState sets the paging state to resume from and disables automatic paging (even for a
// nil state); it returns q.
func (q *Query) PageState(state []byte) *Query {
	q.pageState = state
	q.disableAutoPage = true
	return q
}

// NoSkipMetadata asks the server for result metadata with every execution and returns q.
func (q *Query) NoSkipMetadata() *Query {
	q.disableSkipMetadata = true
	return q
}

// Exec executes the query and returns its error, discarding rows.
func (q *Query) Exec() error {
	iter := q.Iter()
	err := iter.Close()
	releaseIter(iter)
	return err
}

// isUseStatement reports whether stmt is a USE statement: it starts with "use" in any case,
// gocql v1.7.0's test, or its first word after leading spaces and comments is USE. gocql sends
// the latter to one connection of its pool, whose keyspace then changes unknown to the driver;
// the native core would switch the whole session to that keyspace (docs/deviations.md G69).
func isUseStatement(stmt string) bool {
	if len(stmt) >= 3 && strings.EqualFold(stmt[:3], "use") {
		return true
	}
	if stmt == "" || !isASCIISpace(stmt[0]) && stmt[0] != '/' && stmt[0] != '-' && stmt[0] < utf8.RuneSelf {
		return false // the usual statement: no leading space or comment
	}
	s := strings.TrimLeftFunc(trimLeadingComments(stmt), unicode.IsSpace)
	if len(s) < 3 || !strings.EqualFold(s[:3], "use") {
		return false
	}
	if len(s) == 3 {
		return true
	}
	c := s[3]
	return !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}

// hasRoutingKeyInfo reports whether the token-aware plan prepares stmt to find its partition
// key: the statements shouldPrepare names, also after leading comments (so a commented DML
// statement, which runs unprepared, is still routed by its key, as in gocql). GetRoutingKey
// itself prepares any statement, as gocql does; the plan does not prepare other kinds (DDL)
// only to find no key.
func hasRoutingKeyInfo(stmt string) bool {
	return shouldPrepare(trimLeadingComments(stmt))
}

// trimLeadingComments returns stmt without the CQL comments (/* */, -- and //) and spaces
// before its first word; an unterminated block comment is left in place.
func trimLeadingComments(stmt string) string {
	for {
		s := strings.TrimLeftFunc(stmt, unicode.IsSpace)
		switch {
		case strings.HasPrefix(s, "/*"):
			end := strings.Index(s[2:], "*/")
			if end < 0 {
				return stmt
			}
			stmt = s[2+end+2:]
		case strings.HasPrefix(s, "--"), strings.HasPrefix(s, "//"):
			end := strings.IndexByte(s, '\n')
			if end < 0 {
				return ""
			}
			stmt = s[end+1:]
		default:
			return stmt
		}
	}
}

// shouldPrepare reports whether the statement is prepared before execution: SELECT, INSERT,
// UPDATE, DELETE and BATCH (BEGIN ... APPLY BATCH) statements are, as in gocql.
func shouldPrepare(stmt string) bool {
	if prepare, ok := shouldPrepareASCII(stmt); ok {
		return prepare
	}
	return shouldPrepareUnicode(stmt)
}

// shouldPrepareASCII decides shouldPrepare without Unicode tables for the usual statement,
// whose first word and the separators around it are ASCII and which is no BEGIN BATCH; ok is
// false when shouldPrepareUnicode must decide.
func shouldPrepareASCII(stmt string) (prepare, ok bool) {
	i := 0
	for i < len(stmt) && isASCIISpace(stmt[i]) {
		i++
	}
	start := i
	for i < len(stmt) && !isASCIISpace(stmt[i]) {
		if stmt[i] >= utf8.RuneSelf {
			return false, false
		}
		i++
	}
	kind := stmt[start:i]
	if i == len(stmt) || lowerIs(kind, "begin") {
		return false, false
	}
	// The first word is the statement kind only when something other than spaces and
	// semicolons follows it (shouldPrepareUnicode trims those from the end first).
	for j := i; j < len(stmt); j++ {
		c := stmt[j]
		if c >= utf8.RuneSelf {
			return false, false
		}
		if !isASCIISpace(c) && c != ';' {
			for _, k := range [...]string{"select", "insert", "update", "delete", "batch"} {
				if lowerIs(kind, k) {
					return true, true
				}
			}
			return false, true
		}
	}
	return false, true
}

// isASCIISpace reports whether c is one of the ASCII characters unicode.IsSpace accepts.
func isASCIISpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// shouldPrepareUnicode is shouldPrepare for any statement text.
func shouldPrepareUnicode(stmt string) bool {
	stmt = strings.TrimLeftFunc(strings.TrimRightFunc(stmt, func(r rune) bool {
		return unicode.IsSpace(r) || r == ';'
	}), unicode.IsSpace)
	var kind string
	if n := strings.IndexFunc(stmt, unicode.IsSpace); n >= 0 {
		kind = stmt[:n]
	}
	if lowerIs(kind, "begin") {
		if n := strings.LastIndexFunc(stmt, unicode.IsSpace); n >= 0 {
			kind = stmt[n+1:]
		}
	}
	for _, k := range [...]string{"select", "insert", "update", "delete", "batch"} {
		if lowerIs(kind, k) {
			return true
		}
	}
	return false
}

// lowerIs reports whether strings.ToLower(s) == lower, without allocating when s is ASCII.
func lowerIs(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToLower(s) == lower
		}
	}
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// Iter executes the query and returns an iterator over its rows. Each call executes the query
// again. A USE statement is not executed: the iterator carries ErrUseStmt.
func (q *Query) Iter() *Iter {
	if err := q.refused(); err != nil {
		return &Iter{err: err}
	}
	if q.session == nil {
		return &Iter{err: errors.New("gocql: query was not created by a session")}
	}
	return q.session.executeQuery(q)
}

// MapScan executes the query and reads the first row into m; ErrNotFound when there is none.
func (q *Query) MapScan(m map[string]interface{}) error {
	iter := q.Iter()
	defer releaseIter(iter)
	if err := iter.checkErrAndNotFound(); err != nil {
		return err
	}
	iter.MapScan(m)
	return iter.Close()
}

// Scan executes the query and scans the first row into dest; ErrNotFound when there is none.
func (q *Query) Scan(dest ...interface{}) error {
	iter := q.Iter()
	if err := iter.checkErrAndNotFound(); err != nil {
		releaseIter(iter)
		return err
	}
	iter.Scan(dest...)
	err := iter.Close()
	releaseIter(iter)
	return err
}

// ScanCAS executes a conditional update (asking for result metadata) and reports whether it
// was applied; when it was not, the current values are scanned into dest.
func (q *Query) ScanCAS(dest ...interface{}) (applied bool, err error) {
	q.disableSkipMetadata = true
	iter := q.Iter()
	defer releaseIter(iter)
	if err := iter.checkErrAndNotFound(); err != nil {
		return false, err
	}
	if len(iter.Columns()) > 1 {
		iter.Scan(append([]interface{}{&applied}, dest...)...)
	} else {
		iter.Scan(&applied)
	}
	return applied, iter.Close()
}

// MapScanCAS is ScanCAS reading the row into dest (without the "[applied]" key). Unlike
// gocql, a result without a boolean "[applied]" column is an error, not a panic.
func (q *Query) MapScanCAS(dest map[string]interface{}) (applied bool, err error) {
	q.disableSkipMetadata = true
	iter := q.Iter()
	defer releaseIter(iter)
	if err := iter.checkErrAndNotFound(); err != nil {
		return false, err
	}
	iter.MapScan(dest)
	applied, err = takeApplied(dest)
	if cerr := iter.Close(); cerr != nil {
		return applied, cerr
	}
	return applied, err
}

// takeApplied removes "[applied]" from m and returns it.
func takeApplied(m map[string]interface{}) (bool, error) {
	v, ok := m["[applied]"]
	if !ok {
		return false, errors.New("gocql: result has no [applied] column: not a conditional statement")
	}
	delete(m, "[applied]")
	applied, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("gocql: [applied] column holds %T, want bool", v)
	}
	return applied, nil
}

// Release marks the query as no longer used by the caller. Once no execution holds it, its
// fields are cleared and it must not be used again.
func (q *Query) Release() {
	if atomic.AddUint32(&q.refCount, ^uint32(0)) == 0 {
		q.reset()
	}
}

func (q *Query) borrow() { atomic.AddUint32(&q.refCount, 1) }

func (q *Query) unborrow() {
	if atomic.AddUint32(&q.refCount, ^uint32(0)) == 0 {
		q.reset()
	}
}

func (q *Query) reset() {
	*q = Query{routingInfo: &queryRoutingInfo{}, metrics: newQueryMetrics(), released: true}
}

func (q *Query) retryPolicy() RetryPolicy { return q.rt }

func (q *Query) speculativeExecutionPolicy() SpeculativeExecutionPolicy { return q.spec }

// namedValue is a value bound by name (see NamedValue).
type namedValue struct {
	name  string
	value interface{}
}

// NamedValue binds value to the bind marker called name (":name" in the statement). A query
// must bind all its values by name or all by position.
func NamedValue(name string, value interface{}) interface{} {
	return &namedValue{name: name, value: value}
}

// errReleased is the error of a query used after Release.
var errReleased = errors.New("gocql: query used after Release")

// refused returns the error that stops q before anything is sent, as gocql checks it: a USE
// statement (ErrUseStmt) or a released query; nil otherwise.
func (q *Query) refused() error {
	if isUseStatement(q.stmt) {
		return ErrUseStmt
	}
	if q.released {
		return errReleased
	}
	return nil
}

// unknownConsistencyCode reports whether c is no consistency level of the protocol (ANY to
// LOCAL_ONE): gocql v1.7.0 sends such a code as it is, and the server refuses the request.
func unknownConsistencyCode(c Consistency) bool { return c > LocalOne }

// unknownConsistencyError is the protocol error Apache Cassandra answers to a request whose
// consistency or serial consistency is no consistency code. The native core refuses to send
// such a code, so the shim answers it in the server's place, as gocql v1.7.0 would see it.
func unknownConsistencyError(c Consistency) error {
	return newErrorFrame(ErrCodeProtocol, fmt.Sprintf("Unknown code %d for a consistency level", uint16(c)))
}

// errSerialNotSerial is the server's answer to a conditional update whose serial consistency
// is not SERIAL or LOCAL_SERIAL.
var errSerialNotSerial = newErrorFrame(ErrCodeInvalid, "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")

// checkConsistencies decides what a request with consistency cons and serial consistency
// serial sends, as the server would see gocql v1.7.0's request: sendSerial reports whether
// serial is sent, and err is the error the server would answer. gocql sends any serial
// consistency but 0; the native core only sends SERIAL and LOCAL_SERIAL. Another consistency
// level is accepted and ignored by the server unless the request is conditional (conditional
// is called only then), where it is refused; a code that is no consistency level is a
// protocol error.
func checkConsistencies(cons Consistency, serial SerialConsistency, conditional func() bool) (sendSerial bool, err error) {
	if unknownConsistencyCode(cons) {
		return false, unknownConsistencyError(cons)
	}
	switch {
	case serial == 0:
		return false, nil
	case serial == Serial || serial == LocalSerial:
		return true, nil
	case unknownConsistencyCode(Consistency(serial)):
		return false, unknownConsistencyError(Consistency(serial))
	case conditional():
		return false, errSerialNotSerial
	}
	return false, nil
}

// isConditional reports whether stmt is a conditional update (lightweight transaction): an
// INSERT, UPDATE or DELETE, or a BEGIN ... APPLY BATCH, with an IF clause. It looks for the
// keyword IF outside string literals, quoted names and comments.
func isConditional(stmt string) bool {
	first := true
	for i := 0; i < len(stmt); {
		c := stmt[i]
		switch {
		case c == '\'' || c == '"':
			// A literal or quoted name; a doubled quote is an escaped quote.
			j := i + 1
			for j < len(stmt) {
				if stmt[j] == c {
					if j+1 < len(stmt) && stmt[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
		case c == '$' && strings.HasPrefix(stmt[i:], "$$"):
			end := strings.Index(stmt[i+2:], "$$")
			if end < 0 {
				return false
			}
			i += end + 4
		case strings.HasPrefix(stmt[i:], "--") || strings.HasPrefix(stmt[i:], "//"):
			end := strings.IndexByte(stmt[i:], '\n')
			if end < 0 {
				return false
			}
			i += end + 1
		case strings.HasPrefix(stmt[i:], "/*"):
			end := strings.Index(stmt[i+2:], "*/")
			if end < 0 {
				return false
			}
			i += end + 4
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i
			for j < len(stmt) && (stmt[j] == '_' || 'a' <= stmt[j] && stmt[j] <= 'z' ||
				'A' <= stmt[j] && stmt[j] <= 'Z' || '0' <= stmt[j] && stmt[j] <= '9') {
				j++
			}
			word := stmt[i:j]
			if first {
				if !lowerIs(word, "insert") && !lowerIs(word, "update") && !lowerIs(word, "delete") && !lowerIs(word, "begin") {
					return false
				}
				first = false
			} else if lowerIs(word, "if") {
				return true
			}
			i = j
		default:
			i++
		}
	}
	return false
}
