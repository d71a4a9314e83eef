package workpool

import (
	"sync"
	"time"
)

const (
	// DefaultTick is the trimming period of a Pool whose Tick is zero.
	DefaultTick = time.Second
	// idleTicks is how many trimming periods a worker stays idle before it ends: between
	// idleTicks-1 and idleTicks periods.
	idleTicks = 5
)

// Pool runs items of type T with Run on kept goroutines. Set Run (and the optional fields)
// before the first Go; a Pool must not be copied after that. The zero Pool with Run set is
// ready to use.
type Pool[T any] struct {
	// Run does the work of one item. A panic in Run is not recovered: recover in Run if the
	// program must survive one. When Run ends its goroutine (runtime.Goexit), the worker ends.
	Run func(T)
	// Started, when set, is called whenever a goroutine of the pool starts (a worker, or the
	// trimming goroutine), before Go or the worker returning to idleness returns, and under
	// the pool's lock, so that it happens before Close returns; Ended is called when that
	// goroutine ends. A caller that waits for its goroutines (a WaitGroup) counts them here.
	Started, Ended func()

	mu       sync.Mutex
	tick     time.Duration // the trimming period (see SetTick)
	idle     []*worker[T]  // the idle workers, the most recently used last
	closed   bool
	epoch    uint64 // trimming periods elapsed
	trimming bool   // the trimming goroutine runs
	stop     chan struct{}
}

// worker is one kept goroutine.
type worker[T any] struct {
	items chan T // capacity 1: a hand-off never blocks; closed to end the worker
	epoch uint64 // Pool.epoch when the worker went idle
}

// Go runs Run(item) on an idle worker, or on a new one when none is idle. It returns false,
// and does nothing, once the pool is closed.
func (p *Pool[T]) Go(item T) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	var w *worker[T]
	if n := len(p.idle); n > 0 {
		w = p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
	} else if p.Started != nil {
		p.Started()
	}
	p.mu.Unlock()
	if w != nil {
		w.items <- item
	} else {
		go p.work(item)
	}
	return true
}

// work runs item, then the items handed to it while it is idle, until it is trimmed or the pool
// closes.
func (p *Pool[T]) work(item T) {
	if p.Ended != nil {
		defer p.Ended() // also when Run ends the goroutine (runtime.Goexit)
	}
	w := &worker[T]{items: make(chan T, 1)}
	for {
		p.Run(item)
		if !p.park(w) {
			return
		}
		var ok bool
		if item, ok = <-w.items; !ok {
			return
		}
	}
}

// park adds w to the idle workers, or reports false when the pool is closed. It starts the
// trimming goroutine when none runs.
func (p *Pool[T]) park(w *worker[T]) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	w.epoch = p.epoch
	p.idle = append(p.idle, w)
	if !p.trimming {
		p.trimming = true
		if p.stop == nil {
			p.stop = make(chan struct{})
		}
		if p.Started != nil {
			p.Started()
		}
		go p.trim(p.stop)
	}
	return true
}

// trim ends, every period, the workers idle for idleTicks periods, and returns when no worker
// is idle or the pool closes.
func (p *Pool[T]) trim(stop <-chan struct{}) {
	if p.Ended != nil {
		defer p.Ended()
	}
	p.mu.Lock()
	d := p.tick
	p.mu.Unlock()
	if d <= 0 {
		d = DefaultTick
	}
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		p.mu.Lock()
		p.epoch++
		n := 0 // the workers to end: the least recently used, first in p.idle
		for n < len(p.idle) && p.epoch-p.idle[n].epoch >= idleTicks {
			close(p.idle[n].items)
			n++
		}
		if n > 0 {
			left := copy(p.idle, p.idle[n:])
			clear(p.idle[left:])
			p.idle = p.idle[:left]
		}
		if len(p.idle) == 0 {
			p.trimming = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// SetTick sets the trimming period (DefaultTick when d is not positive): workers idle for about
// five periods end. It applies from the next time the trimming goroutine starts (when a worker
// goes idle while none runs).
func (p *Pool[T]) SetTick(d time.Duration) {
	p.mu.Lock()
	p.tick = d
	p.mu.Unlock()
}

// Idle returns how many workers wait for an item.
func (p *Pool[T]) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// Close ends the idle workers and the trimming goroutine, and makes Go refuse new items. The
// workers running an item end when it is done; Close does not wait for them (count them with
// Started and Ended to wait). Close is idempotent.
func (p *Pool[T]) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, w := range p.idle {
		close(w.items)
	}
	p.idle = nil
	if p.stop != nil {
		close(p.stop)
	}
}
