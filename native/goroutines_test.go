package native

import (
	"testing"
	"time"
)

// waitReturns reports whether g.Wait returns within d (leaving it waiting otherwise).
func waitReturns(g *goroutineSet, d time.Duration) (chan struct{}, bool) {
	done := make(chan struct{})
	go func() {
		g.Wait()
		close(done)
	}()
	select {
	case <-done:
		return done, true
	case <-time.After(d):
		return done, false
	}
}

func TestGoroutineSetWaitsForAllButCallbacks(t *testing.T) {
	var g goroutineSet
	if _, ok := waitReturns(&g, 5*time.Second); !ok {
		t.Fatal("Wait on an empty set did not return")
	}
	g.Add(2)
	done, ok := waitReturns(&g, 50*time.Millisecond)
	if ok {
		t.Fatal("Wait returned with two goroutines running")
	}
	g.Done()
	select {
	case <-done:
		t.Fatal("Wait returned with one goroutine running")
	case <-time.After(50 * time.Millisecond):
	}
	// The last goroutine enters a callback: Wait no longer waits for it.
	entered, release := make(chan struct{}), make(chan struct{})
	go g.callback(true, nil, func() {
		close(entered)
		<-release
	})
	<-entered
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return while the only goroutine left ran a callback")
	}
	close(release)
	// Out of the callback the goroutine counts again until Done.
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		in := g.inCallback
		g.mu.Unlock()
		if in == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the callback's end was not counted")
		}
		time.Sleep(time.Millisecond)
	}
	done, ok = waitReturns(&g, 50*time.Millisecond)
	if ok {
		t.Fatal("Wait returned with a goroutine running after its callback")
	}
	g.Done()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after the last Done")
	}
}

// A callback from a goroutine outside the set runs without changing what Wait waits for.
func TestGoroutineSetCallbackOutsideTheSet(t *testing.T) {
	var g goroutineSet
	g.Add(1)
	ran := false
	g.callback(false, nil, func() {
		ran = true
		if _, ok := waitReturns(&g, 50*time.Millisecond); ok {
			t.Error("Wait returned during a callback from outside the set, with a goroutine running")
		}
	})
	if !ran {
		t.Fatal("the callback did not run")
	}
	g.Done()
}

func TestGoroutineSetDoneWithoutAddPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Done without Add did not panic")
		}
	}()
	var g goroutineSet
	g.Done()
}

// Two goroutines working for one member (a request's speculative attempts) in callbacks at once
// count as one member in a callback: Wait still waits for the other member.
func TestGoroutineSetSharedDepthCountsOnce(t *testing.T) {
	var g goroutineSet
	g.Add(2) // the request with speculative attempts, and another request
	depth := new(int)
	entered, release := make(chan struct{}, 2), make(chan struct{})
	for range 2 {
		go g.callback(true, depth, func() {
			entered <- struct{}{}
			<-release
		})
	}
	<-entered
	<-entered
	done, ok := waitReturns(&g, 100*time.Millisecond)
	if ok {
		t.Fatal("Wait returned while the other request was running (two attempts of one request in callbacks counted twice)")
	}
	g.Done() // the other request ends
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return with only the request in callbacks left")
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		in, d := g.inCallback, *depth
		g.mu.Unlock()
		if in == 0 && d == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the callbacks: inCallback %d, depth %d, want 0 and 0", in, d)
		}
		time.Sleep(time.Millisecond)
	}
	g.Done()
}
