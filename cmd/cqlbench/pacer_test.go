package main

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pacerModes runs f with a pacer on a timerfd (Linux) and with one on Go timers.
func pacerModes(t *testing.T, f func(t *testing.T, p *pacer)) {
	t.Run("timerfd", func(t *testing.T) {
		p := newPacer(false)
		defer p.close()
		requireTimerFD(t, p)
		f(t, p)
	})
	t.Run("timer", func(t *testing.T) {
		p := newPacer(true)
		defer p.close()
		if p.tfd != nil || p.fallback != nil {
			t.Fatalf("portable pacer: timerfd %v, fallback %v; want neither (Go timers were asked for)", p.tfd, p.fallback)
		}
		f(t, p)
	})
}

// requireTimerFD fails the test when p has no timerfd on Linux (the pacer fell back to Go
// timers, and the timerfd path would go untested), and skips it on other systems.
func requireTimerFD(t *testing.T, p *pacer) {
	t.Helper()
	if p.tfd == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("no timerfd on Linux: the pacer fell back to Go timers")
		}
		t.Skipf("no timerfd on %s", runtime.GOOS)
	}
}

// waitWithin runs p.wait(d) and fails the test if it has not returned after limit (a hang).
func waitWithin(t *testing.T, p *pacer, d, limit time.Duration) (time.Duration, error) {
	t.Helper()
	type result struct {
		err     error
		elapsed time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		err := p.wait(d)
		done <- result{err, time.Since(start)}
	}()
	select {
	case r := <-done:
		return r.elapsed, r.err
	case <-time.After(limit):
		t.Fatalf("wait(%s) has not returned after %s", d, limit)
		return 0, nil
	}
}

// TestPacerWaitsTheWholeDuration: a wait never ends before its duration, repeated waits reuse
// the timer, and waits of zero or less return at once.
func TestPacerWaitsTheWholeDuration(t *testing.T) {
	pacerModes(t, func(t *testing.T, p *pacer) {
		for _, d := range []time.Duration{3 * time.Millisecond, 200 * time.Microsecond, 3 * time.Millisecond} {
			elapsed, err := waitWithin(t, p, d, 10*time.Second)
			if err != nil {
				t.Fatalf("wait(%s): %v", d, err)
			}
			if elapsed < d {
				t.Errorf("wait(%s) returned after %s", d, elapsed)
			}
		}
		for _, d := range []time.Duration{0, -time.Second} {
			if _, err := waitWithin(t, p, d, 10*time.Second); err != nil {
				t.Errorf("wait(%s): %v", d, err)
			}
		}
	})
}

// TestPacerStopEndsWait: stop ends a wait in progress (an hour long) and makes later waits
// return at once, with errPacerStopped.
func TestPacerStopEndsWait(t *testing.T) {
	pacerModes(t, func(t *testing.T, p *pacer) {
		go func() {
			time.Sleep(20 * time.Millisecond) // let the wait start, usually
			p.stop()
			p.stop() // twice is fine
		}()
		if _, err := waitWithin(t, p, time.Hour, 10*time.Second); !errors.Is(err, errPacerStopped) {
			t.Fatalf("wait ended by stop: %v, want errPacerStopped", err)
		}
		if _, err := waitWithin(t, p, time.Hour, 10*time.Second); !errors.Is(err, errPacerStopped) {
			t.Fatalf("wait after stop: %v, want errPacerStopped", err)
		}
	})
}

// TestPacerFallsBackWhenTimerfdFails: a timerfd that fails (here: closed under the pacer)
// makes the pacer finish the wait, and the later ones, on a Go timer, whole.
func TestPacerFallsBackWhenTimerfdFails(t *testing.T) {
	p := newPacer(false)
	defer p.close()
	requireTimerFD(t, p)
	p.tfd.close()
	for range 2 {
		elapsed, err := waitWithin(t, p, 2*time.Millisecond, 10*time.Second)
		if err != nil || elapsed < 2*time.Millisecond {
			t.Fatalf("wait(2ms) on a broken timerfd: %v after %s", err, elapsed)
		}
	}
	if p.timer == nil || p.fallback == nil {
		t.Fatalf("the pacer did not switch to its timer, or does not say why (fallback %v)", p.fallback)
	}
	p.stop()
	if _, err := waitWithin(t, p, time.Hour, 10*time.Second); !errors.Is(err, errPacerStopped) {
		t.Fatalf("wait after stop: %v, want errPacerStopped", err)
	}
}

// TestPacerWaitAllocatesNothing: a wait allocates nothing that would count against the
// driver's allocs/op.
func TestPacerWaitAllocatesNothing(t *testing.T) {
	pacerModes(t, func(t *testing.T, p *pacer) {
		if n := testing.AllocsPerRun(50, func() {
			if err := p.wait(20 * time.Microsecond); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%.1f allocations per wait, want 0", n)
		}
	})
}

// TestCoarsePacersReported: workers whose pacer fell back to Go timers are counted over
// repetitions, and the table says so with the reason; a run without any says nothing.
func TestCoarsePacersReported(t *testing.T) {
	mk := func(coarse int64, why string) *runResult {
		r := &runResult{Driver: "stub", Workload: wlReadPrepared, Concurrency: 4, Ops: 10, Elapsed: time.Second,
			Errors: map[string]int64{}, Request: newHistogram(), Cycle: newHistogram(), Rated: true,
			CoarsePacers: coarse, PacerErr: why}
		_ = r.Request.RecordValue(100)
		_ = r.Cycle.RecordValue(120)
		return r
	}
	var out bytes.Buffer
	printTable(&out, []*runResult{mk(0, "")})
	if strings.Contains(out.String(), "Go timers") {
		t.Errorf("a run with no fallback mentions Go timers:\n%s", out.String())
	}
	r := mk(0, "")
	r.merge(mk(3, "timerfd_create: too many open files"))
	r.merge(mk(1, "another reason"))
	if r.CoarsePacers != 4 || r.PacerErr != "timerfd_create: too many open files" {
		t.Fatalf("merged: %d coarse pacers, reason %q", r.CoarsePacers, r.PacerErr)
	}
	out.Reset()
	printTable(&out, []*runResult{r})
	if want := "stub: 4 workers waited for their scheduled starts on Go timers, not a timerfd (timerfd_create: too many open files)"; !strings.Contains(out.String(), want) {
		t.Errorf("the table does not say %q:\n%s", want, out.String())
	}
}
