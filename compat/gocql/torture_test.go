package gocql

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// tortureLong runs TestTortureCompat for minutes instead of seconds.
var tortureLong = flag.Bool("torture.long", false, "run the torture tests for minutes (go test -run Torture -torture.long)")

// tortureSeed, when not 0, is the seed of the torture test's randomness (each run logs its own).
var tortureSeed = flag.Uint64("torture.seed", 0, "seed of the torture tests (0: a random one, logged)")

const (
	tortReadKeys   = 300 // rows of tort.kv: k with v "v<k>"
	tortPartitions = 10  // partitions of tort.pg: p has tortPartRows(p) rows c with v p*1000+c
)

func tortPartRows(p int) int { return 2 + p*9 }

// tortCompat is one run of TestTortureCompat.
type tortCompat struct {
	sim *cqlsim.Cluster
	s   *Session

	mu       sync.Mutex
	applied  map[int64]bool // tort.w's keys whose write succeeded (true) or failed (false)
	cntOK    []int64        // per worker: increments of its counter that succeeded
	cntFail  []int64        // and those that failed (may have run)
	attempts []attemptCount // per worker: the attempts of its increments that were observed
	ops, oks atomic.Int64
	faults   atomic.Int64
	kinds    map[string]int // failed operations by the start of their error's message

	fmu  sync.Mutex
	msgs []string
}

func (e *tortCompat) failf(format string, args ...any) {
	e.fmu.Lock()
	if len(e.msgs) < 20 {
		e.msgs = append(e.msgs, fmt.Sprintf(format, args...))
	}
	e.fmu.Unlock()
}

func (e *tortCompat) note(err error) {
	e.ops.Add(1)
	if err == nil {
		e.oks.Add(1)
		return
	}
	msg := err.Error()
	if len(msg) > 40 {
		msg = msg[:40]
	}
	e.mu.Lock()
	if len(e.kinds) < 30 {
		e.kinds[msg]++
	}
	e.mu.Unlock()
}

// attemptCount counts the attempts a QueryObserver sees.
type attemptCount struct{ n atomic.Int64 }

// ObserveQuery counts an attempt.
func (a *attemptCount) ObserveQuery(context.Context, ObservedQuery) { a.n.Add(1) }

// TestTortureCompat is native's TestTortureNative through the gocql API: workers that know
// the answer of every query they run (reads of known rows through Scan and Iter, pages of
// known partitions with random page sizes and prefetch, writes of unique keys alone and in
// batches, increments of a counter of their own, not idempotent), synchronously and through
// IterAsync, with random context deadlines and cancellations, retry and speculative execution
// policies, Query.Release after use, against three cqlsim nodes delayed, failing, frozen and
// restarted at random, and Close at a random moment in half the runs. Every answer must be
// the caller's own and right, every successful write there, no increment counted twice; every
// call returns and no goroutine is left. -torture.long runs it for minutes.
func TestTortureCompat(t *testing.T) {
	runs, dur := 4, 2*time.Second
	if *tortureLong {
		runs, dur = 20, 10*time.Second
	}
	if testing.Short() {
		runs = 1
	}
	for run := range runs {
		seed := *tortureSeed
		if seed == 0 {
			seed = rand.Uint64()
		}
		seed += uint64(run)
		ok := t.Run(fmt.Sprintf("run%d", run), func(t *testing.T) {
			t.Logf("seed %d", seed)
			tortureCompatRun(t, seed, dur, run%2 == 1)
		})
		if !ok {
			return
		}
	}
}

