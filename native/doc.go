// Package native is the new core of cqlbridge: a context-first, channel-based Cassandra and ScyllaDB
// client. It holds Session, statements, prepared statements, batches, the immutable paged Result,
// row iteration with Go iterators, typed scanning and structured errors. Asynchronous calls return
// a handle whose completion is a channel, and the synchronous calls are built on them.
//
// native imports nothing of gocql; the compatibility layer (compat/gocql) and the legacy future
// model (future, callbacks) are built on top of it.
package native
