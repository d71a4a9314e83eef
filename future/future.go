package future

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/cqlbridge/cqlbridge/native"
)

// ResponseFuture is the outcome of an asynchronous request, possibly spanning several pages,
// with the legacy Python driver's semantics: callbacks and errbacks registered on it fire once
// per page, in registration order; StartFetchingNextPage re-arms them for the next page; Result
// blocks until the current page is known. It is safe for concurrent use. A ResponseFuture that
// ExecuteAsync, ExecuteBatchAsync or Start did not make (the zero value) answers as a future
// whose first page failed, with an error saying it was never started.
type ResponseFuture struct {
	req    Requester
	nat    nativeRequester // the requester of futures made by ExecuteAsync
	parent context.Context
	opts   Options
	cbs    callbacks.List[Page]

	mu       sync.Mutex
	pending  Pending
	page     int    // 1-based number of the current page
	settled  bool   // the current page has an outcome
	watching bool   // a goroutine or a notifier delivers the current page
	hook     func() // onDone, given to notifiers
	resp     Response
	paging   []byte // the paging state of the last completed page (stale while the next is in flight)
	sent     []byte // the paging state the current page was requested with (nil for the first)
	repeated bool   // the last completed page came with the paging state it was requested with
	traceIDs [][]byte

	// One page's callbacks at a time: a page that completes while an earlier page's dispatch is
	// running is queued and dispatched after it, by the goroutine running that dispatch. A page
	// settled by a caller that must not run callbacks (Result, HasMorePages, ...) is queued for
	// its watcher, which dispatches it when it runs.
	dispatching bool
	queued      []queuedPage
	deferred    int // a page that completed during a dispatch, for the dispatch loop to settle (0: none)
	// A function added after its page's outcome runs at once, in the adder's goroutine
	// (runNow); the dispatches of the later pages wait for it as for a dispatch. inline holds
	// the page numbers of these calls in progress; parked means the dispatch loop stopped for
	// them (f.dispatching stays set), and the call that unblocks it resumes it.
	inline []int
	parked bool
}

// queuedPage is a page's dispatch waiting for its turn.
type queuedPage struct {
	d    callbacks.Dispatch[Page]
	page int
}

// Start sends the first request through req and returns its future. ctx bounds every page's
// request together with Options.Timeout (the future keeps it for the later pages); cancelling it
// fails the page in flight. Start does not block on the network.
func Start(ctx context.Context, req Requester, opts Options) *ResponseFuture {
	if req == nil {
		req = failRequester{errors.New("future: Start called with a nil Requester")}
	}
	f := &ResponseFuture{req: req}
	f.init(ctx, opts)
	return f
}

func (f *ResponseFuture) init(ctx context.Context, opts Options) {
	if ctx == nil {
		ctx = context.Background()
	}
	f.parent = ctx
	f.opts = opts
	f.cbs.Configure(opts.Callbacks)
	f.mu.Lock()
	f.send(nil)
	f.mu.Unlock()
}

// send starts the request for the page after pagingState. f.mu is held.
func (f *ResponseFuture) send(pagingState []byte) {
	f.page++
	f.settled = false
	f.watching = false
	f.sent = pagingState
	f.pending = f.request(pagingState)
}

// request asks the Requester for the page after pagingState. A Requester that returns a nil
// Pending or panics (a bug in it) fails the page with an error saying so: a panic going up
// from here would leave f.mu locked, and the future with it, for ever. f.mu is held.
func (f *ResponseFuture) request(pagingState []byte) (p Pending) {
	defer func() {
		if r := recover(); r != nil {
			p = failedPending{panicked(fmt.Sprintf("future: page %d: %T.Request", f.page, f.req), r)}
		}
	}()
	p = f.req.Request(f.parent, pagingState, f.opts.timeout())
	if p == nil {
		p = failedPending{fmt.Errorf("future: page %d: %T.Request returned a nil Pending", f.page, f.req)}
	}
	return p
}

