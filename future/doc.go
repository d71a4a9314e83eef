// Package future reproduces the legacy DataStax/ScyllaDB Python driver's ResponseFuture and its
// mutable, in-place paging ResultSet on top of the native core, for code written in the
// callback style (execute_async, add_callbacks, start_fetching_next_page).
//
// [ExecuteAsync] (Python's session.execute_async) sends a statement through a *native.Session and
// returns a [*ResponseFuture] ([ExecuteBatchAsync] does the same for a native.Batch, Python's
// execute_async of a BatchStatement):
//
//   - [ResponseFuture.AddCallback], [ResponseFuture.AddErrback] and [ResponseFuture.AddCallbacks]
//     register functions that fire once per page, in registration order, in the goroutine that
//     completes the page (no goroutine is started when the native request can notify its
//     completion); one added after the page completed runs immediately, in the adder's goroutine,
//     before the Add method returns (unless the page completed while functions added before it
//     were waiting for it, and nothing has looked at the page yet: it then runs after them, with
//     them), and the next page's callbacks wait for that call to return. The Add methods return
//     the future for chaining. The pages
//     are dispatched one at a time, in order, as on the Python driver's one event-loop thread:
//     a page that completes while the previous page's callbacks are still running is dispatched
//     after them, by the goroutine running them (so a callback must not wait for the callbacks
//     of a later page). Until they have returned, that page counts as in flight (as on the
//     Python driver, which takes a response in only when its event-loop thread is free): a
//     callback that started the next page, and the callbacks after it, still see their own page
//     through HasMorePages, PagingState and the other accessors; Result does take the page in.
//   - [ResponseFuture.StartFetchingNextPage] requests the next page and re-fires the same
//     callbacks with it; [ResponseFuture.HasMorePages] tells whether there is one.
//   - [ResponseFuture.Result] blocks for the current page and returns a new [*ResultSet].
//   - [ResponseFuture.Warnings], [ResponseFuture.CustomPayload] and [ResponseFuture.TraceID]
//     describe the latest response and fail with [ErrNotDone] while a page is in flight;
//     [ResponseFuture.QueryTrace] reads the traced session from system_traces
//     ([ResponseFuture.QueryTraces] those of every traced page, [ReadTrace] any tracing session).
//
// Callbacks must not block. Like the Python driver's callbacks, which run on the connection's
// event-loop thread, they run in the goroutine that completes the request (with the native core,
// the goroutine of that request), never in one calling Result or another accessor: a callback
// that waits (Result on a future in flight, ResultSet iteration that needs the next page, a
// synchronous query) holds that goroutine and delays the callbacks of the future's later pages.
// Start the next page with StartFetchingNextPage (it does not wait), or configure
// Options.Callbacks.Executor to run callbacks elsewhere.
//
// Every page's request is bounded by Options.Timeout (10 s by default, or the statement's own
// timeout), retries and speculative executions included, and fails with a [*TimeoutError].
//
// Failed attempts are retried as the Python driver's default RetryPolicy does
// ([PythonRetryPolicy]: a read timeout with enough replicas but no data, and a BATCH_LOG write
// timeout, once on the same node; an unavailable error once on the next node; an overloaded or
// bootstrapping coordinator, a server or truncate error and a broken connection on every next
// node, then *native.NoHostAvailableError, Python's NoHostAvailable), unless Options.RetryPolicy
// or the statement's own policy says otherwise; [FallthroughRetryPolicy] retries nothing.
//
// A [*ResultSet] is one cursor over the pages: CurrentRows is the current page, Next (or Seq, or
// All) walks the rows and fetches the following pages in place, skipping empty pages. Rows give
// each value as an any, as Python's tuples do; [NativeResult] of a page's Response gives the
// native result, for typed access (native.Row.Scan, native.RowToStruct).
//
// The deliberate differences from the Python driver (a panicking callback is recovered and
// reported unless callbacks.PythonReroute is chosen, every page has a timeout, a second
// StartFetchingNextPage while a page is in flight does not send the request twice, the first
// response of a request wins, ...) are listed in docs/deviations.md, each pinned by a scenario of
// the conformance suite in conformance/futures.
//
// The package works against the small [Requester] interface; [NewRequester] adapts a native
// session, and other backends (or test doubles) can implement it directly.
package future
