package gocql

import "context"

// BatchSizeMaximum is the largest number of statements a batch may hold.
const BatchSizeMaximum = 65535

// BatchType is the kind of a batch.
type BatchType byte

// The batch kinds.
const (
	LoggedBatch   BatchType = 0
	UnloggedBatch BatchType = 1
	CounterBatch  BatchType = 2
)

// BatchEntry is one statement of a batch.
type BatchEntry struct {
	Stmt       string
	Args       []interface{}
	Idempotent bool
	binding    func(q *QueryInfo) ([]interface{}, error)
}

// Batch groups statements executed together. Entries and Cons may be set directly.
type Batch struct {
	Type                  BatchType
	Entries               []BatchEntry
	Cons                  Consistency
	routingKey            []byte
	CustomPayload         map[string][]byte
	rt                    RetryPolicy
	spec                  SpeculativeExecutionPolicy
	trace                 Tracer
	observer              BatchObserver
	session               *Session
	serialCons            SerialConsistency
	defaultTimestamp      bool
	defaultTimestampValue int64
	context               context.Context
	keyspace              string
	metrics               *queryMetrics
	routingInfo           *queryRoutingInfo
}

// NewBatch returns a batch without session defaults (consistency Any, no retry policy).
//
// Deprecated: use Session.NewBatch.
func NewBatch(typ BatchType) *Batch {
	return &Batch{
		Type:        typ,
		metrics:     newQueryMetrics(),
		spec:        &NonSpeculativeExecution{},
		routingInfo: &queryRoutingInfo{},
	}
}

// Trace enables tracing with tracer and returns b.
func (b *Batch) Trace(trace Tracer) *Batch {
	b.trace = trace
	return b
}

// Observer sets the batch observer and returns b.
func (b *Batch) Observer(observer BatchObserver) *Batch {
	b.observer = observer
	return b
}

// Keyspace returns the session's keyspace at batch creation (ClusterConfig.Keyspace; empty for
// a batch made by the package-level NewBatch), whatever keyspace its statements name.
func (b *Batch) Keyspace() string { return b.keyspace }

// Table returns the batch's table: always empty, as in gocql v1.7.0, where neither
// GetRoutingKey nor an execution records it for a batch.
func (b *Batch) Table() string {
	if b.routingInfo == nil {
		return ""
	}
	b.routingInfo.mu.Lock()
	defer b.routingInfo.mu.Unlock()
	return b.routingInfo.table
}

// Attempts returns how many attempts all executions of this Batch made so far.
func (b *Batch) Attempts() int { return b.metrics.attempts() }

// AddAttempts adds i attempts on host to the batch's metrics.
func (b *Batch) AddAttempts(i int, host *HostInfo) { b.metrics.addAttempts(i, host) }

// Latency returns the mean latency of the batch's attempts, in nanoseconds.
func (b *Batch) Latency() int64 { return b.metrics.latency() }

// AddLatency adds l nanoseconds of latency on host to the batch's metrics.
func (b *Batch) AddLatency(l int64, host *HostInfo) { b.metrics.addLatency(l, host) }

// GetConsistency returns the batch's consistency.
func (b *Batch) GetConsistency() Consistency { return b.Cons }

// SetConsistency sets the batch's consistency.
func (b *Batch) SetConsistency(c Consistency) { b.Cons = c }

// Context returns the batch's context (context.Background when none was set).
func (b *Batch) Context() context.Context {
	if b.context == nil {
		return context.Background()
	}
	return b.context
}

// IsIdempotent reports whether every entry is idempotent (true for an empty batch).
func (b *Batch) IsIdempotent() bool {
	for _, e := range b.Entries {
		if !e.Idempotent {
			return false
		}
	}
	return true
}

func (b *Batch) speculativeExecutionPolicy() SpeculativeExecutionPolicy { return b.spec }

// SpeculativeExecutionPolicy sets the speculative execution policy and returns b.
func (b *Batch) SpeculativeExecutionPolicy(sp SpeculativeExecutionPolicy) *Batch {
	b.spec = sp
	return b
}

// Query adds a statement with its values (not idempotent) to the batch.
func (b *Batch) Query(stmt string, args ...interface{}) {
	b.Entries = append(b.Entries, BatchEntry{Stmt: stmt, Args: args})
}

// Bind adds a statement whose values bind computes from the prepared metadata.
func (b *Batch) Bind(stmt string, bind func(q *QueryInfo) ([]interface{}, error)) {
	b.Entries = append(b.Entries, BatchEntry{Stmt: stmt, binding: bind})
}

func (b *Batch) retryPolicy() RetryPolicy { return b.rt }

// RetryPolicy sets the retry policy and returns b.
func (b *Batch) RetryPolicy(r RetryPolicy) *Batch {
	b.rt = r
	return b
}

// WithContext returns a shallow copy of b using ctx.
func (b *Batch) WithContext(ctx context.Context) *Batch {
	c := *b
	c.context = ctx
	return &c
}

// Cancel does nothing; cancel the batch's context instead.
//
// Deprecated: use WithContext.
func (*Batch) Cancel() {}

// Size returns the number of entries.
func (b *Batch) Size() int { return len(b.Entries) }

// SerialConsistency sets the serial consistency of conditional entries and returns b. As in
// gocql, a value that is not SERIAL or LOCAL_SERIAL is accepted here and treated as the server
// treats it: ignored without a conditional entry, refused with one, a protocol error when it
// is no consistency level (docs/deviations.md G29).
func (b *Batch) SerialConsistency(cons SerialConsistency) *Batch {
	b.serialCons = cons
	return b
}

// DefaultTimestamp enables or disables the client-side timestamp and returns b.
func (b *Batch) DefaultTimestamp(enable bool) *Batch {
	b.defaultTimestamp = enable
	return b
}

// WithTimestamp sends timestamp (microseconds) as the batch's timestamp and returns b.
func (b *Batch) WithTimestamp(timestamp int64) *Batch {
	b.DefaultTimestamp(true)
	b.defaultTimestampValue = timestamp
	return b
}

// GetRoutingKey returns the routing key set on the batch, else the one of its first entry,
// which it prepares (whatever the statement, as gocql v1.7.0 does) to find it.
func (b *Batch) GetRoutingKey() ([]byte, error) { return b.routingKeyFor(false) }

// routingKeyFor is GetRoutingKey; forPlan skips a first entry that can have no partition key
// (see Query.routingKeyFor).
func (b *Batch) routingKeyFor(forPlan bool) ([]byte, error) {
	if b.routingKey != nil {
		return b.routingKey, nil
	}
	if len(b.Entries) == 0 || b.session == nil {
		return nil, nil
	}
	e := b.Entries[0]
	if e.binding != nil || forPlan && !hasRoutingKeyInfo(e.Stmt) {
		return nil, nil
	}
	info, err := b.session.routingKeyInfo(b.Context(), e.Stmt)
	if err != nil || info == nil {
		return nil, err
	}
	// Unlike Query.GetRoutingKey, gocql v1.7.0 does not record the table: Batch.Table stays
	// empty.
	return createRoutingKey(info, e.Args)
}