// settleBy says who settles a page (see complete).
type settleBy uint8

const (
	byWatcher settleBy = iota // the page's notifier hook or watch goroutine
	byWaiter                  // Result, which blocks until the page has an outcome
	byPeek                    // a caller that does not block: HasMorePages, the accessors, AddCallback
)

// complete settles page number page from p, which has completed. A watcher (the page's
// notifier hook or watch goroutine) then dispatches the page's callbacks in this goroutine, as
// does any caller when the page has no watcher; other callers (Result, HasMorePages, the
// accessors) leave them to the watcher: like the Python driver's result(), they never run
// callbacks, which may need a lock the caller holds. While an earlier page's callbacks are
// running, the page is left in flight for them (see below), but for Result, which settles it
// and queues its dispatch behind them. When the page is already settled or is no longer
// current, a watcher dispatches what other callers left to it, and other callers do nothing.
func (f *ResponseFuture) complete(p Pending, page int, by settleBy) {
	f.mu.Lock()
	if f.page != page || f.pending != p || f.settled {
		f.mu.Unlock()
		if by == byWatcher {
			f.drain()
		}
		return
	}
	if f.dispatching && by != byWaiter {
		// An earlier page's callbacks are running. The Python driver takes a response in on
		// its one event-loop thread, so only once the callbacks running there have returned:
		// until then HasMorePages, PagingState, Warnings, CustomPayload and the trace ids
		// answer for the earlier page, for its later callbacks too (one of which may have
		// started this page), and StartFetchingNextPage finds this page in flight. The running
		// dispatch loop settles and dispatches the page its watcher leaves it, once the pages
		// queued before it are done (nextLocked); a page without a watcher is settled by the
		// first caller after that.
		if by == byWatcher {
			f.deferred = page
		}
		f.mu.Unlock()
		return
	}
	d := f.settleLocked(p, page)
	if f.dispatching || len(f.queued) > 0 || (by != byWatcher && f.watching) || f.blockedLocked(page) {
		// Behind the pages queued before it, for the goroutine dispatching them or for a
		// watcher to come; a watcher with nobody dispatching runs the queue now, in order.
		f.queued = append(f.queued, queuedPage{d, page})
		if f.dispatching || by != byWatcher {
			f.mu.Unlock()
			return
		}
		f.dispatching = true
		next, ok := f.nextRunnableLocked()
		f.mu.Unlock()
		if ok {
			f.dispatch(next)
		}
		return
	}
	f.dispatching = true
	f.mu.Unlock()
	f.dispatch(d)
}

// settleLocked gives page number page, whose request p has completed, its outcome, and returns
// the dispatch of its callbacks. f.mu is held.
func (f *ResponseFuture) settleLocked(p Pending, page int) callbacks.Dispatch[Page] {
	f.settled = true
	o := readOutcome(p, page)
	err := o.err
	pg := Page{}
	if err != nil {
		if id := failedTraceID(err); id != nil {
			f.traceIDs = append(f.traceIDs, id)
		}
		err = f.wrapErr(err, page)
		f.resp = nil // no response to report warnings or a payload from
	} else {
		f.resp = o.resp
		f.paging = o.paging
		f.repeated = len(f.sent) > 0 && bytes.Equal(f.paging, f.sent)
		if o.trace != nil {
			f.traceIDs = append(f.traceIDs, o.trace)
		}
		pg = Page{number: page, resp: o.resp}
	}
	d := f.cbs.Settle(pg, err)
	if !d.Settled() {
		// Only a callback of an earlier page re-routed by callbacks.PythonReroute, panicking
		// after it started this page, can have given this page an outcome already (its
		// panic, which Result and an errback added in the meantime see, as after Python's
		// _set_final_exception). This page's own response replaces it and fires the
		// callbacks, as Python's _set_final_result does.
		f.cbs.Reset()
		d = f.cbs.Settle(pg, err)
	}
	if outsideResponseHandler(err, o.schemaChange) {
		d.NoReroute()
	}
	return d
}

