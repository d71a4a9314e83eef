package main

import (
	"errors"
	"sync"
	"time"
)

// errPacerStopped is the error of a wait that the pacer's stop ended.
var errPacerStopped = errors.New("pacer stopped")

// pacer makes a worker wait for the scheduled start of its next operation (--rate).
//
// Go's timers are late by up to a millisecond when the process has nothing else to do: a
// processor with no work blocks in epoll_wait, whose timeout is in whole milliseconds, so a
// 300 µs wait ends after about 1.1 ms on the benchmark machine. That lateness would be part of
// every operation's cycle latency, for every driver alike. On Linux the pacer therefore waits on
// a timerfd, a kernel timer the network poller watches like a socket, which wakes the worker
// within a few tens of microseconds; elsewhere (or when no timerfd can be had) it uses a
// time.Timer.
//
// A pacer belongs to one worker; stop may be called from any goroutine.
type pacer struct {
	tfd *timerFD // nil: the timer below is used; set once, read by stop
	// fallback is why a pacer asked for a timerfd uses Go timers (none could be made, or it
	// failed: the timer is then used although tfd is set); nil otherwise. Read it only once
	// the pacer's waits are over.
	fallback error
	timer    *time.Timer // made once, reset for every wait: waiting allocates nothing
	stopped  chan struct{}
	stopOnce sync.Once
}

// newPacer returns a pacer waiting on a timerfd where the system has one (unless portable is
// set), else on a time.Timer.
func newPacer(portable bool) *pacer {
	p := &pacer{stopped: make(chan struct{})}
	if !portable {
		t, err := newTimerFD()
		if err == nil {
			p.tfd = t
			return p
		}
		p.fallback = err
	}
	p.timer = stoppedTimer()
	return p
}

// stoppedTimer returns a timer that has not been started: waits Reset it.
func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// wait returns nil after d, or errPacerStopped as soon as stop is called (at once when it was
// called before). A d of zero or less returns at once. Should the timerfd fail, the pacer goes
// on with a time.Timer.
func (p *pacer) wait(d time.Duration) error {
	select {
	case <-p.stopped:
		return errPacerStopped
	default:
	}
	if d <= 0 {
		return nil
	}
	if p.tfd != nil && p.fallback == nil {
		until := time.Now().Add(d)
		err := p.tfd.sleep(d)
		select {
		case <-p.stopped:
			return errPacerStopped
		default:
		}
		if err == nil {
			return nil
		}
		// The timerfd failed (it should not): the rest of this wait and the later ones use
		// a time.Timer.
		p.fallback, p.timer = err, stoppedTimer()
		if d = time.Until(until); d <= 0 {
			return nil
		}
	}
	p.timer.Reset(d)
	select {
	case <-p.timer.C:
		return nil
	case <-p.stopped:
		p.timer.Stop()
		return errPacerStopped
	}
}

// stop ends the wait in progress and every later one. It may be called more than once, from
// any goroutine.
func (p *pacer) stop() {
	p.stopOnce.Do(func() {
		close(p.stopped)
		if p.tfd != nil {
			p.tfd.interrupt()
		}
	})
}

// close stops the pacer and releases its timer. The pacer must not be used afterwards.
func (p *pacer) close() {
	p.stop()
	if p.tfd != nil {
		p.tfd.close()
	}
}
