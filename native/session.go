package native

import (
	"context"
	"fmt"
	"iter"
	"sync/atomic"
)

// Session is a connection to a cluster: a control connection that tracks the topology, a
// pool of connections per node, a prepared statement cache and the routing of requests. It
// is safe for concurrent use by any number of goroutines; create one per cluster and share
// it.
type Session struct {
	cfg    Config
	closed atomic.Bool
}

// Connect connects to the cluster described by cfg: it dials the contact points until one
// answers, reads the topology from it, and opens the connection pools. It returns an error
// when no contact point can be reached (a *NoHostAvailableError with each one's cause) or
// cfg is invalid.
func Connect(ctx context.Context, cfg Config) (*Session, error) {
	return nil, fmt.Errorf("native: Connect: %w", ErrNotImplemented)
}

// Close closes every connection. Requests in flight fail with ErrSessionClosed; later calls
// fail with ErrSessionClosed. Close waits for the session's goroutines to exit and is
// idempotent.
func (s *Session) Close() error {
	s.closed.Store(true)
	return nil
}

// Closed reports whether Close has been called.
func (s *Session) Closed() bool { return s.closed.Load() }

// Execute runs stmt and waits for its result. For a SELECT the Result holds the first page;
// use Result.NextPage, Result.All or Session.Iter for the others. A USE statement changes
// the session keyspace on every connection.
func (s *Session) Execute(ctx context.Context, stmt Statement) (*Result, error) {
	return s.ExecuteAsync(ctx, stmt).Result()
}

// ExecuteAsync starts running stmt and returns at once; the Pending completes with the
// result. Binding errors (wrong number or type of values) complete it immediately, before
// anything is sent. Cancelling ctx abandons the request.
func (s *Session) ExecuteAsync(ctx context.Context, stmt Statement) *Pending {
	return donePending(nil, fmt.Errorf("native: Execute: %w", ErrNotImplemented))
}

// ExecuteBatch runs a batch and waits for its result (void, or the [applied] rows of a
// conditional batch).
func (s *Session) ExecuteBatch(ctx context.Context, b Batch) (*Result, error) {
	return s.ExecuteBatchAsync(ctx, b).Result()
}

// ExecuteBatchAsync starts running a batch and returns at once.
func (s *Session) ExecuteBatchAsync(ctx context.Context, b Batch) *Pending {
	return donePending(nil, fmt.Errorf("native: ExecuteBatch: %w", ErrNotImplemented))
}

// Prepare prepares cql in the session keyspace, or returns the cached prepared statement
// when the same text was prepared before in the same keyspace.
func (s *Session) Prepare(ctx context.Context, cql string) (*Prepared, error) {
	return nil, fmt.Errorf("native: Prepare: %w", ErrNotImplemented)
}

// Iter runs stmt and iterates over all its rows, fetching the following pages as needed. An
// error (of the first or any later page) is yielded as the last element, with a zero Row.
func (s *Session) Iter(ctx context.Context, stmt Statement) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		res, err := s.Execute(ctx, stmt)
		if err != nil {
			yield(Row{}, err)
			return
		}
		for row, err := range res.All(ctx) {
			if !yield(row, err) {
				return
			}
		}
	}
}

// Hosts returns the nodes of the cluster as last seen by the control connection.
func (s *Session) Hosts() []Host { return nil }

// Keyspace returns the session keyspace (Config.Keyspace, or the last USE).
func (s *Session) Keyspace() string { return s.cfg.Keyspace }

// ProtocolVersion returns the native protocol version in use.
func (s *Session) ProtocolVersion() int { return 4 }
