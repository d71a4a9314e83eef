package callbacks

import (
	"errors"
	"runtime/debug"
	"sync"
)

// outcome bits: both can be set after a re-routed callback panic (PythonReroute).
const (
	succeeded uint8 = 1 << iota
	failed
)

// List holds ordered callbacks and errbacks and the outcome of the current completion. It is
// safe for concurrent use. The zero value is ready to use with default [Options]; call
// [List.Configure] before any other method to change them. A List must not be copied after
// first use.
type List[T any] struct {
	opts Options

	mu       sync.Mutex
	cbs      []func(T)
	ebs      []func(error)
	cbInline [1]func(T)
	ebInline [1]func(error)
	inlined  uint8 // which inline arrays were handed out (never reused: a dispatch may read them)
	state    uint8
	gen      uint64 // the current completion's number: Reset increments it
	value    T
	err      error
}

// NewList returns an empty List with the given options.
func NewList[T any](opts Options) *List[T] {
	return &List[T]{opts: opts}
}

// Configure sets the options. It must be called before the List is used concurrently and before
// any function is added; it is meant for Lists embedded by value in another struct.
func (l *List[T]) Configure(opts Options) {
	l.opts = opts
}

// AddCallback registers fn to run with the value of every successful completion, in
// registration order. If the current completion already succeeded, fn also runs now, in this
// goroutine, before AddCallback returns. A nil fn is ignored.
func (l *List[T]) AddCallback(fn func(T)) {
	im := l.RegisterCallback(fn)
	im.Run()
}

// RegisterCallback is AddCallback without its immediate call: it registers fn and returns the
// call AddCallback would make now (fn with the value of the current completion, when that
// completion has already succeeded) for the caller to make with [Immediate.Run], once it has
// arranged its own state around the call. A nil fn is ignored.
func (l *List[T]) RegisterCallback(fn func(T)) Immediate[T] {
	if fn == nil {
		return Immediate[T]{}
	}
	l.mu.Lock()
	if l.cbs == nil && l.inlined&succeeded == 0 {
		l.inlined |= succeeded
		l.cbs = l.cbInline[:0]
	}
	l.cbs = append(l.cbs, fn)
	now := l.state&succeeded != 0
	v := l.value
	l.mu.Unlock()
	if !now {
		return Immediate[T]{}
	}
	return Immediate[T]{l: l, cb: fn, value: v}
}

// AddErrback registers fn to run with the error of every failed completion, in registration
// order. If the current completion already failed, fn also runs now, in this goroutine, before
// AddErrback returns. A nil fn is ignored.
func (l *List[T]) AddErrback(fn func(error)) {
	im := l.RegisterErrback(fn)
	im.Run()
}

// RegisterErrback is AddErrback without its immediate call, as RegisterCallback is
// AddCallback's. A nil fn is ignored.
func (l *List[T]) RegisterErrback(fn func(error)) Immediate[T] {
	if fn == nil {
		return Immediate[T]{}
	}
	l.mu.Lock()
	if l.ebs == nil && l.inlined&failed == 0 {
		l.inlined |= failed
		l.ebs = l.ebInline[:0]
	}
	l.ebs = append(l.ebs, fn)
	now := l.state&failed != 0
	err := l.err
	l.mu.Unlock()
	if !now {
		return Immediate[T]{}
	}
	return Immediate[T]{l: l, eb: fn, err: err}
}

// Immediate is the call of a function registered when the outcome it is for was already
// known (see [List.RegisterCallback]). The zero Immediate calls nothing.
type Immediate[T any] struct {
	l     *List[T] // nil: nothing to call
	cb    func(T)
	eb    func(error)
	value T
	err   error
}

// Due reports whether Run calls a function.
func (im *Immediate[T]) Due() bool { return im.l != nil }

// Run makes the call in this goroutine, as AddCallback and AddErrback make it: a panic is
// recovered and reported (Options.OnPanic), or with PythonReroute propagates to the caller of
// Run. Run it at most once.
func (im *Immediate[T]) Run() {
	switch {
	case im.l == nil:
	case im.cb != nil:
		im.l.runNow(func() { im.cb(im.value) }, false)
	default:
		im.l.runNow(func() { im.eb(im.err) }, true)
	}
}

