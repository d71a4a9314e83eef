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
	s *Session

	mu       sync.Mutex
	applied  map[int64]bool // tort.w's keys whose write succeeded (true) or failed (false)
	cntOK    []int64        // per worker: increments of its counter that succeeded
	cntFail  []int64        // and those that failed (may have run)
	attempts []attemptCount // per worker: the attempts of its increments that were observed
	ops, oks atomic.Int64
	faults   atomic.Int64
	kinds    map[string]int // failed operations by the start of their error's message

	fail cqltest.Violations
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
	cqltest.TortureRuns(t, *tortureLong, *tortureSeed, func(t *testing.T, seed uint64, dur time.Duration, closeEarly bool) {
		t.Logf("seed %d", seed)
		tortureCompatRun(t, seed, dur, closeEarly)
	})
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
	e := &tortCompat{s: s, applied: map[int64]bool{}, kinds: map[string]int{}, cntOK: make([]int64, workers), cntFail: make([]int64, workers),
		attempts: make([]attemptCount, workers)}

	stop := make(chan struct{})
	faultsDone := cqltest.InjectFaults(sim, rand.New(rand.NewPCG(seed, 2)), stop, cqltest.FaultOptions{Match: "tort.", Count: &e.faults})
	var closed atomic.Bool
	wg, opStart := cqltest.TortureWorkers(workers, seed, stop, e.op, closed.Load)
	closeDone := cqltest.CloseAtRandom(rng, dur, closeEarly, func() func() {
		closed.Store(true)
		return s.Close
	})
	close(stop)
	cqltest.AwaitWorkers(t, wg, opStart)
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
	cqltest.RestoreNodes(sim)
	e.verify(t, cluster)
	e.fail.Report(t)
	t.Logf("%d operations, %d succeeded, %d faults, %d writes, close early %v; errors: %v", e.ops.Load(), e.oks.Load(), e.faults.Load(), len(e.applied), closeEarly, e.kinds)
	leaks()
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

// op runs one random operation of worker w and checks its answer.
func (e *tortCompat) op(r *rand.Rand, w, i int) {
	ctx, cancel := cqltest.OpContext(r)
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
				e.fail.Add("worker %d: SELECT k=%d: a second row", w, k)
			}
			err = it.Close()
			if err == nil && gk == -1 {
				e.fail.Add("worker %d: SELECT k=%d: no row", w, k)
				return
			}
		default:
			rs, ferr := q.IterAsync().Result()
			err = ferr
			if err == nil {
				rows := rs.CurrentRows()
				if len(rows) != 1 {
					e.fail.Add("worker %d: SELECT k=%d (async): %d rows", w, k, len(rows))
					return
				}
				if got, want := fmt.Sprint(rows[0].Values()...), fmt.Sprint(k, fmt.Sprint("v", k)); got != want {
					e.fail.Add("worker %d: SELECT k=%d (async) got %s", w, k, got)
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
			e.fail.Add("worker %d: SELECT k=%d got k=%d v=%q", w, k, gk, gv)
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
					e.fail.Add("worker %d: partition %d: row %d is p=%d c=%d v=%d", w, p, next, gp, gc, gv)
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
						e.fail.Add("worker %d: partition %d (async): row %d is %s", w, p, next, got)
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
			e.fail.Add("worker %d: partition %d: %d rows, want %d", w, p, next, tortPartRows(p))
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
			e.fail.Add("write k=%d reported applied is missing", k)
		}
		if there && gv != fmt.Sprint("w", k) {
			e.fail.Add("write k=%d has v=%q", k, gv)
		}
	}
	for k := range got {
		if _, ok := e.applied[k]; !ok {
			e.fail.Add("write k=%d is in the table but no worker wrote it", k)
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
			e.fail.Add("counter %d is %d, want %d..%d (%d increments succeeded, %d failed, %d attempts)", w, n, lo, hi,
				e.cntOK[w], e.cntFail[w], e.attempts[w].n.Load())
		} else if n > e.cntOK[w]+e.cntFail[w] {
			t.Logf("counter %d is %d after %d increments: retried after it ran (%d attempts)", w, n, e.cntOK[w]+e.cntFail[w], e.attempts[w].n.Load())
		}
	}
}
