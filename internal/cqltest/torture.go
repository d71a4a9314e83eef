package cqltest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TortureRuns runs the runs of a torture test as the subtests run0, run1, ...: four runs of
// 2 s each, twenty of 10 s when long is set, and a single one with -short. A run's seed is seed
// (a random one, drawn anew for every run, when seed is 0) plus the run's number, and every
// other run (the odd ones) is told to close early. It stops after the first run that fails.
// run logs its seed itself.
func TortureRuns(t *testing.T, long bool, seed uint64, run func(t *testing.T, seed uint64, dur time.Duration, closeEarly bool)) {
	runs, dur := 4, 2*time.Second
	if long {
		runs, dur = 20, 10*time.Second
	}
	if testing.Short() {
		runs = 1
	}
	for n := range runs {
		s := seed
		if s == 0 {
			s = rand.Uint64()
		}
		s += uint64(n)
		ok := t.Run(fmt.Sprintf("run%d", n), func(t *testing.T) {
			run(t, s, dur, n%2 == 1)
		})
		if !ok {
			return
		}
	}
}

// FaultOptions shapes the faults InjectFaults injects beyond those every torture test shares.
type FaultOptions struct {
	// Match selects the statements that the delay and error faults apply to (cqlsim.Fault.Match).
	Match string
	// Count, when not nil, counts the faults injected.
	Count *atomic.Int64
	// DelayErrors delays the answer of an error fault by 0 to 2 ms as well.
	DelayErrors bool
	// DelayPrepares makes half of the clearings of a node's faults inject a fault delaying the
	// PREPAREs of Match's statements by 1 to 50 ms, 1 to 5 times.
	DelayPrepares bool
	// Extra are further kinds of fault, each as likely as one of the shared kinds: each gets the
	// injector's rand source and the node picked.
	Extra []func(r *rand.Rand, node int)
}

// InjectFaults starts a goroutine that injects a fault into a random node of cl every 5 to 64
// ms until stop closes, all of its randomness drawn from r; wait on the returned WaitGroup for
// it to end. The kinds, equally likely: a node delay of 0 to 29 ms; a
// fault delaying Match's statements by 1 to 50 ms, 1 to 5 times; a fault failing them 1 to 3
// times with Overloaded, Unavailable, ReadTimeout, WriteTimeout or IsBootstrapping; a
// clearing of the node's faults; a stop or a start of the node (not a frozen one); a freeze or
// a thaw of the node (not a stopped one); each of o.Extra; and, as likely as three kinds
// together, bringing the node back (started and thawed). The nodes stay as it left them: see
// RestoreNodes.
func InjectFaults(cl *cqlsim.Cluster, r *rand.Rand, stop <-chan struct{}, o FaultOptions) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		injectFaults(cl, r, stop, o)
	}()
	return &wg
}

// injectFaults is InjectFaults' goroutine.
func injectFaults(cl *cqlsim.Cluster, r *rand.Rand, stop <-chan struct{}, o FaultOptions) {
	nodes := len(cl.Addrs())
	stopped, frozen := make([]bool, nodes), make([]bool, nodes)
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(5+r.IntN(60)) * time.Millisecond):
		}
		i := r.IntN(nodes)
		if o.Count != nil {
			o.Count.Add(1)
		}
		switch kind := r.IntN(9 + len(o.Extra)); {
		case kind == 0:
			_ = cl.SetNodeDelay(i, time.Duration(r.IntN(30))*time.Millisecond)
		case kind == 1:
			_ = cl.InjectFault(i, cqlsim.Fault{Match: o.Match, Delay: time.Duration(1+r.IntN(50)) * time.Millisecond, Times: 1 + r.IntN(5)})
		case kind == 2:
			errs := []message.Error{
				&message.Overloaded{ErrorMessage: "overloaded"},
				&message.Unavailable{ErrorMessage: "unavailable", Consistency: 1, Required: 1},
				&message.ReadTimeout{ErrorMessage: "read timeout", Consistency: 1, BlockFor: 1},
				&message.WriteTimeout{ErrorMessage: "write timeout", Consistency: 1, BlockFor: 1, WriteType: "SIMPLE"},
				&message.IsBootstrapping{ErrorMessage: "bootstrapping"},
			}
			f := cqlsim.Fault{Match: o.Match, Error: errs[r.IntN(len(errs))], Times: 1 + r.IntN(3)}
			if o.DelayErrors {
				f.Delay = time.Duration(r.IntN(3)) * time.Millisecond
			}
			_ = cl.InjectFault(i, f)
		case kind == 3:
			_ = cl.ClearFaults(i)
			if o.DelayPrepares && r.IntN(2) == 0 {
				_ = cl.InjectFault(i, cqlsim.Fault{Match: o.Match, Prepare: true, Delay: time.Duration(1+r.IntN(50)) * time.Millisecond, Times: 1 + r.IntN(5)})
			}
		case kind == 4:
			if stopped[i] {
				_ = cl.StartNode(i)
			} else if !frozen[i] {
				_ = cl.StopNode(i)
			}
			stopped[i] = !stopped[i] && !frozen[i]
		case kind == 5:
			if frozen[i] {
				_ = cl.ThawNode(i)
			} else if !stopped[i] {
				_ = cl.FreezeNode(i)
			}
			frozen[i] = !frozen[i] && !stopped[i]
		case kind < 6+len(o.Extra):
			o.Extra[kind-6](r, i)
		default:
			// Bring the node back: most of the time most nodes serve.
			if stopped[i] {
				_ = cl.StartNode(i)
				stopped[i] = false
			}
			if frozen[i] {
				_ = cl.ThawNode(i)
				frozen[i] = false
			}
		}
	}
}

