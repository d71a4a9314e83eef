package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// counted returns a pool whose goroutines are counted in live, running items with run.
func counted(run func(int), live *atomic.Int32) *Pool[int] {
	return &Pool[int]{
		Run:     run,
		Started: func() { live.Add(1) },
		Ended:   func() { live.Add(-1) },
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after 10s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestItemsRunOnKeptWorkers(t *testing.T) {
	defer goleak.VerifyNone(t)
	var live atomic.Int32
	done := make(chan int, 1)
	p := counted(func(i int) { done <- i }, &live)
	defer p.Close()
	for i := range 200 {
		if !p.Go(i) {
			t.Fatal("Go refused an item on an open pool")
		}
		if got := <-done; got != i {
			t.Fatalf("ran item %d, want %d", got, i)
		}
	}
	// One item at a time: the worker parks right after sending, so the next item usually finds
	// it; a second worker starts only when the next item comes first.
	waitFor(t, "idle", func() bool { return p.Idle() >= 1 })
	if n := live.Load(); n > 3+1 { // workers and the trimming goroutine
		t.Errorf("%d goroutines after 200 items one at a time, want a few", n)
	}
}

func TestManyAtOnceAndClose(t *testing.T) {
	defer goleak.VerifyNone(t)
	var live atomic.Int32
	var wg sync.WaitGroup
	release := make(chan struct{})
	p := counted(func(int) { <-release; wg.Done() }, &live)
	const n = 50
	wg.Add(n)
	for i := range n {
		p.Go(i)
	}
	if got := live.Load(); got != n {
		t.Errorf("%d goroutines for %d blocked items, want %d", got, n, n)
	}
	close(release)
	wg.Wait()
	waitFor(t, "all idle", func() bool { return p.Idle() == n })
	p.Close()
	p.Close() // idempotent
	if p.Go(1) {
		t.Error("Go accepted an item after Close")
	}
	waitFor(t, "ended", func() bool { return live.Load() == 0 })
	if n := p.Idle(); n != 0 {
		t.Errorf("%d idle workers after Close", n)
	}
}

func TestIdleWorkersEnd(t *testing.T) {
	defer goleak.VerifyNone(t)
	var live atomic.Int32
	var wg sync.WaitGroup
	p := counted(func(int) { wg.Done() }, &live)
	p.SetTick(time.Millisecond)
	defer p.Close()
	for round := range 3 {
		wg.Add(20)
		for i := range 20 {
			p.Go(i)
		}
		wg.Wait()
		waitFor(t, "trimmed", func() bool { return live.Load() == 0 })
		if n := p.Idle(); n != 0 {
			t.Fatalf("round %d: %d idle workers left", round, n)
		}
	}
}

func TestGoexitEndsOnlyItsWorker(t *testing.T) {
	defer goleak.VerifyNone(t)
	var live atomic.Int32
	ran := make(chan int, 1)
	p := counted(func(i int) {
		ran <- i
		if i < 0 {
			runtime.Goexit()
		}
	}, &live)
	defer p.Close()
	for _, i := range []int{1, -1, 2, -2, 3} {
		p.Go(i)
		if got := <-ran; got != i {
			t.Fatalf("ran %d, want %d", got, i)
		}
	}
	p.Close()
	waitFor(t, "ended", func() bool { return live.Load() == 0 })
}
