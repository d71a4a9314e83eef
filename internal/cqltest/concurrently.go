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
