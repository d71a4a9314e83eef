package native

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Pending is a request in flight, returned by the Async methods of Session and Result. Its
// completion is a channel, so one goroutine can start thousands of requests and select on
// them. A Pending completes exactly once, with a Result or an error.
type Pending struct {
	done  chan struct{}
	res   *Result
	err   error
	mu    sync.Mutex
	hook  func()   // the first OnDone function, kept inline: one hook costs no allocation
	hooks []func() // the following ones
	fired bool
}

func newPending() *Pending { return &Pending{done: make(chan struct{})} }

// donePending returns an already completed Pending.
func donePending(res *Result, err error) *Pending {
	p := newPending()
	p.complete(res, err)
	return p
}

// Done returns a channel closed when the request has completed (for a Pending that no
// Async method returned, such as the zero value or nil, one that is closed already).
func (p *Pending) Done() <-chan struct{} {
	if p == nil || p.done == nil {
		return closedChan
	}
	return p.done
}

// closedChan is the Done channel of a Pending no Async method returned.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// errNotStarted is the outcome of a Pending no Async method returned.
var errNotStarted = errors.New("native: the Pending was not returned by an Async method: no request was started")

// Result waits for the request to complete and returns its outcome. It can be called any
// number of times, from any goroutine. For a Pending that no Async method returned (the zero
// value, or nil) it returns an error at once.
func (p *Pending) Result() (*Result, error) {
	if p == nil || p.done == nil {
		return nil, errNotStarted
	}
	<-p.done
	return p.res, p.err
}

// Wait is Result bounded by ctx: it waits for the request to complete or for ctx to end,
// whichever comes first, and returns the request's outcome, or an error wrapping ctx.Err()
// when ctx ended first (a request that has completed by then returns its outcome). ctx ending
// abandons only the wait, not the request, which the context given to the Async method
// governs: a later Wait or Result still returns its outcome. For a Pending that no Async
// method returned (the zero value, or nil), and for a nil ctx, it returns an error at once.
func (p *Pending) Wait(ctx context.Context) (*Result, error) {
	if ctx == nil {
		return nil, errNilContext
	}
	if p == nil || p.done == nil {
		return nil, errNotStarted
	}
	select {
	case <-p.done:
		return p.res, p.err
	default:
	}
	select {
	case <-p.done:
		return p.res, p.err
	case <-ctx.Done():
		return nil, fmt.Errorf("native: waiting for the request: %w", ctx.Err())
	}
}

// OnDone arranges for f to run once p has completed: in a goroutine of the session (the one
// that ran the request, or a worker when the connection's reader completed it), in
// registration order with the other functions given to OnDone before p completed, or
// immediately in the caller's goroutine, before OnDone returns, when p has already completed
// (or no Async method returned it, the zero value or nil). A function given after p completed
// may so run while, in the session's goroutine, functions given earlier are still running. f
// must not block: it delays the completion of other requests. As with time.AfterFunc, a panic
// in f, which runs in the session's goroutine, ends the program. A hook that ends its
// goroutine (runtime.Goexit) does not keep the following ones from running. A nil f is
// ignored.
func (p *Pending) OnDone(f func()) {
	if f == nil {
		return
	}
	if p == nil || p.done == nil {
		f()
		return
	}
	select {
	case <-p.done:
		// Completed (Done is closed): run now, even if the completing goroutine is still
		// running earlier hooks.
		f()
		return
	default:
	}
	p.mu.Lock()
	if p.fired {
		p.mu.Unlock()
		f()
		return
	}
	if p.hook == nil && len(p.hooks) == 0 {
		p.hook = f
	} else {
		p.hooks = append(p.hooks, f)
	}
	p.mu.Unlock()
}

// complete records the outcome, wakes the waiters and runs the hooks.
func (p *Pending) complete(res *Result, err error) {
	p.settle(res, err)
	p.fire()
}

// settle records the outcome and wakes the waiters; fire must follow.
func (p *Pending) settle(res *Result, err error) {
	p.res, p.err = res, err
	close(p.done)
}

// hasHooks reports whether hooks wait to be run by fire; when none does, it marks p as fire
// would, so that hooks registered from now on run at once.
func (p *Pending) hasHooks() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hook == nil && len(p.hooks) == 0 {
		p.fired = true
		return false
	}
	return true
}

// fire runs the hooks registered so far, and marks p so that later ones run at once.
func (p *Pending) fire() { p.fireIn(nil) }

// fireIn is fire in a goroutine of g (nil: of none): the hooks run as g's callbacks (see
// goroutineSet.callback), so that a hook may call Session.Close, which does not wait for a
// goroutine while it runs a callback.
func (p *Pending) fireIn(g *goroutineSet) {
	for {
		p.mu.Lock()
		hook, hooks := p.hook, p.hooks
		p.hook, p.hooks = nil, nil
		if hook == nil && len(hooks) == 0 {
			p.fired = true
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		run := func() {
			finished := false
			defer func() {
				if !finished {
					// A hook ended the goroutine (runtime.Goexit, as t.FailNow does) or
					// panicked (which ends the program): the others still run, elsewhere.
					go p.fireRest(hooks)
				}
			}()
			if hook != nil {
				hook()
			}
			for len(hooks) > 0 {
				f := hooks[0]
				hooks = hooks[1:]
				f()
			}
			finished = true
		}
		if g != nil {
			g.callback(true, nil, run)
		} else {
			run()
		}
	}
}

// fireRest runs hooks, the ones left when a hook ended its goroutine, then the hooks
// registered meanwhile.
func (p *Pending) fireRest(hooks []func()) {
	for _, f := range hooks {
		f()
	}
	p.fireIn(nil)
}