// outcome is what settleLocked reads of a completed request.
type outcome struct {
	resp         Response
	err          error
	paging       []byte // resp.PagingState()
	trace        []byte // resp.TraceID()
	schemaChange bool   // resp is a schema change result
}

// readOutcome reads the outcome of p, page number page, which has completed. A Pending or
// Response that panics there (a bug in its Requester) fails the page with an error saying so:
// the panic would otherwise go up with f.mu, held by the caller, locked for ever, from a
// goroutine of the session when the page's watcher settles it.
func readOutcome(p Pending, page int) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: panicked(fmt.Sprintf("future: page %d: reading the outcome of %T", page, p), r)}
		}
	}()
	o.resp, o.err = p.Response()
	switch {
	case o.err != nil:
		o.resp = nil
	case o.resp == nil:
		o.err = fmt.Errorf("future: page %d: the request completed with neither a response nor an error", page)
	default:
		o.paging = o.resp.PagingState()
		o.trace = o.resp.TraceID()
		o.schemaChange = o.resp.Kind() == KindSchemaChange
	}
	return o
}

// panicked is the error of a Requester, Pending or Response that panicked with r while doing
// what, wrapping r when it is an error.
func panicked(what string, r any) error {
	if err, ok := r.(error); ok {
		return fmt.Errorf("%s: panicked: %w", what, err)
	}
	return fmt.Errorf("%s: panicked: %v", what, r)
}

// outsideResponseHandler reports whether the Python driver delivers a page with this outcome
// (err, or a success that is a schema change result when schemaChange) outside the response
// handler (_set_result) whose except clause re-routes an exception raised by a callback or
// errback to the errbacks (A12, A13): a client timeout (its timer thread), NoHostAvailable
// once the query plan is spent (send_request, on its executor after a retry) and a schema
// change result (its executor, after the schema refresh). There the exception escapes to that
// thread, which logs it: the functions after the raising one are skipped and the outcome
// stays. callbacks.PythonReroute does the same for such dispatches
// (callbacks.Dispatch.NoReroute); the default RecoverAndReport is unaffected.
func outsideResponseHandler(err error, schemaChange bool) bool {
	var te *TimeoutError
	var nh *native.NoHostAvailableError
	if err != nil {
		return errors.As(err, &te) || errors.As(err, &nh)
	}
	return schemaChange
}

// failedTraceID returns the tracing session id the server sent with the error of a traced
// request (native.RequestError.TraceID), nil when it sent none. The Python driver records the
// trace id of every response, errors included.
func failedTraceID(err error) []byte {
	var re *native.RequestError
	if !errors.As(err, &re) || !re.Traced {
		return nil
	}
	return append([]byte(nil), re.TraceID[:]...)
}

// drain dispatches the queued pages unless another goroutine is dispatching.
func (f *ResponseFuture) drain() {
	f.mu.Lock()
	if f.dispatching {
		f.mu.Unlock()
		return
	}
	f.dispatching = true
	d, ok := f.nextRunnableLocked()
	f.mu.Unlock()
	if ok {
		f.dispatch(d)
	}
}

// nextLocked removes and returns the next dispatch to run: the first queued page's, else the
// current page's when its watcher left it to the dispatch loop (see complete), which settles
// it now. It reports false when there is none, or when that page must wait for a function
// added late that runs at once for an earlier page (see runNow). f.mu is held.
func (f *ResponseFuture) nextLocked() (callbacks.Dispatch[Page], bool) {
	if len(f.queued) > 0 {
		if f.blockedLocked(f.queued[0].page) {
			return callbacks.Dispatch[Page]{}, false
		}
		d := f.queued[0].d
		f.queued[0] = queuedPage{}
		f.queued = f.queued[1:]
		return d, true
	}
	page := f.deferred
	if page == 0 || page != f.page || f.settled {
		f.deferred = 0
		return callbacks.Dispatch[Page]{}, false // none, or settled meanwhile by Result
	}
	if f.blockedLocked(page) {
		return callbacks.Dispatch[Page]{}, false // left deferred: in flight for the late call
	}
	f.deferred = 0
	return f.settleLocked(f.pending, page), true
}

