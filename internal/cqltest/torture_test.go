package cqltest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestTortureRunsSeedsAndCloseEarly: the runs get seed, seed+1, ... and every other one closes
// early.
func TestTortureRunsSeedsAndCloseEarly(t *testing.T) {
	var got []string
	TortureRuns(t, false, 7, func(t *testing.T, seed uint64, dur time.Duration, closeEarly bool) {
		got = append(got, fmt.Sprintf("%s seed %d, %s, early %v", t.Name(), seed, dur, closeEarly))
	})
	want := []string{
		"TestTortureRunsSeedsAndCloseEarly/run0 seed 7, 2s, early false",
		"TestTortureRunsSeedsAndCloseEarly/run1 seed 8, 2s, early true",
		"TestTortureRunsSeedsAndCloseEarly/run2 seed 9, 2s, early false",
		"TestTortureRunsSeedsAndCloseEarly/run3 seed 10, 2s, early true",
	}
	if testing.Short() {
		want = want[:1]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("runs:\n%v\nwant\n%v", got, want)
	}
}

// TestInjectFaultsThenRestoreNodes: the injector counts its faults, uses the extra kinds and
// ends when stop closes; RestoreNodes then undoes a stop, a freeze, a fault and a delay.
func TestInjectFaultsThenRestoreNodes(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	addrs := cl.Addrs()
	Exec(t, addrs[0], "CREATE KEYSPACE tort WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	Exec(t, addrs[0], "CREATE TABLE tort.kv (k int PRIMARY KEY, v text)")

	var count atomic.Int64
	var extra atomic.Int64
	stop := make(chan struct{})
	done := InjectFaults(cl, rand.New(rand.NewPCG(1, 2)), stop, FaultOptions{Match: "tort.", Count: &count,
		DelayErrors: true, DelayPrepares: true, Extra: []func(*rand.Rand, int){func(_ *rand.Rand, i int) {
			if i < 0 || i >= len(addrs) {
				t.Errorf("an extra fault for node %d", i)
			}
			extra.Add(1)
		}}})
	for deadline := time.Now().Add(10 * time.Second); extra.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	done.Wait()
	if count.Load() == 0 || extra.Load() == 0 {
		t.Errorf("%d faults, %d of the extra kind, in 10s", count.Load(), extra.Load())
	}

	_ = cl.StopNode(1)
	_ = cl.FreezeNode(2)
	_ = cl.InjectFault(0, cqlsim.Fault{Match: "tort.", Error: &message.Overloaded{ErrorMessage: "overloaded"}, Times: 100})
	_ = cl.SetNodeDelay(0, 3*time.Second)
	RestoreNodes(cl)
	for _, a := range addrs {
		start := time.Now()
		if err := ExecErr(a, "SELECT k, v FROM tort.kv WHERE k = 1"); err != nil {
			t.Errorf("after RestoreNodes: %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("after RestoreNodes: %s answered in %s", a, d)
		}
	}
}

// TestTortureWorkersUntilStop: every worker runs with its own rand source and numbered calls
// until stop closes, and AwaitWorkers returns once they end.
func TestTortureWorkersUntilStop(t *testing.T) {
	const n, seed = 4, 42
	var mu sync.Mutex
	first := map[int]uint64{} // worker -> the first number its source gave
	calls := make([]int, n)
	var paused atomic.Bool
	stop := make(chan struct{})
	wg, opStart := TortureWorkers(n, seed, stop, func(r *rand.Rand, w, i int) {
		mu.Lock()
		defer mu.Unlock()
		if i != calls[w] {
			t.Errorf("worker %d: call %d numbered %d", w, calls[w], i)
		}
		calls[w]++
		if i == 0 {
			first[w] = r.Uint64()
		}
	}, paused.Load)
	paused.Store(true)
	time.Sleep(20 * time.Millisecond)
	close(stop)
	AwaitWorkers(t, wg, opStart)
	if len(opStart) != n {
		t.Fatalf("%d start times for %d workers", len(opStart), n)
	}
	for w := range n {
		if st := opStart[w].Load(); st != 0 {
			t.Errorf("worker %d ended with a start time %d", w, st)
		}
		if want := rand.New(rand.NewPCG(seed, uint64(100+w))).Uint64(); first[w] != want {
			t.Errorf("worker %d: first number %d, want %d", w, first[w], want)
		}
		if calls[w] == 0 {
			t.Errorf("worker %d made no call", w)
		}
	}
}

// TestCloseAtRandom: the close runs once, within dur, when early; not at all otherwise.
func TestCloseAtRandom(t *testing.T) {
	const dur = 50 * time.Millisecond
	start := time.Now()
	if ch := CloseAtRandom(rand.New(rand.NewPCG(1, 1)), dur, false, func() func() {
		t.Error("closing called for a run that does not close early")
		return func() {}
	}); ch != nil {
		t.Error("a close channel for a run that does not close early")
	}
	if d := time.Since(start); d < dur {
		t.Errorf("the run went on for %s, want %s", d, dur)
	}
	var closings, closes atomic.Int32
	start = time.Now()
	ch := CloseAtRandom(rand.New(rand.NewPCG(1, 1)), dur, true, func() func() {
		closings.Add(1)
		return func() { closes.Add(1) }
	})
	if d := time.Since(start); d < dur {
		t.Errorf("the run went on for %s, want %s", d, dur)
	}
	<-ch
	if closings.Load() != 1 || closes.Load() != 1 {
		t.Errorf("closing called %d times, its close %d times; want once each", closings.Load(), closes.Load())
	}
}

// TestViolationsKeepTwenty: all violations count, the first 20 are reported.
func TestViolationsKeepTwenty(t *testing.T) {
	var v Violations
	for i := range 25 {
		v.Add("violation %d", i)
	}
	tb := &errorTB{TB: t}
	if n := v.Report(tb); n != 25 {
		t.Errorf("Report counted %d violations, want 25", n)
	}
	if len(tb.errs) != 20 || tb.errs[0] != "violation 0" || tb.errs[19] != "violation 19" {
		t.Errorf("Report reported %q, want violation 0 to violation 19", tb.errs)
	}
}

// TestOpContext: a deadline of at most 2 s, and a cancel that ends the context.
func TestOpContext(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		ctx, cancel := OpContext(r)
		dl, ok := ctx.Deadline()
		if !ok || time.Until(dl) > 2*time.Second {
			t.Errorf("deadline %v (set %v), want within 2s", dl, ok)
		}
		cancel()
		if ctx.Err() == nil {
			t.Error("the context lives on after its cancel")
		}
	}
}

// errorTB records Error instead of failing the test.
type errorTB struct {
	testing.TB
	errs []string
}

func (e *errorTB) Helper() {}

func (e *errorTB) Error(args ...any) { e.errs = append(e.errs, fmt.Sprint(args...)) }
