package gocql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/future"
)

// IterAsync starts executing the query and returns at once with a future in the legacy
// callback style (package future): register callbacks and errbacks, which fire once per page,
// and call StartFetchingNextPage to fetch the following page. Each page runs through the same
// machinery as Iter (host selection, retry policy, observers); automatic paging is off, the
// future pages on request. Each page is bounded by ClusterConfig.Timeout (no bound when it is
// zero) and by the query's context.
//
// As with Iter, a USE statement is not executed (the future fails with ErrUseStmt), and the
// future works on a copy of the query taken now: later changes to q, or Release, do not affect
// it.
//
// This is a cqlbridge extension; gocql has no asynchronous API.
func (q *Query) IterAsync() *future.ResponseFuture {
	if q == nil {
		return future.Start(context.Background(), &queryRequester{}, futureOptions(nil))
	}
	// The copy shares q's metrics, as Iter's first page does.
	return future.Start(q.Context(), &queryRequester{s: q.session, q: q.shallowCopy()}, futureOptions(q.session))
}

// ExecAsync is IterAsync for statements whose rows are not needed (Exec is to Iter what
// ExecAsync is to IterAsync); the future completes with the first page.
func (q *Query) ExecAsync() *future.ResponseFuture { return q.IterAsync() }

// ExecuteBatchAsync starts executing the batch and returns at once with a future (one page:
// void, or the rows of a conditional batch). The future works on a copy of the batch taken
// now, entries included: the batch may be reset and reused at once (the values given to
// Query are not copied, so do not modify them in place). This is a cqlbridge extension.
func (s *Session) ExecuteBatchAsync(b *Batch) *future.ResponseFuture {
	if s == nil || b == nil {
		return future.Start(context.Background(), &batchRequester{s: s}, futureOptions(nil))
	}
	c := *b
	c.Entries = slices.Clone(b.Entries)
	return future.Start(b.Context(), &batchRequester{s: s, b: &c}, futureOptions(s))
}

func futureOptions(s *Session) future.Options {
	opts := future.Options{Timeout: future.NoTimeout}
	if s != nil && s.cfg.Timeout > 0 {
		opts.Timeout = s.cfg.Timeout
	}
	return opts
}

// queryRequester runs each page of a query through Session.executeQuery in its own goroutine.
type queryRequester struct {
	s *Session
	q *Query // a copy of the caller's query, never modified
}

func (r *queryRequester) Request(ctx context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	// Query.Iter's checks; nothing is sent.
	if r.q != nil {
		if err := r.q.refused(); err != nil {
			return donePending(&Iter{err: err})
		}
	}
	if r.s == nil || r.q == nil {
		return donePending(&Iter{err: errNoSession})
	}
	qc := r.q.shallowCopy()
	if pagingState != nil {
		qc.pageState = pagingState
		qc.metrics = newQueryMetrics() // a page is a new query, as in gocql (C32)
	}
	qc.disableAutoPage = true
	return r.s.startPending(ctx, timeout, false, func(ctx context.Context) *Iter {
		qc.context = ctx
		return r.s.executeQuery(qc)
	})
}

// batchRequester runs a batch through Session.executeBatch.
type batchRequester struct {
	s *Session
	b *Batch
}

func (r *batchRequester) Request(ctx context.Context, _ []byte, timeout time.Duration) future.Pending {
	switch {
	case r.s == nil:
		return donePending(&Iter{err: errNoSession})
	case r.b == nil:
		return donePending(&Iter{err: errNilBatch})
	}
	return r.s.startPending(ctx, timeout, true, func(ctx context.Context) *Iter {
		return r.s.executeBatch(r.b.WithContext(ctx))
	})
}

// startPending runs exec on one of the session's kept goroutines (see Session.async) under ctx
// (bounded by timeout when positive); batch says its result is a batch's (see
// future.NewBatchResponse). A panic in exec (in an observer, a policy, a tracer or a Bind
// function of the application) completes the page with an error instead of ending the program:
// nothing else could recover it.
func (s *Session) startPending(ctx context.Context, timeout time.Duration, batch bool, exec func(context.Context) *Iter) *iterPending {
	p := &iterPending{done: make(chan struct{}), batch: batch}
	cancel := context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	run := func() {
		completed := false
		defer func() {
			cancel()
			if !completed {
				// exec ended the goroutine (runtime.Goexit, e.g. t.FailNow in an observer).
				p.complete(&Iter{err: errAsyncExited})
			}
		}()
		it := recoverExec(ctx, exec)
		completed = true
		p.complete(it)
	}
	if !s.async.Go(run) {
		go run() // the session is closed: the execution fails at once with ErrSessionClosed
	}
	return p
}

// errAsyncExited is the error of an asynchronous execution whose goroutine the application's
// code ended with runtime.Goexit.
var errAsyncExited = errors.New("gocql: the asynchronous execution's goroutine exited without a result (runtime.Goexit in an observer or policy?)")

// recoverExec runs exec, turning a panic into the page's error.
func recoverExec(ctx context.Context, exec func(context.Context) *Iter) (it *Iter) {
	defer func() {
		if r := recover(); r != nil {
			it = &Iter{err: fmt.Errorf("gocql: panic during an asynchronous execution (in an observer, policy, tracer or Bind function?): %v", r)}
		}
	}()
	return exec(ctx)
}

func donePending(it *Iter) *iterPending {
	p := &iterPending{done: make(chan struct{})}
	p.complete(it)
	return p
}

// iterPending is a page in flight: it completes with the page's *Iter. It implements
// future.Pending and future.Notifier.
type iterPending struct {
	batch bool // the page is a batch's result (see future.NewBatchResponse)
	done  chan struct{}
	iter  *Iter
	mu    sync.Mutex
	hooks []func()
	fired bool
}

func (p *iterPending) complete(it *Iter) {
	p.iter = it
	close(p.done)
	p.mu.Lock()
	hooks := p.hooks
	p.hooks = nil
	p.fired = true
	p.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// Done is closed when the page has completed.
func (p *iterPending) Done() <-chan struct{} { return p.done }

// OnDone runs fn once the page has completed (at once when it already has).
func (p *iterPending) OnDone(fn func()) {
	p.mu.Lock()
	if p.fired {
		p.mu.Unlock()
		fn()
		return
	}
	p.hooks = append(p.hooks, fn)
	p.mu.Unlock()
}

// Response returns the page, or the gocql error of the execution.
func (p *iterPending) Response() (future.Response, error) {
	if p.iter.err != nil {
		return nil, p.iter.err
	}
	if p.iter.res == nil {
		return nil, errNoResult
	}
	if p.batch {
		return future.NewBatchResponse(p.iter.res), nil
	}
	return future.NewResponse(p.iter.res), nil
}

var _ future.Notifier = (*iterPending)(nil)

// errNoSession is returned by futures of queries that were not created by a session.
var errNoSession = errors.New("gocql: query was not created by a session")

// errNoResult reports an execution that ended without a result or an error (it cannot
// happen unless the core misbehaves).
var errNoResult = errors.New("gocql: execution returned no result")