// blockedLocked reports whether the dispatch of page must wait: a function added late is
// running at once for an earlier page, and the page's dispatch has it among its functions
// (see runNow). f.mu is held.
func (f *ResponseFuture) blockedLocked(page int) bool {
	for _, p := range f.inline {
		if page > p {
			return true
		}
	}
	return false
}

// dispatch runs d, then the dispatches queued meanwhile, in order, so that a callback never sees
// a page while it is still running for the previous one and sees the pages in order (the Python
// driver runs every callback on its one event-loop thread). With an Executor, the loop from the
// first dispatch with functions to run on is one task on it, which runs the callbacks itself.
// f.dispatching is set by the caller, and cleared by the loop once the queue is empty.
func (f *ResponseFuture) dispatch(d callbacks.Dispatch[Page]) {
	f.dispatchLoop(d, false)
}

// dispatchLoop is dispatch's loop. Outside the Executor (onExecutor false) it hands the rest of
// the loop to the Executor, when there is one, at the first dispatch with functions to run.
func (f *ResponseFuture) dispatchLoop(d callbacks.Dispatch[Page], onExecutor bool) {
	ex := f.cbs.Executor()
	finished := false
	defer func() {
		if finished {
			return
		}
		// A panic escaped the dispatch (an OnPanic or Executor that panics): hand the queue
		// to another goroutine so later pages still get their callbacks.
		f.mu.Lock()
		next, ok := f.nextRunnableLocked()
		f.mu.Unlock()
		if ok {
			go f.dispatch(next)
		}
	}()
	for {
		if ex != nil && !onExecutor && d.HasWork() {
			ex.Execute(func() { f.dispatchLoop(d, true) }) // it takes the loop over, f.dispatching still set
			finished = true
			return
		}
		d.RunInline()
		f.mu.Lock()
		next, ok := f.nextRunnableLocked()
		if !ok {
			f.mu.Unlock()
			finished = true
			return
		}
		d = next
		f.mu.Unlock()
	}
}

// nextRunnableLocked returns the dispatch the loop (f.dispatching set) runs next, or false when
// the loop stops: parked (f.dispatching still set) while a function added late runs at once
// (see runNow), which resumes it when it returns, else ended (f.dispatching cleared) when
// nothing is left to dispatch. f.mu is held.
func (f *ResponseFuture) nextRunnableLocked() (callbacks.Dispatch[Page], bool) {
	if d, ok := f.nextLocked(); ok {
		f.parked = false
		return d, true
	}
	if len(f.inline) > 0 {
		// A page that completes meanwhile is left to the loop (see complete) and waits.
		f.parked = true
		return callbacks.Dispatch[Page]{}, false
	}
	f.parked = false
	f.dispatching = false
	f.queued = nil
	return callbacks.Dispatch[Page]{}, false
}

// beginNowLocked prepares the immediate call im of a function just registered (see runNow) and
// returns the number of the page it is for. f.mu is held, and was held when the function was
// registered, so that the dispatch of any page settled since, which has the function among
// its functions, waits for this call.
func (f *ResponseFuture) beginNowLocked(im *callbacks.Immediate[Page]) int {
	if !im.Due() {
		return 0
	}
	page := f.page
	if !f.settled {
		// The outcome is the re-routed panic of a callback of the previous page, which
		// started this one (callbacks.PythonReroute): this page's dispatch waits too.
		page--
	}
	f.inline = append(f.inline, page)
	if !f.dispatching && len(f.queued) == 0 {
		// Nobody dispatches: hold the loop, so that a page completing meanwhile is left to
		// it (see complete) instead of being settled and dispatched at once. (Queued pages,
		// settled already, are their watcher's to dispatch, whose loop then parks.)
		f.dispatching = true
		f.parked = true
	}
	return page
}

