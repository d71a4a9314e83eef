package native

import (
	"context"
	"strconv"
	"time"
)

// BatchType is the kind of a batch.
type BatchType uint8

// The batch types.
const (
	// LoggedBatch is atomic: once written to the batch log, all its statements are applied.
	LoggedBatch BatchType = 0
	// UnloggedBatch groups statements without the batch log.
	UnloggedBatch BatchType = 1
	// CounterBatch groups counter updates.
	CounterBatch BatchType = 2
)

// String returns "LOGGED", "UNLOGGED" or "COUNTER" (BatchType(n) for another value).
func (t BatchType) String() string {
	switch t {
	case LoggedBatch:
		return "LOGGED"
	case UnloggedBatch:
		return "UNLOGGED"
	case CounterBatch:
		return "COUNTER"
	}
	return "BatchType(" + strconv.Itoa(int(t)) + ")"
}

// Batch is a group of modifying statements sent in one BATCH request. Like Statement it is a
// value: Add and the With methods return a modified copy. Only the text (or prepared id) and
// the values of each statement are used; the options of the batch apply to all of them.
// Named values are supported for prepared statements (they are ordered by the bind
// metadata); simple statements in a batch take positional values only.
type Batch struct {
	typ   BatchType
	stmts []Statement
	opts  options
}

// NewBatch returns a batch of type typ holding stmts. The batch keeps the slice it is given
// (passed as stmts...), without a copy: do not modify it afterwards. A batch without statements
// is sent as it is: Cassandra accepts it and does nothing, as gocql's applications expect.
func NewBatch(typ BatchType, stmts ...Statement) Batch {
	return Batch{typ: typ, stmts: stmts}
}

// Add returns a copy of b with stmts appended; b itself is unchanged.
func (b Batch) Add(stmts ...Statement) Batch {
	n := make([]Statement, 0, len(b.stmts)+len(stmts))
	n = append(n, b.stmts...)
	b.stmts = append(n, stmts...)
	return b
}

// Type returns the batch type.
func (b Batch) Type() BatchType { return b.typ }

// Statements returns the statements of the batch. The slice is shared; do not modify it.
func (b Batch) Statements() []Statement { return b.stmts }

// WithConsistency returns a copy of b that runs at consistency c.
func (b Batch) WithConsistency(c Consistency) Batch {
	b.opts.consistency = c
	b.opts.set |= setConsistency
	return b
}

// WithSerialConsistency returns a copy of b whose conditional updates use c.
func (b Batch) WithSerialConsistency(c Consistency) Batch {
	b.opts.serialConsistency = c
	b.opts.set |= setSerialConsistency
	return b
}

// WithTimestamp returns a copy of b whose writes carry this timestamp (microseconds since the
// Unix epoch).
func (b Batch) WithTimestamp(micros int64) Batch {
	b.opts.timestamp = micros
	b.opts.set |= setTimestamp
	return b
}

// WithIdempotent returns a copy of b marked idempotent (or not).
func (b Batch) WithIdempotent(idempotent bool) Batch {
	b.opts.idempotent = idempotent
	return b
}

// WithTracing returns a copy of b that asks the server to trace it.
func (b Batch) WithTracing(trace bool) Batch {
	b.opts.tracing = trace
	return b
}

// WithKeyspace returns a copy of b that runs in keyspace ks (protocol v5 and later; see
// Statement.WithKeyspace).
func (b Batch) WithKeyspace(ks string) Batch {
	b.opts.editRare().keyspace = ks
	return b
}

// WithCustomPayload returns a copy of b that sends this custom payload.
func (b Batch) WithCustomPayload(payload map[string][]byte) Batch {
	b.opts.editRare().payload = payload
	return b
}

// WithHost returns a copy of b that runs on the node with this address only.
func (b Batch) WithHost(addr string) Batch {
	b.opts.host = addr
	return b
}

// WithTimeout returns a copy of b with its own timeout; d <= 0 disables it.
func (b Batch) WithTimeout(d time.Duration) Batch {
	b.opts.timeout = d
	b.opts.set |= setTimeout
	return b
}

// WithRetryPolicy returns a copy of b retried by p instead of Config.RetryPolicy.
func (b Batch) WithRetryPolicy(p RetryPolicy) Batch {
	b.opts.editRare().retry = p
	return b
}

// RetryPolicy returns b's own retry policy (WithRetryPolicy), or nil when Config.RetryPolicy
// applies.
func (b Batch) RetryPolicy() RetryPolicy { return b.opts.retry() }

// Timeout returns b's own timeout (WithTimeout); ok is false when it has none and
// Config.Timeout applies.
func (b Batch) Timeout() (d time.Duration, ok bool) {
	return b.opts.timeout, b.opts.set&setTimeout != 0
}

// WithObserver returns a copy of b whose attempts are reported to observe instead of
// Config.Observer.
func (b Batch) WithObserver(observe func(context.Context, Attempt)) Batch {
	b.opts.editRare().observer = observe
	return b
}

// WithSpeculativeExecution returns a copy of b with speculative execution (see
// Statement.WithSpeculativeExecution); it applies only when b is marked idempotent.
func (b Batch) WithSpeculativeExecution(delay time.Duration, attempts int) Batch {
	r := b.opts.editRare()
	r.specDelay, r.specAttempts = delay, max(attempts, 0)
	b.opts.set |= setSpeculative
	return b
}