// RestoreNodes brings every node of cl back to normal after InjectFaults: thawed, started,
// without faults and without delay.
func RestoreNodes(cl *cqlsim.Cluster) {
	for i := range cl.Addrs() {
		_ = cl.ThawNode(i)
		_ = cl.StartNode(i)
		_ = cl.ClearFaults(i)
		_ = cl.SetNodeDelay(i, 0)
	}
}

// TortureWorkers starts n workers (see RunWorkers), worker w calling op(r, w, i) for i = 0, 1,
// ... until stop closes, r being its own rand source seeded with seed and 100+w, and sleeping
// 1 ms after each call once pause returns true (when calls fail at once). It returns the
// WaitGroup of the workers and, per worker, the UnixNano time at which its current call began
// (0 between calls), for AwaitWorkers.
func TortureWorkers(n int, seed uint64, stop <-chan struct{}, op func(r *rand.Rand, w, i int), pause func() bool) (*sync.WaitGroup, []atomic.Int64) {
	opStart := make([]atomic.Int64, n)
	rs := make([]*rand.Rand, n)
	for w := range rs {
		rs[w] = rand.New(rand.NewPCG(seed, uint64(100+w)))
	}
	wg := RunWorkers(n, stop, func(w, i int) bool {
		opStart[w].Store(time.Now().UnixNano())
		op(rs[w], w, i)
		opStart[w].Store(0)
		if pause() {
			time.Sleep(time.Millisecond)
		}
		return true
	})
	return wg, opStart
}

// AwaitWorkers is the hang check of a torture test: it waits for wg, and when the workers have
// not ended after 60 s (every operation ends within its context, at most a few seconds), it
// reports for how long each operation still running (its opStart not 0) has run and fails the
// test with the stacks of all goroutines.
func AwaitWorkers(tb testing.TB, wg *sync.WaitGroup, opStart []atomic.Int64) {
	tb.Helper()
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		for w := range opStart {
			if st := opStart[w].Load(); st != 0 {
				tb.Errorf("worker %d: operation running for %s", w, time.Since(time.Unix(0, st)))
			}
		}
		buf := make([]byte, 1<<20)
		tb.Fatalf("workers hung; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// OpContext returns the context of one torture operation: a deadline of 1 ms to 2 s and, a
// quarter of the time, a cancellation 0 to 29 ms later from another goroutine.
func OpContext(r *rand.Rand) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+r.IntN(2000))*time.Millisecond)
	if r.IntN(4) == 0 {
		t := time.AfterFunc(time.Duration(r.IntN(30))*time.Millisecond, cancel)
		return ctx, func() { t.Stop(); cancel() }
	}
	return ctx, cancel
}

// CloseAtRandom lets a torture run go on for dur. When early is set, it stops at a random
// moment of dur (drawn from r) to call closing, runs the function closing returns (the Close
// of the session, say) in a goroutine of its own, and lets the run go on for the rest of dur;
// the channel it returns closes when that goroutine ends. When early is not set, it returns
// nil.
func CloseAtRandom(r *rand.Rand, dur time.Duration, early bool, closing func() (closeFn func())) <-chan struct{} {
	if !early {
		time.Sleep(dur)
		return nil
	}
	closeAfter := time.Duration(r.Int64N(int64(dur)))
	time.Sleep(closeAfter)
	closeDone := make(chan struct{})
	closeFn := closing()
	go func() {
		defer close(closeDone)
		closeFn()
	}()
	time.Sleep(dur - closeAfter)
	return closeDone
}

// Violations collects what the workers of a torture test find wrong (a wrong row, a missing
// one, a duplicate), to report when the run ends: it counts them all and keeps the first 20
// messages. Its zero value is ready to use.
type Violations struct {
	mu   sync.Mutex
	msgs []string
	n    int
}

// Add records a violation, its message formatted as by fmt.Sprintf.
func (v *Violations) Add(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n++
	if len(v.msgs) < 20 {
		v.msgs = append(v.msgs, fmt.Sprintf(format, args...))
	}
}

// Report fails tb with each message kept, and returns how many violations were added.
func (v *Violations) Report(tb testing.TB) int {
	tb.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, m := range v.msgs {
		tb.Error(m)
	}
	return v.n
}