// runNow makes the immediate call im, prepared by beginNowLocked for page number page, in this
// goroutine, as the Python driver runs a function added after the outcome in the adder's
// thread (A7). The dispatches of the later pages (the first of which has the function among
// its functions) wait for it to return, as a page that completes while the previous page's
// callbacks run waits for them: so a function added late sees the pages one at a time, in
// order, also when it starts the next page itself. The pages up to this one, whose dispatches
// do not have it, are dispatched meanwhile. The dispatch that waited is resumed in a new
// goroutine: the adder may hold locks that the other callbacks take.
func (f *ResponseFuture) runNow(im *callbacks.Immediate[Page], page int) {
	if !im.Due() {
		return
	}
	defer func() {
		f.mu.Lock()
		for i, p := range f.inline {
			if p == page {
				f.inline = append(f.inline[:i], f.inline[i+1:]...)
				break
			}
		}
		if !f.parked {
			f.mu.Unlock()
			return
		}
		next, ok := f.nextRunnableLocked()
		f.mu.Unlock()
		if ok {
			go f.dispatch(next)
		}
	}()
	im.Run()
}

// wrapErr turns a page's failure by the future's own timeout into a *TimeoutError. A request
// that reports native.ErrTimeout timed out by that timeout whenever the page is settled, even
// after the caller's context ended; a plain deadline error counts only while the caller's
// context has not ended (else it may be that context's).
func (f *ResponseFuture) wrapErr(err error, page int) error {
	d := f.opts.timeout()
	switch {
	case d <= 0:
		return err // no timer of ours
	case errors.Is(err, native.ErrTimeout):
	case f.parent.Err() != nil || !errors.Is(err, context.DeadlineExceeded):
		return err // the caller's context ended (its error stands), or not a timeout
	}
	return &TimeoutError{Timeout: d, Page: page, Err: err}
}

// errNotStarted is the outcome of a ResponseFuture that no constructor started (the zero value).
var errNotStarted = errors.New("future: the ResponseFuture was never started: futures come from ExecuteAsync, ExecuteBatchAsync or Start")

// current returns the page in flight or last settled. A future that no constructor started
// (the zero ResponseFuture) is started here, failed with errNotStarted, so that every method
// answers as for a failed first page: current is the first thing each of them does with the
// page.
func (f *ResponseFuture) current() (Pending, int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == nil {
		f.parent = context.Background()
		f.req = failRequester{errNotStarted}
		f.send(nil)
	}
	return f.pending, f.page, f.settled
}

// completeIfDone settles the current page when its request has finished but nobody has
// settled it yet, leaving its callbacks to its watcher (see complete).
func (f *ResponseFuture) completeIfDone() {
	p, page, settled := f.current()
	if settled {
		return
	}
	select {
	case <-p.Done():
		f.complete(p, page, byPeek)
	default:
	}
}

// completeIfUnwatched is completeIfDone for a page without a watcher. A watched page is its
// watcher's to settle and dispatch: settled here, its dispatch would wait for the watcher while
// a function being added, finding the page settled, ran at once, before the functions
// registered earlier.
func (f *ResponseFuture) completeIfUnwatched() {
	f.mu.Lock()
	watched := f.watching
	f.mu.Unlock()
	if !watched {
		f.completeIfDone()
	}
}

// onDone is the completion hook given to a Notifier: it settles and dispatches the current page
// when it has completed. A hook of an earlier page that fires late finds the current page still
// in flight and only dispatches what was left to it.
func (f *ResponseFuture) onDone() {
	p, page, _ := f.current()
	select {
	case <-p.Done():
		f.complete(p, page, byWatcher)
	default:
		f.drain()
	}
}

