package native

import "fmt"

// asyncTask is an asynchronous request (ExecuteAsync, ExecuteBatchAsync, NextPageAsync): f
// runs it and p completes with its outcome. Without f, p is complete and its OnDone hooks run.
type asyncTask struct {
	p *Pending
	f func() (*Result, error)
}

// initAsync sets up the session's pool of goroutines for asynchronous requests. A new
// goroutine per request grew its stack on every request (the request's path needs several
// times a new goroutine's stack), a third of the CPU an asynchronous request cost; the pool's
// workers keep theirs. They count in the session's goroutineSet from start to end, so Close
// waits for those running a request, and they end after about five idle seconds or at Close.
func (s *Session) initAsync() {
	s.async.Run = s.runTask
	s.async.Started = func() { s.wg.Add(1) }
	s.async.Ended = s.wg.Done
}

// goAsync runs f on one of the session's workers and completes p with its outcome; p fails
// with ErrSessionClosed at once, and started is false, when the session is closed. Close waits
// for the worker until p is complete (p's OnDone hooks run as the worker's callbacks, so that
// a hook may call Close without deadlocking).
func (s *Session) goAsync(p *Pending, f func() (*Result, error)) (started bool) {
	// Close sets s.closed, then closes the pool and waits for the session's goroutines: a worker
	// the pool starts before it closes is counted (Started, under the pool's lock) and waited for.
	if s.closed.Load() || !s.async.Go(asyncTask{p: p, f: f}) {
		p.complete(nil, ErrSessionClosed)
		return false
	}
	return true
}

// runTask runs t and completes its Pending. A user's policy or observer may panic or call
// runtime.Goexit in t.f: there is no caller to panic in, so the request completes with an
// error saying so (wrapping the panic's value when it is an error), and the session and the
// Pending are not left waiting (after a Goexit the worker ends; after a panic it serves the
// next request).
func (s *Session) runTask(t asyncTask) {
	if t.f == nil { // the hooks of a request completed without a worker (see detached)
		t.p.fireIn(&s.wg)
		return
	}
	var res *Result
	err := errAsyncExited
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok { // wrapped, for errors.Is and errors.As
				err = fmt.Errorf("native: panic in a policy or observer during an asynchronous request: %w", e)
			} else {
				err = fmt.Errorf("native: panic in a policy or observer during an asynchronous request: %v", r)
			}
		}
		t.p.settle(res, err)
		t.p.fireIn(&s.wg)
	}()
	res, err = t.f()
}