// Succeed completes the current completion with v and runs the registered callbacks (in this
// goroutine, or through the Executor). It returns false, and runs nothing, if the current
// completion already has an outcome: the first outcome wins until [List.Reset].
func (l *List[T]) Succeed(v T) bool {
	d := l.Settle(v, nil)
	d.Run()
	return d.Settled()
}

// Fail completes the current completion with err and runs the registered errbacks (in this
// goroutine, or through the Executor). It returns false, and runs nothing, if the current
// completion already has an outcome. A nil err is a failure too, with an error saying Fail was
// given nil (not a success with T's zero value).
func (l *List[T]) Fail(err error) bool {
	if err == nil {
		err = errNilFail
	}
	var zero T
	d := l.Settle(zero, err)
	d.Run()
	return d.Settled()
}

// errNilFail is the error of a completion failed with Fail(nil).
var errNilFail = errors.New("callbacks: Fail called with a nil error")

// Settle records the outcome of the current completion (a failure when err is non-nil, else a
// success with v) and snapshots the functions to run, without running them: the caller runs
// them with [Dispatch.Run], typically after releasing its own locks. Settle lets a caller make
// the outcome visible atomically with its own state. If the completion already has an outcome,
// the returned Dispatch does nothing and Settled reports false.
func (l *List[T]) Settle(v T, err error) Dispatch[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != 0 {
		return Dispatch[T]{}
	}
	d := Dispatch[T]{l: l, value: v, err: err, gen: l.gen}
	if err != nil {
		l.state = failed
		l.err = err
		d.ebs = l.ebs
	} else {
		l.state = succeeded
		l.value = v
		d.cbs = l.cbs
	}
	return d
}

// Dispatch is a settled outcome whose functions have not run yet (see [List.Settle]).
type Dispatch[T any] struct {
	l     *List[T]
	cbs   []func(T)
	ebs   []func(error)
	value T
	err   error
	gen   uint64 // the completion it settled
	// noReroute: under PythonReroute, a panic is reported and ends the dispatch (NoReroute).
	noReroute bool
}

// Settled reports whether the Settle call that produced d recorded its outcome.
func (d *Dispatch[T]) Settled() bool { return d.l != nil }

// NoReroute makes d's dispatch treat a panic, under PythonReroute, the way the Python driver
// treats an exception raised by a callback or errback that it runs outside its response
// handler (on its timer thread for a client timeout, on its executor for NoHostAvailable and
// for schema-change results): the panic is reported (Options.OnPanic), the functions after the
// panicking one are skipped, and the outcome stays as it is (no errback runs with the panic).
// Under RecoverAndReport it changes nothing. Call it before Run or RunInline.
func (d *Dispatch[T]) NoReroute() { d.noReroute = true }

// Run runs the snapshot of callbacks (on success) or errbacks (on failure), in registration
// order, in this goroutine or through the List's Executor. Run must be called at most once.
func (d *Dispatch[T]) Run() {
	l := d.l
	if l == nil || (len(d.cbs) == 0 && len(d.ebs) == 0) {
		return
	}
	dd := *d
	if l.opts.Executor != nil {
		l.opts.Executor.Execute(func() { l.run(&dd) })
		return
	}
	l.run(&dd)
}

// RunInline is Run in this goroutine, whatever the List's Executor: for a caller that already
// runs on the Executor (see List.Executor). RunInline must be called at most once, instead of
// Run.
func (d *Dispatch[T]) RunInline() {
	l := d.l
	if l == nil || (len(d.cbs) == 0 && len(d.ebs) == 0) {
		return
	}
	l.run(d)
}

// HasWork reports whether d has functions to run (Run of a Dispatch without any does
// nothing, not even call the Executor).
func (d *Dispatch[T]) HasWork() bool { return d.l != nil && (len(d.cbs) > 0 || len(d.ebs) > 0) }

// Executor returns the Executor the List was configured with, nil for none.
func (l *List[T]) Executor() Executor {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.opts.Executor
}