// watch makes sure someone delivers the current page's callbacks when it completes: the
// Pending's notifier if it has one (in the completing goroutine), else one goroutine for this
// page. Futures without callbacks need neither.
func (f *ResponseFuture) watch() {
	f.mu.Lock()
	n, p, page, ok := f.watchLocked()
	f.mu.Unlock()
	if ok {
		f.register(n, p, page)
	}
}

// watchLocked marks the current page as watched; when it was not, the caller must call register
// with the results once f.mu is released. f.mu is held.
func (f *ResponseFuture) watchLocked() (n Notifier, p Pending, page int, ok bool) {
	if f.settled || f.watching {
		return nil, nil, 0, false
	}
	f.watching = true
	p, page = f.pending, f.page
	n, _ = p.(Notifier)
	if n != nil && f.hook == nil {
		f.hook = f.onDone // one closure per future, reused by every page
	}
	return n, p, page, true
}

// register starts the watcher of page page (see watchLocked). It runs outside f.mu: a notifier
// may run the hook at once.
func (f *ResponseFuture) register(n Notifier, p Pending, page int) {
	if n != nil {
		f.mu.Lock()
		hook := f.hook
		f.mu.Unlock()
		n.OnDone(hook)
		return
	}
	go func() {
		<-p.Done()
		f.complete(p, page, byWatcher)
	}()
}

// AddCallback registers fn to run with every page the future completes successfully, in
// registration order, in the goroutine that completes the page (or through the configured
// executor); a page that completes while the previous page's callbacks are still running is
// dispatched after them, by the goroutine running them, so fn sees the pages in order. If the
// current page has already succeeded, fn also runs now, in this goroutine, before AddCallback
// returns; but a page that completed while functions registered before were waiting for it,
// and that nothing has looked at yet, delivers fn after them, with them. A later page that
// completes while that immediate call runs waits for it, as for the previous page's callbacks,
// and is dispatched in a new goroutine once it returns (the current page's own dispatch, which
// does not include fn, does not wait): fn sees the pages in order also when it starts the
// next page itself. It returns f for chaining (the Python driver returns self too).
func (f *ResponseFuture) AddCallback(fn func(Page)) *ResponseFuture {
	f.add(func() callbacks.Immediate[Page] { return f.cbs.RegisterCallback(fn) })
	return f
}

// AddErrback registers fn to run with the error of every page that fails, like AddCallback.
func (f *ResponseFuture) AddErrback(fn func(error)) *ResponseFuture {
	f.add(func() callbacks.Immediate[Page] { return f.cbs.RegisterErrback(fn) })
	return f
}

// add registers a function with register, which f.cbs.RegisterCallback or RegisterErrback
// does, and makes its immediate call (see runNow). The page current at registration is marked
// watched under the same lock: a page started after the first watch (by a callback, or by
// StartFetchingNextPage in another goroutine) would otherwise have the function registered and
// no watcher until the second watch, and a Result settling it then would dispatch its
// callbacks in Result's goroutine, which never runs them.
func (f *ResponseFuture) add(register func() callbacks.Immediate[Page]) {
	f.completeIfUnwatched()
	f.watch() // first: a page settled concurrently must find a watcher to leave fn's dispatch to
	f.mu.Lock()
	im := register()
	n, p, pg, watch := f.watchLocked()
	page := f.beginNowLocked(&im)
	f.mu.Unlock()
	if watch {
		f.register(n, p, pg)
	}
	f.runNow(&im, page)
	f.watch() // again: a next page started meanwhile by fn may have seen no function to watch for
}

// AddCallbacks is AddCallback(callback) then AddErrback(errback). It returns f for chaining
// (the Python driver returns None here).
func (f *ResponseFuture) AddCallbacks(callback func(Page), errback func(error)) *ResponseFuture {
	return f.AddCallback(callback).AddErrback(errback)
}