func tortureCompatRun(t *testing.T, seed uint64, dur time.Duration, closeEarly bool) {
	leaks := cqltest.LeakCheck(t)
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	rng := rand.New(rand.NewPCG(seed, 1))
	cluster := NewCluster(sim.Addrs()...)
	cluster.Port = sim.Port()
	cluster.Consistency = One
	cluster.Timeout = 3 * time.Second
	cluster.NumConns = 1 + rng.IntN(2)
	setup, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE tort WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE tort.kv (k bigint PRIMARY KEY, v text)",
		"CREATE TABLE tort.w (k bigint PRIMARY KEY, g int, v text)",
		"CREATE TABLE tort.cnt (k int PRIMARY KEY, n counter)",
		"CREATE TABLE tort.pg (p int, c int, v bigint, PRIMARY KEY (p, c))",
	} {
		if err := setup.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for k := range tortReadKeys {
		if err := setup.Query("INSERT INTO tort.kv (k, v) VALUES (?, ?)", int64(k), fmt.Sprint("v", k)).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for p := range tortPartitions {
		for c := range tortPartRows(p) {
			if err := setup.Query("INSERT INTO tort.pg (p, c, v) VALUES (?, ?, ?)", p, c, int64(p*1000+c)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	setup.Close()

	cluster.RetryPolicy = &SimpleRetryPolicy{NumRetries: 2}
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	const workers = 16
	e := &tortCompat{sim: sim, s: s, applied: map[int64]bool{}, kinds: map[string]int{}, cntOK: make([]int64, workers), cntFail: make([]int64, workers),
		attempts: make([]attemptCount, workers)}

	stop := make(chan struct{})
	var faultsDone sync.WaitGroup
	faultsDone.Add(1)
	go func() {
		defer faultsDone.Done()
		e.inject(rand.New(rand.NewPCG(seed, 2)), stop)
	}()
	opStart := make([]atomic.Int64, workers)
	var closed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(100+w)))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				opStart[w].Store(time.Now().UnixNano())
				e.op(r, w, i)
				opStart[w].Store(0)
				if closed.Load() {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	closeAfter := dur
	if closeEarly {
		closeAfter = time.Duration(rng.Int64N(int64(dur)))
	}
	time.Sleep(closeAfter)
	var closeDone chan struct{}
	if closeEarly {
		closeDone = make(chan struct{})
		closed.Store(true)
		go func() { defer close(closeDone); s.Close() }()
		time.Sleep(dur - closeAfter)
	}
	close(stop)
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		for w := range workers {
			if st := opStart[w].Load(); st != 0 {
				t.Errorf("worker %d: operation running for %s", w, time.Since(time.Unix(0, st)))
			}
		}
		buf := make([]byte, 1<<20)
		t.Fatalf("workers hung; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
	}
	faultsDone.Wait()
	if closeDone != nil {
		select {
		case <-closeDone:
		case <-time.After(60 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("Close hung; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
		}
	}
	s.Close()
	for i := range 3 {
		_ = sim.ThawNode(i)
		_ = sim.StartNode(i)
		_ = sim.ClearFaults(i)
		_ = sim.SetNodeDelay(i, 0)
	}
	e.verify(t, cluster)
	for _, m := range e.msgs {
		t.Error(m)
	}
	t.Logf("%d operations, %d succeeded, %d faults, %d writes, close early %v; errors: %v", e.ops.Load(), e.oks.Load(), e.faults.Load(), len(e.applied), closeEarly, e.kinds)
	leaks()
}

// inject injects a fault every few milliseconds until stop closes.
func (e *tortCompat) inject(r *rand.Rand, stop chan struct{}) {
	sim := e.sim
	var stopped, frozen [3]bool
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(5+r.IntN(60)) * time.Millisecond):
		}
		i := r.IntN(3)
		e.faults.Add(1)
		switch r.IntN(9) {
		case 0:
			_ = sim.SetNodeDelay(i, time.Duration(r.IntN(30))*time.Millisecond)
		case 1:
			_ = sim.InjectFault(i, cqlsim.Fault{Match: "tort.", Delay: time.Duration(1+r.IntN(50)) * time.Millisecond, Times: 1 + r.IntN(5)})
		case 2:
			errs := []message.Error{
				&message.Overloaded{ErrorMessage: "overloaded"},
				&message.Unavailable{ErrorMessage: "unavailable", Consistency: 1, Required: 1},
				&message.ReadTimeout{ErrorMessage: "read timeout", Consistency: 1, BlockFor: 1},
				&message.WriteTimeout{ErrorMessage: "write timeout", Consistency: 1, BlockFor: 1, WriteType: "SIMPLE"},
				&message.IsBootstrapping{ErrorMessage: "bootstrapping"},
			}
			_ = sim.InjectFault(i, cqlsim.Fault{Match: "tort.", Error: errs[r.IntN(len(errs))], Times: 1 + r.IntN(3)})
		case 3:
			_ = sim.ClearFaults(i)
		case 4:
			if stopped[i] {
				_ = sim.StartNode(i)
			} else if !frozen[i] {
				_ = sim.StopNode(i)
			}
			stopped[i] = !stopped[i] && !frozen[i]
		case 5:
			if frozen[i] {
				_ = sim.ThawNode(i)
			} else if !stopped[i] {
				_ = sim.FreezeNode(i)
			}
			frozen[i] = !frozen[i] && !stopped[i]
		default:
			if stopped[i] {
				_ = sim.StartNode(i)
				stopped[i] = false
			}
			if frozen[i] {
				_ = sim.ThawNode(i)
				frozen[i] = false
			}
		}
	}
}

// decorate gives q a random context, idempotence, retry and speculative execution policy.
func decorate(r *rand.Rand, q *Query, ctx context.Context, idempotent bool) *Query {
	q = q.WithContext(ctx).Idempotent(idempotent)
	if r.IntN(3) == 0 {
		q = q.SetSpeculativeExecutionPolicy(&SimpleSpeculativeExecution{NumAttempts: 1 + r.IntN(2),
			TimeoutDelay: time.Duration(1+r.IntN(10)) * time.Millisecond})
	}
	if r.IntN(3) == 0 {
		q = q.RetryPolicy(nil)
	}
	return q
}

// opCtx returns a context ending after a few milliseconds to two seconds, sometimes cancelled
// sooner from another goroutine.
func opCtx(r *rand.Rand) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+r.IntN(2000))*time.Millisecond)
	if r.IntN(4) == 0 {
		t := time.AfterFunc(time.Duration(r.IntN(30))*time.Millisecond, cancel)
		return ctx, func() { t.Stop(); cancel() }
	}
	return ctx, cancel
}

