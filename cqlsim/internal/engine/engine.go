package engine

import "errors"

// errNotImplemented is returned by the placeholder engine until the real one lands.
var errNotImplemented = errors.New("cqlsim engine: not implemented yet")

// Engine is the shared, concurrency-safe CQL engine of one simulated cluster.
type Engine struct {
	opts Options
}

// New creates an engine serving the given nodes.
func New(opts Options) (*Engine, error) { return &Engine{opts: opts}, nil }

// Prepare parses and prepares query in keyspace, caching it under a stable id.
func (e *Engine) Prepare(keyspace, query string) (*Prepared, error) { return nil, errNotImplemented }

// Lookup returns the prepared statement with the given id, if known (else the caller answers
// UNPREPARED).
func (e *Engine) Lookup(id []byte) (*Prepared, bool) { return nil, false }

// Execute runs one statement.
func (e *Engine) Execute(req *Request) (*Result, error) { return nil, errNotImplemented }

// Batch runs a batch.
func (e *Engine) Batch(req *BatchRequest) (*Result, error) { return nil, errNotImplemented }

// SchemaVersion returns the current schema version uuid (changes on every DDL).
func (e *Engine) SchemaVersion() [16]byte { return [16]byte{} }
