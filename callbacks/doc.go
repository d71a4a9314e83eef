// Package callbacks registers and dispatches ordered callbacks and errbacks, the way the legacy
// DataStax Python driver's ResponseFuture does, with Go-friendly choices where Python's behaviour
// is accidental.
//
// A [List] collects success callbacks (func(T)) and errbacks (func(error)) and receives one
// outcome per completion through [List.Succeed] or [List.Fail]. The rules:
//
//   - Each registered function runs exactly once per completion, in registration order; the
//     callbacks on success, the errbacks on failure. Registering the same function twice runs it
//     twice (no deduplication).
//   - A function added after the outcome is known also runs immediately, in the adder's goroutine,
//     before the Add method returns; it stays registered, so it fires again for the next completion
//     after [List.Reset] (this is how a future re-fires its callbacks for every page).
//     [List.RegisterCallback] and [List.RegisterErrback] register without making that call,
//     and return it ([Immediate]) for a caller that must order it with its own dispatches (a
//     future holds its next page's dispatch until the call has returned).
//   - A function added concurrently with the completion runs exactly once: either it is in the
//     snapshot the completion dispatches, or it runs immediately in the adder's goroutine.
//   - Dispatch happens in the goroutine that calls Succeed or Fail, unless an [Executor] is
//     configured; no goroutine is started by this package.
//   - A panicking function is recovered. By default ([RecoverAndReport]) the panic is reported to
//     Options.OnPanic (or logged) and the remaining functions still run; the outcome does not
//     change. [PythonReroute] reproduces the Python driver instead: a panicking callback aborts
//     the remaining callbacks and the errbacks run with the panic as a [*PanicError]; a panicking
//     errback re-runs the errbacks with its own panic, which then becomes the outcome's error;
//     in a dispatch marked with [Dispatch.NoReroute] (an outcome the Python driver delivers
//     outside its response handler), a panic only ends the dispatch, as there.
//
// The zero List is ready to use with the default options.
package callbacks
