package native

import "sync/atomic"

// Prepared is a statement prepared on the cluster, safe for concurrent use; Bind makes
// executable Statements from it. A session caches prepared statements by keyspace and text,
// so preparing the same text twice costs one round trip, and re-prepares them
// transparently when a node has forgotten them (UNPREPARED) or when the server's rows no
// longer match the cached result metadata (a table altered under a SELECT *); the
// metadata below then reflects the latest PREPARE.
type Prepared struct {
	cql      string
	keyspace string
	meta     atomic.Pointer[preparedMeta]
	evicted  atomic.Bool
	used     atomic.Bool // prepared or bound since the cache's hand last passed it (prepcache.go)
}

// markUsed records a use for the cache's bound; it writes only when the flag changes, since
// every goroutine running the statement reads it.
func (p *Prepared) markUsed() {
	if !p.used.Load() {
		p.used.Store(true)
	}
}

// unusablePrepared stands in a Statement for the nil or zero *Prepared it was bound on.
var unusablePrepared = new(Prepared)

// preparedMeta is what one PREPARE returned; it is replaced as a whole, never modified.
type preparedMeta struct {
	id               []byte
	resultMetadataID []byte
	routingKeyspace  string // keyspace of the bound table, for token routing
	params           []Column
	pkIndexes        []int
	columns          []Column
	lwt              bool // a lightweight transaction, as the node flagged it (ScyllaDB's LWT mark)
	// tablets are the tablets of the statement's table, when the node it was prepared on
	// offered tablet routing (ScyllaDB) and the statement has a partition key; else nil.
	tablets *tabletTable
}

func (p *Prepared) m() *preparedMeta { return p.meta.Load() }

// noMeta is what the accessors report for a nil or zero *Prepared (one no Prepare returned):
// no id, no bind markers, no columns.
var noMeta = new(preparedMeta)

// metaOrNone is m for the accessors: noMeta for a nil or zero *Prepared, which Bind also
// accepts (its Statement fails when executed), so that reading one does not panic.
func (p *Prepared) metaOrNone() *preparedMeta {
	if p == nil {
		return noMeta
	}
	if m := p.m(); m != nil {
		return m
	}
	return noMeta
}

// ID returns the server's id of the statement (nil for a nil or zero *Prepared, like the other
// accessors, which report an empty statement). Do not modify the slice.
func (p *Prepared) ID() []byte { return p.metaOrNone().id }

// Evicted reports whether the session dropped p from its cache of prepared statements because
// the server refused to prepare it again (after UNPREPARED, typically when its table was
// dropped). p can still be executed (it is prepared again on demand), but a later Prepare of
// the same text returns a new Prepared, whose metadata describes the table as it is then.
func (p *Prepared) Evicted() bool { return p != nil && p.evicted.Load() }

// CQL returns the statement's text.
func (p *Prepared) CQL() string {
	if p == nil {
		return ""
	}
	return p.cql
}

// Keyspace returns the keyspace the statement was prepared in (the session keyspace at the
// time, when the text names none).
func (p *Prepared) Keyspace() string {
	if p == nil {
		return ""
	}
	return p.keyspace
}

// Params describes the bind markers, in order: name (the column name for "?" markers) and
// CQL type. Do not modify the slice.
func (p *Prepared) Params() []Column { return p.metaOrNone().params }

// PartitionKeyIndexes returns, for each partition key column in order, the index of the
// bind marker that supplies it; nil when not all of them are bound (routing then cannot be
// token-aware). At protocol v3 they come from the schema (see Config.ProtocolVersion). Do
// not modify the slice.
func (p *Prepared) PartitionKeyIndexes() []int { return p.metaOrNone().pkIndexes }

// Columns describes the result columns (nil for statements that return no rows). Do not
// modify the slice.
func (p *Prepared) Columns() []Column { return p.metaOrNone().columns }

// Bind returns a statement executing p with values, by position, or by name when every
// value is a NamedValue. The number and types of values are checked against Params when
// the statement is executed, before anything is sent.
func (p *Prepared) Bind(values ...any) Statement {
	if p == nil || p.m() == nil {
		return Statement{prepared: unusablePrepared, values: values} // fails when executed (errUnusablePrepared)
	}
	p.markUsed()
	return Statement{cql: p.cql, prepared: p, values: values}
}
