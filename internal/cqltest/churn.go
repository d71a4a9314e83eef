package cqltest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// RollingRestart is what RollingRestarts ran: the operations that succeeded, and how many of
// them each node answered after the first restart.
type RollingRestart struct {
	OK     int
	Served map[string]int
}

// RollingRestarts runs op over and over in workers goroutines (op gets the goroutine's number
// and a counter of its calls, and returns the address of the node that answered) while the
// nodes of cl restart one after another, each stopped for 400 ms, twice round the cluster in
// the order 1, 2, 0 (node 0 is usually the contact point and the control connection's node).
// It then lets the operations run until every node has answered one since the first restart
// (unless op never names a node: it returns "" when it cannot tell), and fails the test when
// that does not happen within 30 s, when any operation failed (listing the first five), or
// when fewer than 1,000 succeeded.
func RollingRestarts(tb testing.TB, cl *cqlsim.Cluster, workers int, op func(worker, i int) (host string, err error)) RollingRestart {
	tb.Helper()
	var (
		mu        sync.Mutex
		ok        int
		failed    []string
		served    = map[string]int{}
		named     bool // op named a node
		restarted = make(chan struct{})
		stop      = make(chan struct{})
	)
	wg := RunWorkers(workers, stop, func(w, i int) bool {
		host, err := op(w, i)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed = append(failed, fmt.Sprintf("goroutine %d, operation %d: %v", w, i, err))
			return true
		}
		ok++
		if host != "" {
			named = true
			select {
			case <-restarted:
				served[host]++
			default:
			}
		}
		return true
	})
	finish := func() {
		close(stop)
		wg.Wait()
	}
	n := len(cl.Addrs())
	for round := range 2 * n {
		node := (round + 1) % n
		time.Sleep(400 * time.Millisecond)
		err := cl.StopNode(node)
		if err == nil {
			time.Sleep(400 * time.Millisecond)
			err = cl.StartNode(node)
		}
		if err != nil {
			finish()
			tb.Fatalf("restarting node %d: %v", node, err)
		}
		if round == 0 {
			close(restarted)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		all := len(served) == n || !named
		mu.Unlock()
		if all {
			break
		}
		if time.Now().After(deadline) {
			finish()
			tb.Fatalf("30s after the restarts only %d of %d nodes had answered since the first restart: %v", len(served), n, served)
		}
	}
	finish()
	if len(failed) > 0 {
		tb.Errorf("%d of %d operations failed during rolling restarts; the first:", len(failed), ok+len(failed))
		for _, f := range failed[:min(len(failed), 5)] {
			tb.Errorf("  %s", f)
		}
	}
	if ok < 1000 {
		tb.Errorf("only %d operations succeeded: the goroutines hardly ran", ok)
	}
	return RollingRestart{OK: ok, Served: served}
}
