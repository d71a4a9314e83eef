// Package future reproduces the legacy DataStax/ScyllaDB Python driver's ResponseFuture (Result,
// AddCallback, AddErrback, AddCallbacks, HasMorePages, StartFetchingNextPage, Warnings,
// CustomPayload, traces) and its mutable, in-place paging ResultSet, on top of the native core.
package future
