package callbacks

import "log"

// Executor runs dispatch work somewhere else than the completing goroutine, for example on a
// worker pool. Execute must eventually call fn exactly once.
type Executor interface {
	Execute(fn func())
}

// ExecutorFunc adapts a function to an [Executor].
type ExecutorFunc func(fn func())

// Execute calls f(fn).
func (f ExecutorFunc) Execute(fn func()) { f(fn) }

// PanicPolicy says what happens when a callback or errback panics.
type PanicPolicy uint8

const (
	// RecoverAndReport recovers the panic, reports it to Options.OnPanic (or the standard logger
	// when OnPanic is nil) and goes on with the next function. The outcome is unchanged. This is
	// the default, and what the Java driver (through Guava) does with a throwing listener.
	RecoverAndReport PanicPolicy = iota

	// PythonReroute reproduces the legacy Python driver (legacy-semantics A7, A12, A13):
	//   - a callback that panics during delivery skips the remaining callbacks, and the errbacks
	//     then run with the panic as a *PanicError; from then on both outcomes count as known, so a
	//     later AddCallback and a later AddErrback both run immediately;
	//   - an errback that panics during delivery makes the errbacks run again, from the first one,
	//     with its *PanicError, which replaces the outcome's error; a second panic in that re-run
	//     is reported and ends the dispatch;
	//   - a function that runs immediately inside AddCallback or AddErrback and panics propagates
	//     the panic to the caller of the Add method;
	//   - in a dispatch marked with Dispatch.NoReroute (an outcome the Python driver delivers
	//     outside its response handler: a client timeout, NoHostAvailable, a schema change), a
	//     panicking function is reported and ends the dispatch, and the outcome is unchanged.
	PythonReroute
)

// String names the policy.
func (p PanicPolicy) String() string {
	switch p {
	case RecoverAndReport:
		return "RecoverAndReport"
	case PythonReroute:
		return "PythonReroute"
	default:
		return "PanicPolicy(" + itoa(int(p)) + ")"
	}
}

// Options configures a [List]. The zero value dispatches inline and recovers panics with
// RecoverAndReport, logging them with the standard logger.
type Options struct {
	// Executor, when non-nil, runs each completion's dispatch (all its functions, in order).
	// Functions added after completion still run immediately in the adder's goroutine.
	Executor Executor

	// Panics selects what a panicking callback or errback does.
	Panics PanicPolicy

	// OnPanic receives every recovered panic that is not re-routed (see PanicPolicy). When nil,
	// panics are written with the standard library's log package. A panic in OnPanic itself
	// is not recovered: it ends the dispatch and reaches the goroutine that ran it (for a
	// future.ResponseFuture, usually a goroutine of the native session, where it ends the
	// program, as a panic in a native.Pending's OnDone function does).
	OnPanic func(*PanicError)
}

func (o *Options) report(pe *PanicError) {
	if o.OnPanic != nil {
		o.OnPanic(pe)
		return
	}
	log.Printf("callbacks: recovered panic in %s: %v\n%s", pe.Kind(), pe.Value, pe.Stack)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