// ClearCallbacks unregisters every callback and errback. It does not affect Result.
func (f *ResponseFuture) ClearCallbacks() { f.cbs.Clear() }

// wait blocks until the current page has an outcome and returns it.
func (f *ResponseFuture) wait() (Page, error) {
	for {
		p, page, settled := f.current()
		if !settled {
			if v, err, done := f.cbs.Outcome(); done {
				// The page in flight already has an outcome: the panic of a callback that
				// started it, re-routed by callbacks.PythonReroute. Python's result() raises it
				// until the page's response arrives.
				return v, err
			}
			<-p.Done()
			f.complete(p, page, byWaiter)
		}
		if v, err, done := f.cbs.Outcome(); done {
			return v, err
		}
		// A next page was started after we looked: wait for that one.
	}
}

// Result blocks until the current page has an outcome and returns a new ResultSet over it (one
// per call, all sharing this future), or the page's error (the same error value on every call).
// Only the timeout bounds the wait. Like the Python driver's result(), it may return before the
// page's callbacks have run, and it never runs them itself (nor does any other accessor): the
// goroutine that completes the request does. It takes in a page that arrived while the
// previous page's callbacks are still running without waiting for them (a callback that started
// the next page may call it; the Python driver would block its event loop there), so the
// accessors answer for that page from then on.
func (f *ResponseFuture) Result() (*ResultSet, error) {
	pg, err := f.wait()
	if err != nil {
		return nil, err
	}
	return newResultSet(f, pg)
}

// HasMorePages reports whether the last completed page has a successor. It is false before the
// first page completes and keeps the previous page's value while the next page is in flight. As
// in the Python driver, a page that completes while the previous page's callbacks are running
// counts as in flight until they have returned (unless Result took it in): a callback, and an
// accessor called meanwhile, sees its own page's answer, also after a callback started the next
// page and that page arrived.
func (f *ResponseFuture) HasMorePages() bool {
	f.completeIfDone()
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.paging) > 0
}

// PagingState returns a copy of the paging state of the last completed page (nil on the last
// page): changing it does not change the page StartFetchingNextPage asks for.
func (f *ResponseFuture) PagingState() []byte {
	f.completeIfDone()
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Clone(f.paging)
}

// PageNumber returns the 1-based number of the page in flight or last completed (the number
// of page requests made so far: see Page.Number).
func (f *ResponseFuture) PageNumber() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.page
}

// StartFetchingNextPage requests the next page and returns without waiting. The registered
// callbacks and errbacks fire again with that page's outcome, and Result waits for it. It returns
// ErrQueryExhausted when the last completed page was the last one, and also while the first
// page is in flight, as the Python driver raises QueryExhausted there (no paging state is known
// yet: call it from a callback, or after Result); it returns an error wrapping
// native.ErrPagingStateRepeated when the server answered that page with the paging state it
// was requested with (the next page would be the same one, for ever). While a next page is
// already in flight it does nothing and returns nil: unlike the Python driver, the same page is
// never requested twice.
func (f *ResponseFuture) StartFetchingNextPage() error {
	f.completeIfDone()
	f.mu.Lock()
	if len(f.paging) == 0 {
		page, settled := f.page, f.settled
		f.mu.Unlock()
		if !settled && page == 1 {
			return fmt.Errorf("%w yet: page 1 is still in flight (call StartFetchingNextPage from a callback, or after Result)", ErrQueryExhausted)
		}
		return fmt.Errorf("%w (page %d)", ErrQueryExhausted, page)
	}
	if !f.settled {
		f.mu.Unlock()
		return nil
	}
	if f.repeated {
		// The server answered with the paging state it was sent: the next page would be
		// this one again, for ever (the Python driver fetches it again and again).
		page := f.page
		f.mu.Unlock()
		return fmt.Errorf("future: page %d came with the paging state it was requested with, so the next page would be the same one: %w", page, native.ErrPagingStateRepeated)
	}
	f.cbs.Reset()
	f.send(f.paging)
	var (
		n     Notifier
		p     Pending
		page  int
		watch bool
	)
	if cb, eb := f.cbs.Len(); cb > 0 || eb > 0 {
		n, p, page, watch = f.watchLocked() // before anyone can settle the page without a watcher
	}
	f.mu.Unlock()
	if watch {
		f.register(n, p, page)
	}
	return nil
}

