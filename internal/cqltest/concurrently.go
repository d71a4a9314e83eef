package cqltest

import (
	"sync"
	"testing"
)

// Concurrently runs fn(0) to fn(n-1) in n goroutines at once, waits for all of them, and
// fails the test with the first error any of them returned.
func Concurrently(tb testing.TB, n int, fn func(g int) error) {
	tb.Helper()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(g); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		tb.Fatalf("goroutine failed: %v", err)
	}
}

// RunWorkers starts n goroutines, each calling step(w, i) for i = 0, 1, ... until stop is
// closed or step returns false; wait on the returned WaitGroup for them to end.
func RunWorkers(n int, stop <-chan struct{}, step func(w, i int) bool) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if !step(w, i) {
					return
				}
			}
		}()
	}
	return &wg
}
