package native

import (
	"context"
	"sync/atomic"
	"time"
)

const (
	// coarseTick is the period of a session's coarse clock: request timeouts of at least
	// coarseMin are checked on its ticks, so they fire up to coarseTick late.
	coarseTick = 10 * time.Millisecond
	// coarseMin is the shortest timeout checked on the coarse clock; shorter ones arm a
	// timer of their own.
	coarseMin = time.Second
)

// coarseClock lets many waiting requests share one timer. Its channel is closed every
// coarseTick (and replaced by a new one) while some request waits on it; a waiter then
// compares the clock with its own deadline and waits again. A timer per request costs two
// runtime timer-heap changes per wait, which at high concurrency is a measurable share of
// a request's CPU; one shared ticker costs 100 wake-ups a second, and only while requests wait.
type coarseClock struct {
	cur     atomic.Pointer[chan struct{}]
	waiters atomic.Int32
	wake    chan struct{}
}

func newCoarseClock() *coarseClock {
	k := &coarseClock{wake: make(chan struct{}, 1)}
	ch := make(chan struct{})
	k.cur.Store(&ch)
	return k
}

// enter registers a waiter and returns the current tick channel; call leave when done.
func (k *coarseClock) enter() <-chan struct{} {
	if k.waiters.Add(1) == 1 {
		select {
		case k.wake <- struct{}{}:
		default:
		}
	}
	return *k.cur.Load()
}

// next returns the current tick channel (after the one a waiter saw closed).
func (k *coarseClock) next() <-chan struct{} { return *k.cur.Load() }

// leave unregisters a waiter.
func (k *coarseClock) leave() { k.waiters.Add(-1) }

// run ticks until ctx ends, sleeping while nobody waits.
func (k *coarseClock) run(ctx context.Context) {
	t := time.NewTicker(coarseTick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		ch := make(chan struct{})
		close(*k.cur.Swap(&ch))
		if k.waiters.Load() > 0 {
			continue
		}
		// Nobody waits: sleep until a waiter arrives (drain a stale wake first, then look
		// again, so a waiter that arrived meanwhile is not missed).
		t.Stop()
		select {
		case <-k.wake:
		default:
		}
		if k.waiters.Load() == 0 {
			select {
			case <-k.wake:
			case <-ctx.Done():
				return
			}
		}
		t.Reset(coarseTick)
	}
}