// op runs one random operation of worker w and checks its answer.
func (e *tortCompat) op(r *rand.Rand, w, i int) {
	ctx, cancel := opCtx(r)
	defer cancel()
	s := e.s
	switch r.IntN(8) {
	case 0, 1: // a read by key: bound or literal, Scan, Iter or IterAsync
		k := int64(r.IntN(tortReadKeys))
		var q *Query
		if r.IntN(2) == 0 {
			q = s.Query("SELECT k, v FROM tort.kv WHERE k = ?", k)
		} else {
			q = s.Query(fmt.Sprintf("SELECT k, v FROM tort.kv WHERE k = %d", k))
		}
		q = decorate(r, q, ctx, r.IntN(2) == 0)
		var gk int64
		var gv string
		var err error
		switch r.IntN(3) {
		case 0:
			err = q.Scan(&gk, &gv)
		case 1:
			it := q.Iter()
			if !it.Scan(&gk, &gv) {
				gk = -1
			}
			if it.Scan(new(int64), new(string)) {
				e.failf("worker %d: SELECT k=%d: a second row", w, k)
			}
			err = it.Close()
			if err == nil && gk == -1 {
				e.failf("worker %d: SELECT k=%d: no row", w, k)
				return
			}
		default:
			rs, ferr := q.IterAsync().Result()
			err = ferr
			if err == nil {
				rows := rs.CurrentRows()
				if len(rows) != 1 {
					e.failf("worker %d: SELECT k=%d (async): %d rows", w, k, len(rows))
					return
				}
				if got, want := fmt.Sprint(rows[0].Values()...), fmt.Sprint(k, fmt.Sprint("v", k)); got != want {
					e.failf("worker %d: SELECT k=%d (async) got %s", w, k, got)
					return
				}
				gk, gv = k, fmt.Sprint("v", k)
			}
		}
		if r.IntN(2) == 0 {
			q.Release()
		}
		e.note(err)
		if err == nil && (gk != k || gv != fmt.Sprint("v", k)) {
			e.failf("worker %d: SELECT k=%d got k=%d v=%q", w, k, gk, gv)
		}
	case 2: // a write of a unique key
		k := int64(w)*10_000_000 + int64(i)
		q := decorate(r, s.Query("INSERT INTO tort.w (k, g, v) VALUES (?, ?, ?)", k, w, fmt.Sprint("w", k)), ctx, r.IntN(2) == 0)
		var err error
		if r.IntN(2) == 0 {
			err = q.Exec()
		} else {
			_, err = q.ExecAsync().Result()
		}
		if r.IntN(2) == 0 {
			q.Release()
		}
		e.note(err)
		e.mu.Lock()
		e.applied[k] = err == nil
		e.mu.Unlock()
	case 3: // a batch of unique keys
		base := int64(w)*10_000_000 + int64(i)*10 + 5_000_000
		n := 1 + r.IntN(4)
		typ := LoggedBatch
		if r.IntN(2) == 0 {
			typ = UnloggedBatch
		}
		b := s.NewBatch(typ).WithContext(ctx)
		for j := range n {
			k := base + int64(j)
			b.Query("INSERT INTO tort.w (k, g, v) VALUES (?, ?, ?)", k, w, fmt.Sprint("w", k))
		}
		var err error
		if r.IntN(2) == 0 {
			err = s.ExecuteBatch(b)
		} else {
			_, err = s.ExecuteBatchAsync(b).Result()
		}
		e.note(err)
		e.mu.Lock()
		for j := range n {
			e.applied[base+int64(j)] = err == nil
		}
		e.mu.Unlock()
	case 4: // a counter increment: not idempotent, but retried by the retry policy as gocql does
		q := decorate(r, s.Query("UPDATE tort.cnt SET n = n + 1 WHERE k = ?", w), ctx, false).Observer(&e.attempts[w])
		err := q.Exec()
		e.note(err)
		e.mu.Lock()
		if err == nil {
			e.cntOK[w]++
		} else {
			e.cntFail[w]++
		}
		e.mu.Unlock()
	default: // a partition across pages
		p := r.IntN(tortPartitions)
		q := decorate(r, s.Query("SELECT p, c, v FROM tort.pg WHERE p = ?", p), ctx, r.IntN(2) == 0).PageSize(1 + r.IntN(15))
		if r.IntN(3) == 0 {
			q = q.Prefetch(r.Float64())
		}
		next := 0
		var err error
		if r.IntN(3) > 0 {
			it := q.Iter()
			var gp, gc int
			var gv int64
			for it.Scan(&gp, &gc, &gv) {
				if gp != p || gc != next || gv != int64(p*1000+next) {
					e.failf("worker %d: partition %d: row %d is p=%d c=%d v=%d", w, p, next, gp, gc, gv)
					it.Close()
					return
				}
				next++
			}
			err = it.Close()
		} else {
			var rs interface {
				Next() bool
			}
			f := q.IterAsync()
			set, ferr := f.Result()
			err = ferr
			if err == nil {
				rs = set
				for rs.Next() {
					if got, want := fmt.Sprint(set.Row().Values()...), fmt.Sprint(p, next, int64(p*1000+next)); got != want {
						e.failf("worker %d: partition %d (async): row %d is %s", w, p, next, got)
						return
					}
					next++
				}
				err = set.Err()
			}
		}
		if r.IntN(2) == 0 {
			q.Release()
		}
		e.note(err)
		if err == nil && next != tortPartRows(p) {
			e.failf("worker %d: partition %d: %d rows, want %d", w, p, next, tortPartRows(p))
		}
	}
}

