package native

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/cqlbridge/cqlbridge/native/internal/conn"
	"github.com/cqlbridge/cqlbridge/native/internal/policy"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// startedAttempt is the first attempt of a request that startDetached sent: the plan it was
// taken from and its connection, for sendPlan to go on from (reqInfo.started), and its
// completed call, which roundTrip takes.
type startedAttempt struct {
	st    *clusterState
	plan  policy.Plan
	fixed int
	c     *conn.Conn
	call  *conn.Call
}

// The phases of a detached request (see startDetached).
const (
	detachedStarting uint32 = iota // being sent: the sender finishes a completion it sees
	detachedWaiting                // sent: the completing goroutine finishes it
	detachedDone                   // completed while starting: the sender finishes it
)

// detached is an asynchronous request in flight without a goroutine: the goroutine that
// completes its call (the connection's reader, usually) completes its Pending. Anything but a
// plain answer (rows or void, up to detachedDecodeMax bytes) goes on in a worker, through the
// same path as the other requests (retries, re-preparing, timeouts, schema agreement).
type detached struct {
	s          *Session
	ctx        context.Context
	p          *Pending
	req        *request
	info       reqInfo
	att        startedAttempt
	phase      atomic.Uint32
	registered bool // the coarse clock watches the call (set before phase leaves starting)

	// A context that can end interrupts the call (cancelled, run by context.AfterFunc). call
	// and stop are set before phase leaves starting; watch settles who touches the call: the
	// cancellation (watchCancelling, then watchCancelled) or finish (watchClaimed), never both.
	call  *conn.Call
	stop  func() bool
	watch atomic.Uint32
}

// The states of detached.watch.
const (
	watchIdle       uint32 = iota // neither the cancellation nor finish has the call
	watchCancelling               // the cancellation is interrupting the call
	watchClaimed                  // finish has the call: the cancellation leaves it alone
	watchCancelled                // the cancellation is done with the call
)

// detachedDecodeMax is the largest response body that finish decodes in the goroutine that
// completed the call, usually the connection's reader: a larger one (a page of many rows) is
// decoded on a worker, so that it does not hold up the connection's other responses.
const detachedDecodeMax = 64 << 10

// errContextEnded is the error the cancellation interrupts a detached call with; finish
// reports the context's own error.
var errContextEnded = errors.New("native: the request's context ended")

// startDetached sends an asynchronous request without a goroutine when nothing about it needs
// one while it waits: no observer, no speculative execution, no timeout shorter than the
// coarse clock's minimum (which would need a timer), not a USE, and a connection with a free
// stream id on the plan's first node. A context that can end is watched with
// context.AfterFunc, which interrupts the call. It returns false, having sent nothing and kept
// nothing, when the request must run on a worker (goAsync); true when it took req, and p
// completes with the request's outcome.
func (s *Session) startDetached(ctx context.Context, st *Statement, req *request, vals *encodedValues, p *Pending) bool {
	if (st.prepared == nil && isUseStatement(st.cql)) || ctx.Err() != nil {
		return false
	}
	// What keeps a request on a worker, looked at before anything is allocated or built.
	var pol reqInfo
	pol.policies(&s.cfg, &st.opts)
	timeout := s.cfg.Timeout
	if st.opts.set&setTimeout != 0 {
		timeout = st.opts.timeout
	}
	if pol.observer != nil || (pol.specAttempts > 0 && st.opts.idempotent) || (timeout > 0 && timeout < coarseMin) {
		return false
	}
	d := &detached{s: s, ctx: ctx, p: p, req: req}
	info := &d.info
	if err := s.initRequest(info, st, req, vals, true); err != nil {
		return false // goAsync's path reports the error
	}
	if !s.enter() { // counted until the Pending completes, or the request goes to a worker
		return false
	}
	a := &d.att
	a.st = s.state.Load()
	fixed, err := s.planFor(info, a.st, &a.plan)
	if err != nil {
		s.wg.Done()
		return false
	}
	a.fixed = fixed
	var failed []HostError
	var busy []int
	held := -1
	c, ok := s.nextConn(info, a.st, &a.plan, fixed, &failed, &busy, &held)
	if !ok || c == nil {
		s.wg.Done()
		return false // no connection on the first node, or saturated: the worker's path decides
	}
	a.c = c
	to := &req.to
	to.start(info.timeout)
	if to.coarse() {
		to.beginWait()
	}
	call, err := c.StartNotify(info.msg, d)
	if err != nil {
		s.wg.Done()
		return false // nothing was sent
	}
	if to.coarse() {
		w := &to.wait
		w.call, w.end = call, to.end
		s.clock.add(w)
		d.registered = true
	}
	if !neverEnds(ctx) && ctx.Done() != nil {
		d.call = call
		d.stop = context.AfterFunc(ctx, d.cancelled)
	}
	if !d.phase.CompareAndSwap(detachedStarting, detachedWaiting) {
		d.finish(call) // it completed already
	}
	return true
}