// done returns the last completed response, or an error wrapping ErrNotDone naming what while
// the current page is in flight.
func (f *ResponseFuture) done(what string) (Response, error) {
	f.completeIfDone()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.settled {
		return nil, fmt.Errorf("%w: %s cannot be retrieved before page %d is finalized", ErrNotDone, what, f.page)
	}
	return f.resp, nil
}

// schemaAgreer is the optional method of a Response that knows whether the nodes agreed on
// the schema after it (nativeResponse has it).
type schemaAgreer interface{ SchemaAgreed() bool }

// IsSchemaAgreed is the legacy driver's is_schema_agreed: false when the latest response is a
// schema change after which the nodes did not agree on the schema in time (the native core
// waits up to native.Config.SchemaAgreementTimeout before completing the request, as the
// legacy driver waits up to max_schema_agreement_wait); true otherwise, including before the
// first response and after a failure, and for Responses that do not report it.
func (f *ResponseFuture) IsSchemaAgreed() bool {
	resp, err := f.done("schema agreement")
	if err != nil || resp == nil {
		return true
	}
	if sa, ok := resp.(schemaAgreer); ok {
		return sa.SchemaAgreed()
	}
	return true
}

// Warnings returns the server's warnings for the latest response (nil when none, or when the
// page failed). It fails with ErrNotDone while a page is in flight.
func (f *ResponseFuture) Warnings() ([]string, error) {
	resp, err := f.done("warnings")
	if err != nil || resp == nil {
		return nil, err
	}
	return resp.Warnings(), nil
}

// CustomPayload returns the latest response's custom payload (nil when none). It fails with
// ErrNotDone while a page is in flight.
func (f *ResponseFuture) CustomPayload() (map[string][]byte, error) {
	resp, err := f.done("custom payload")
	if err != nil || resp == nil {
		return nil, err
	}
	return resp.CustomPayload(), nil
}

// TraceID returns (a copy of) the tracing session id of the latest traced page, or nil when
// no page was traced. A traced page that failed counts when the server sent a tracing id with its error
// (Cassandra does), as in the Python driver. It fails with ErrNotDone while a page is in flight.
func (f *ResponseFuture) TraceID() ([]byte, error) {
	if _, err := f.done("trace id"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.traceIDs) == 0 {
		return nil, nil
	}
	return bytes.Clone(f.traceIDs[len(f.traceIDs)-1]), nil
}

// TraceIDs returns (copies of) the tracing session ids of every traced page so far, in page
// order, those of failed pages whose error came with one included (empty when nothing was
// traced; the Python driver raises TypeError there).
func (f *ResponseFuture) TraceIDs() [][]byte {
	f.completeIfDone()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([][]byte, len(f.traceIDs))
	for i, id := range f.traceIDs {
		out[i] = bytes.Clone(id)
	}
	return out
}

// failRequester fails every request with err (bad input to Start or ExecuteAsync).
type failRequester struct{ err error }

func (r failRequester) Request(context.Context, []byte, time.Duration) Pending {
	return failedPending(r)
}

// closedChan is the Done channel of requests that fail before they start.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

type failedPending struct{ err error }

func (p failedPending) Done() <-chan struct{}       { return closedChan }
func (p failedPending) Response() (Response, error) { return nil, p.err }
