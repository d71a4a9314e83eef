package native

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/native/internal/conn"
)

const (
	// coarseTick is the period of a session's coarse clock: request timeouts of at least
	// coarseMin are checked on its ticks, so they fire up to coarseTick late.
	coarseTick = 10 * time.Millisecond
	// coarseMin is the shortest timeout checked on the coarse clock; shorter ones arm a
	// timer of their own.
	coarseMin = time.Second
)

// errCoarseTimeout is the error the coarse clock completes a timed-out call with (see
// conn.Call.Interrupt); the waiting request turns it into its timeout error.
var errCoarseTimeout = errors.New("native: request timeout passed (coarse clock)")

// coarseClock checks the long timeouts of waiting requests with one ticker for the whole
// session. A waiting request registers its call and deadline (add) and waits on the call's
// completion channel alone; every coarseTick, while some request is registered, the clock
// interrupts the calls whose deadline passed (conn.Call.Interrupt with errCoarseTimeout),
// which wakes their callers. A timer per request costs two runtime timer-heap changes per
// wait, and a channel shared by all waiters costs every wait a select over one more,
// contended, channel: at high concurrency either is a measurable share of a request's CPU.
// The clock's ticker runs only while some request waits.
type coarseClock struct {
	mu    sync.Mutex
	waits []*coarseWait // the registered waits; each knows its index
	wake  chan struct{} // wakes a sleeping clock when the first wait registers
}

// coarseWait is one registered wait: a call whose owner waits for it and has not released it.
type coarseWait struct {
	call *conn.Call
	end  time.Time
	idx  int // index in coarseClock.waits while registered
}

func newCoarseClock() *coarseClock {
	return &coarseClock{wake: make(chan struct{}, 1)}
}

// add registers w (call and end set); the caller must remove it before releasing w.call.
func (k *coarseClock) add(w *coarseWait) {
	k.mu.Lock()
	w.idx = len(k.waits)
	k.waits = append(k.waits, w)
	first := w.idx == 0
	k.mu.Unlock()
	if first {
		select {
		case k.wake <- struct{}{}:
		default:
		}
	}
}

// remove unregisters w. Once it returns, the clock no longer touches w.call.
func (k *coarseClock) remove(w *coarseWait) {
	k.mu.Lock()
	last := len(k.waits) - 1
	moved := k.waits[last]
	k.waits[w.idx] = moved
	moved.idx = w.idx
	k.waits[last] = nil
	k.waits = k.waits[:last]
	k.mu.Unlock()
	w.call = nil
}

// expire interrupts the registered calls whose deadline is not after now, and reports whether
// any wait is registered.
func (k *coarseClock) expire(now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, w := range k.waits {
		if !now.Before(w.end) {
			// Fails harmlessly when the response came first, or on a second expiry.
			w.call.Interrupt(errCoarseTimeout)
		}
	}
	return len(k.waits) > 0
}

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
		if k.expire(time.Now()) {
			continue
		}
		// Nobody waits: sleep until a waiter arrives (drain a stale wake first, then look
		// again, so a waiter that arrived meanwhile is not missed).
		t.Stop()
		select {
		case <-k.wake:
		default:
		}
		if !k.waiting() {
			select {
			case <-k.wake:
			case <-ctx.Done():
				return
			}
		}
		t.Reset(coarseTick)
	}
}

// waiting reports whether some wait is registered.
func (k *coarseClock) waiting() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.waits) > 0
}