// CallDone is told that the request's call completed.
func (d *detached) CallDone(call *conn.Call) {
	if d.phase.CompareAndSwap(detachedStarting, detachedDone) {
		return // startDetached is still registering the call: it finishes
	}
	d.finish(call)
}

// cancelled interrupts the call when the request's context ends, unless finish has it.
func (d *detached) cancelled() {
	if !d.watch.CompareAndSwap(watchIdle, watchCancelling) {
		return
	}
	d.call.Interrupt(errContextEnded) // may run finish, in this goroutine
	d.watch.Store(watchCancelled)
}

// claim keeps the cancellation away from the call before finish releases it or hands it on:
// it stops the cancellation, or waits until it is done with the call, unless finish runs
// inside it (the call completed with its interruption).
func (d *detached) claim(call *conn.Call, err error) {
	if d.stop == nil || d.stop() {
		return // no cancellation, or it will never run
	}
	if d.watch.CompareAndSwap(watchIdle, watchClaimed) || err == errContextEnded {
		return // it will find the call claimed; or this is it, interrupting
	}
	// Another goroutine completed the call (err is not the interruption), so the
	// cancellation's Interrupt finds the call's slot claimed and returns at once.
	for d.watch.Load() == watchCancelling {
		runtime.Gosched()
	}
}

// finish completes the Pending with a plain answer, or hands the request to a worker. It runs
// in the goroutine that completed the call (which, for a timeout, holds the coarse clock's
// lock: only a call with a response, or interrupted by its context, touches the clock here).
func (d *detached) finish(call *conn.Call) {
	s, info := d.s, &d.info
	var resp *proto.Response
	var err error
	if call.BodySize() <= detachedDecodeMax {
		resp, err = call.Response()
	} // else a large page: a worker decodes it (convertResponse), not the connection's reader
	d.claim(call, err)
	if err == errContextEnded {
		// As the goroutine path reports a context that ended while waiting (roundTrip).
		if d.registered {
			s.clock.remove(&d.req.to.wait)
			d.registered = false
		}
		call.Release()
		putRequest(d.req)
		err := fmt.Errorf("native: %s on %s: %w", abbreviate(info.what), d.att.c.Addr(), d.ctx.Err())
		if s.closed.Load() {
			err = closedError(err) // as send reports a request that Close cut off
		}
		d.complete(nil, err)
		return
	}
	if resp != nil {
		switch resp.Msg.(type) {
		case *proto.RowsResult, *proto.VoidResult:
			if d.registered {
				s.clock.remove(&d.req.to.wait)
				d.registered = false
			}
			if resp.CustomPayload != nil && info.tablets != nil {
				learnTablet(info, resp.CustomPayload)
			}
			if res, err := s.buildResult(resp, info, d.att.c.Addr()); err == nil {
				call.Release()
				putRequest(d.req)
				d.complete(res, nil)
				return
			}
		}
	}
	// An error, a timeout, a stale metadata, another kind of result or a large page: the rest
	// runs where it may block, on a worker, from this answer on.
	d.att.call = call
	info.started = &d.att
	if s.async.Go(asyncTask{p: d.p, f: d.resume}) {
		s.wg.Done() // the worker counts from now on
		return
	}
	// The session is closing: no worker takes requests. The goroutine takes over this
	// request's count; runTask turns a policy's panic or Goexit into the request's error, as on
	// a worker (the retry policy is asked about the failures that Close causes).
	go func() {
		defer s.wg.Done()
		s.runTask(asyncTask{p: d.p, f: d.resume})
	}()
}

// resume runs the rest of the request (sendPlan from its answered first attempt).
func (d *detached) resume() (*Result, error) {
	s := d.s
	defer putRequest(d.req)
	if d.registered {
		s.clock.remove(&d.req.to.wait)
		d.registered = false
	}
	res, err := s.send(d.ctx, d.req, &d.info)
	if err == nil && res.kind == ResultSchemaChange {
		s.awaitAfterSchemaChange(d.ctx, res)
	}
	return res, err
}

// complete completes the Pending of a request that no worker ran and leaves the session's
// goroutine count; OnDone hooks run on a worker (never in the connection's reader, which they
// could block).
func (d *detached) complete(res *Result, err error) {
	s, p := d.s, d.p
	p.settle(res, err)
	s.wg.Done()
	if p.hasHooks() && !s.async.Go(asyncTask{p: p}) {
		go p.fire() // the session is closing: no worker
	}
}