func (l *List[T]) run(d *Dispatch[T]) {
	if d.err != nil {
		l.runErrbacks(d.ebs, d.err, false, d.gen, d.noReroute)
	} else {
		l.runCallbacks(d.cbs, d.value, d.gen, d.noReroute)
	}
}

// Reset starts a new completion: the outcome is forgotten, the registered functions are kept and
// fire again on the next Succeed or Fail.
func (l *List[T]) Reset() {
	var zero T
	l.mu.Lock()
	l.state = 0
	l.gen++
	l.value = zero
	l.err = nil
	l.mu.Unlock()
}

// Clear unregisters every callback and errback. A dispatch already under way finishes with the
// functions it started with. The outcome is unchanged.
func (l *List[T]) Clear() {
	l.mu.Lock()
	l.cbs = nil
	l.ebs = nil
	l.mu.Unlock()
}

// Outcome reports the current completion's outcome: done is false while it is pending. When the
// completion succeeded (even if a re-routed panic also recorded an error), err is nil and value is
// the value; otherwise err is the error.
func (l *List[T]) Outcome() (value T, err error, done bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.state&succeeded != 0:
		return l.value, nil, true
	case l.state&failed != 0:
		return value, l.err, true
	}
	return value, nil, false
}

// Len returns how many callbacks and errbacks are registered.
func (l *List[T]) Len() (callbacks, errbacks int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.cbs), len(l.ebs)
}

// runCallbacks runs the callbacks of completion gen; under PythonReroute a panic is recorded
// (see recordPanic) and re-routed to the errbacks, or with noReroute reported and the
// remaining callbacks skipped.
func (l *List[T]) runCallbacks(snap []func(T), v T, gen uint64, noReroute bool) {
	for i, fn := range snap {
		pe := protect(func() { fn(v) }, i, false)
		if pe == nil {
			continue
		}
		if l.opts.Panics == PythonReroute {
			if noReroute {
				l.opts.report(pe)
				return
			}
			l.runErrbacks(l.recordPanic(pe, gen), pe, true, gen, false)
			return
		}
		l.opts.report(pe)
	}
}

// runErrbacks runs the errbacks of completion gen with err; rerun marks the re-run after a
// re-routed panic, and noReroute a dispatch whose panics are not re-routed (NoReroute).
func (l *List[T]) runErrbacks(snap []func(error), err error, rerun bool, gen uint64, noReroute bool) {
	for i, fn := range snap {
		pe := protect(func() { fn(err) }, i, true)
		if pe == nil {
			continue
		}
		if l.opts.Panics != PythonReroute {
			l.opts.report(pe)
			continue
		}
		if rerun || noReroute {
			l.opts.report(pe)
			return
		}
		l.runErrbacks(l.recordPanic(pe, gen), pe, true, gen, false)
		return
	}
}

// recordPanic records a re-routed panic of a function of completion gen as a failure, as the
// Python driver's _set_final_exception does, and returns the errbacks to re-run. It records it
// on completion gen, or on a later completion that has no outcome yet (a callback that started
// the next completion, then panicked: Python's result() raises the panic until the next
// response arrives); a later completion that already has an outcome keeps it (in Python that
// response would only be processed after the panicking callback).
func (l *List[T]) recordPanic(pe *PanicError, gen uint64) []func(error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gen == gen || l.state == 0 {
		l.state |= failed
		l.err = pe
	}
	return l.ebs
}

// runNow runs a function added after completion, in the adder's goroutine.
func (l *List[T]) runNow(call func(), errback bool) {
	if l.opts.Panics == PythonReroute {
		call() // A7: the panic propagates to the caller of the Add method
		return
	}
	if pe := protect(call, -1, errback); pe != nil {
		l.opts.report(pe)
	}
}

func protect(call func(), index int, errback bool) (pe *PanicError) {
	defer func() {
		if r := recover(); r != nil {
			pe = &PanicError{Value: r, Errback: errback, Index: index, Stack: debug.Stack()}
		}
	}()
	call()
	return nil
}
