package native

import (
	"context"
	"fmt"
	"sync"
	"time"
)

const (
	// asyncTrimTick is the period of the goroutine that ends idle asynchronous workers.
	asyncTrimTick = time.Second
	// asyncIdleTicks is how many ticks of asyncTrimTick a worker stays idle before it ends:
	// between asyncIdleTicks-1 and asyncIdleTicks seconds.
	asyncIdleTicks = 5
)

// asyncWorkers keeps the goroutines that ran a session's asynchronous requests (ExecuteAsync,
// ExecuteBatchAsync, NextPageAsync) for the requests that follow. A new goroutine starts with
// a small stack, and a request's path through the session needs several times that: the
// runtime copied a growing stack for every request, a third of the CPU an asynchronous request
// cost. A kept goroutine keeps its stack. Idle workers wait, most recently used first, and a
// worker idle for about asyncIdleTicks seconds ends, so a burst of requests leaves no
// goroutines behind for long; Close ends the idle ones at once.
//
// Each worker counts in the session's goroutineSet from its start to its end, so Close waits
// for the workers running a request, and hands-off need no Add of their own.
type asyncWorkers struct {
	mu       sync.Mutex
	idle     []*asyncWorker // the idle workers, the most recently used last
	closed   bool           // set by Close: no worker is kept or handed a request
	epoch    uint64         // ticks of the trimming goroutine
	trimming bool           // the trimming goroutine runs
	tick     time.Duration  // the trimming period; 0: asyncTrimTick (tests shorten it)
}

// asyncWorker is one kept goroutine.
type asyncWorker struct {
	tasks chan asyncTask // capacity 1: a hand-off never blocks; closed to end the worker
	epoch uint64         // asyncWorkers.epoch when the worker went idle
}

// asyncTask is an asynchronous request: f runs it and p completes with its outcome.
type asyncTask struct {
	p *Pending
	f func() (*Result, error)
}

// goAsync runs f on an idle worker, or on a new one when none is idle, and completes p with its
// outcome; p fails with ErrSessionClosed at once, and started is false, when the session is
// closed. Close waits for the worker until p is complete (p's OnDone hooks run as the
// worker's callbacks, so that a hook may call Close without deadlocking).
func (s *Session) goAsync(p *Pending, f func() (*Result, error)) (started bool) {
	t := asyncTask{p: p, f: f}
	a := &s.async
	a.mu.Lock()
	// Close sets s.closed before it closes the workers (under a.mu) and waits for the
	// session's goroutines: a worker added here, before that, is waited for.
	if a.closed || s.closed.Load() {
		a.mu.Unlock()
		p.complete(nil, ErrSessionClosed)
		return false
	}
	var w *asyncWorker
	if n := len(a.idle); n > 0 {
		w = a.idle[n-1]
		a.idle[n-1] = nil
		a.idle = a.idle[:n-1]
	} else {
		s.wg.Add(1)
	}
	a.mu.Unlock()
	if w != nil {
		w.tasks <- t
	} else {
		go s.asyncWorker(t)
	}
	return true
}

// asyncWorker runs t, then the tasks handed to it while it is idle, until the trimming
// goroutine or Close ends it.
func (s *Session) asyncWorker(t asyncTask) {
	// Also when a policy or observer ends the goroutine with runtime.Goexit (runTask
	// completes the request first).
	defer s.wg.Done()
	w := &asyncWorker{tasks: make(chan asyncTask, 1)}
	for {
		s.runTask(t)
		if !s.async.park(s, w) {
			return
		}
		var ok bool
		if t, ok = <-w.tasks; !ok {
			return
		}
	}
}

// runTask runs t and completes its Pending. A user's policy or observer may panic or call
// runtime.Goexit in t.f: there is no caller to panic in, so the request completes with an
// error saying so, and the session and the Pending are not left waiting.
func (s *Session) runTask(t asyncTask) {
	var res *Result
	err := errAsyncExited
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("native: panic in a policy or observer during an asynchronous request: %v", r)
		}
		t.p.settle(res, err)
		t.p.fireIn(&s.wg)
	}()
	res, err = t.f()
}

// park adds w to the idle workers, or reports false when the session is closing (w then ends).
// It starts the trimming goroutine when none runs.
func (a *asyncWorkers) park(s *Session, w *asyncWorker) bool {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return false
	}
	w.epoch = a.epoch
	a.idle = append(a.idle, w)
	startTrim := !a.trimming
	a.trimming = true
	a.mu.Unlock()
	if startTrim {
		s.goBackground(a.trim)
	}
	return true
}

// trim ends, every asyncTrimTick, the workers idle for asyncIdleTicks ticks, and returns when no
// worker is idle or the session closes.
func (a *asyncWorkers) trim(ctx context.Context) {
	a.mu.Lock()
	d := a.tick
	a.mu.Unlock()
	if d <= 0 {
		d = asyncTrimTick
	}
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		a.mu.Lock()
		a.epoch++
		n := 0 // the idle workers to end: the least recently used, first in a.idle
		for n < len(a.idle) && a.epoch-a.idle[n].epoch >= asyncIdleTicks {
			close(a.idle[n].tasks)
			n++
		}
		if n > 0 {
			left := copy(a.idle, a.idle[n:])
			clear(a.idle[left:])
			a.idle = a.idle[:left]
		}
		if len(a.idle) == 0 {
			a.trimming = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
	}
}

// close ends the idle workers and keeps no other: the running ones end after their request.
func (a *asyncWorkers) close() {
	a.mu.Lock()
	a.closed = true
	for _, w := range a.idle {
		close(w.tasks)
	}
	a.idle = nil
	a.mu.Unlock()
}