// verify checks the table and the counters against what the workers were told.
func (e *tortCompat) verify(t *testing.T, cluster *ClusterConfig) {
	cluster.RetryPolicy = &SimpleRetryPolicy{NumRetries: 3}
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := map[int64]string{}
	it := s.Query("SELECT k, v FROM tort.w").PageSize(1000).Iter()
	var k int64
	var v string
	for it.Scan(&k, &v) {
		got[k] = v
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	for k, ok := range e.applied {
		gv, there := got[k]
		if ok && !there {
			e.failf("write k=%d reported applied is missing", k)
		}
		if there && gv != fmt.Sprint("w", k) {
			e.failf("write k=%d has v=%q", k, gv)
		}
	}
	for k := range got {
		if _, ok := e.applied[k]; !ok {
			e.failf("write k=%d is in the table but no worker wrote it", k)
		}
	}
	for w := range e.cntOK {
		var n int64
		if err := s.Query("SELECT n FROM tort.cnt WHERE k = ?", w).Scan(&n); err != nil && err != ErrNotFound {
			t.Fatal(err)
		}
		// An increment ran at least once per success, and at most once per attempt: a retry
		// policy sends it again after an error, even when it ran (as gocql does), and an
		// attempt that Close cut off may go unobserved (one per failed increment at most).
		lo, hi := e.cntOK[w], e.attempts[w].n.Load()+e.cntFail[w]
		if n < lo || n > hi {
			e.failf("counter %d is %d, want %d..%d (%d increments succeeded, %d failed, %d attempts)", w, n, lo, hi,
				e.cntOK[w], e.cntFail[w], e.attempts[w].n.Load())
		} else if n > e.cntOK[w]+e.cntFail[w] {
			t.Logf("counter %d is %d after %d increments: retried after it ran (%d attempts)", w, n, e.cntOK[w]+e.cntFail[w], e.attempts[w].n.Load())
		}
	}
}
