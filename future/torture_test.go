package future_test

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
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// tortureLong runs TestTortureFuture for minutes instead of seconds.
var tortureLong = flag.Bool("torture.long", false, "run the torture tests for minutes (go test -run Torture -torture.long)")

// tortureSeed, when not 0, is the seed of the torture test's randomness (each run logs its own).
var tortureSeed = flag.Uint64("torture.seed", 0, "seed of the torture tests (0: a random one, logged)")

const (
	ftReadKeys   = 300 // rows of tort.kv: k with v "v<k>"
	ftPartitions = 10  // partitions of tort.pg: p has ftPartRows(p) rows c with v p*1000+c
)

func ftPartRows(p int) int { return 2 + p*9 }

// ftEnv is one run of TestTortureFuture.
type ftEnv struct {
	cl   *cqlsim.Cluster
	sess *native.Session

	mu      sync.Mutex
	cntOK   []int64 // per worker: increments of its counter that succeeded
	cntFail []int64 // and those that failed (may have run)
	// attempts counts, per worker, the attempts of its increments that the observer saw.
	attempts []atomic.Int64
	ops      atomic.Int64
	oks      atomic.Int64
	faults   atomic.Int64

	fail cqltest.Violations
}

func (e *ftEnv) note(err error) {
	e.ops.Add(1)
	if err == nil {
		e.oks.Add(1)
	}
}

// TestTortureFuture is native's TestTortureNative through the callback layer: workers read
// known rows and page through known partitions with callbacks and errbacks (each page firing
// exactly one of them, once, with the caller's own rows; the callback starting the next
// page), through Result and the ResultSet's paging, and increment a counter of their own
// (not idempotent), with random deadlines, cancellations, timeouts and page sizes, against
// three cqlsim nodes delayed, failing, frozen and restarted at random, and the session closed
// at a random moment in half the runs. Every future completes, nothing is counted twice, no
// goroutine is left. -torture.long runs it for minutes.
func TestTortureFuture(t *testing.T) {
	cqltest.TortureRuns(t, *tortureLong, *tortureSeed, func(t *testing.T, seed uint64, dur time.Duration, closeEarly bool) {
		t.Logf("seed %d", seed)
		tortureFutureRun(t, seed, dur, closeEarly)
	})
}

func tortureFutureRun(t *testing.T, seed uint64, dur time.Duration, closeEarly bool) {
	leaks := cqltest.LeakCheck(t)
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	rng := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()
	setup, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	exec := func(cql string, vals ...any) {
		if _, err := setup.Execute(ctx, native.Query(cql, vals...)); err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
	}
	exec("CREATE KEYSPACE tort WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	exec("CREATE TABLE tort.kv (k bigint PRIMARY KEY, v text)")
	exec("CREATE TABLE tort.cnt (k int PRIMARY KEY, n counter)")
	exec("CREATE TABLE tort.pg (p int, c int, v bigint, PRIMARY KEY (p, c))")
	for k := range ftReadKeys {
		exec("INSERT INTO tort.kv (k, v) VALUES (?, ?)", int64(k), fmt.Sprint("v", k))
	}
	for p := range ftPartitions {
		for c := range ftPartRows(p) {
			exec("INSERT INTO tort.pg (p, c, v) VALUES (?, ?, ?)", int32(p), int32(c), int64(p*1000+c))
		}
	}
	setup.Close()

	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs(), Timeout: 3 * time.Second, ConnsPerHost: 1 + rng.IntN(2),
		HeartbeatInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const workers = 16
	e := &ftEnv{cl: cl, sess: sess, cntOK: make([]int64, workers), cntFail: make([]int64, workers),
		attempts: make([]atomic.Int64, workers)}
	stop := make(chan struct{})
	faultsDone := cqltest.InjectFaults(cl, rand.New(rand.NewPCG(seed, 2)), stop, cqltest.FaultOptions{Match: "tort.", Count: &e.faults})
	var closed atomic.Bool
	wg, opStart := cqltest.TortureWorkers(workers, seed, stop, func(r *rand.Rand, w, _ int) { e.op(r, w) }, closed.Load)
	closeDone := cqltest.CloseAtRandom(rng, dur, closeEarly, func() func() {
		closed.Store(true)
		return func() { sess.Close() }
	})
	close(stop)
	cqltest.AwaitWorkers(t, wg, opStart)
	faultsDone.Wait()
	if closeDone != nil {
		<-closeDone
	}
	sess.Close()
	cqltest.RestoreNodes(cl)
	e.verify(t)
	e.fail.Report(t)
	t.Logf("%d operations, %d succeeded, %d faults, close early %v", e.ops.Load(), e.oks.Load(), e.faults.Load(), closeEarly)
	leaks()
}

// ftOpts returns random future options: a timeout of the future's own, sometimes.
func ftOpts(r *rand.Rand) future.Options {
	var o future.Options
	if r.IntN(2) == 0 {
		o.Timeout = time.Duration(1+r.IntN(300)) * time.Millisecond
	}
	return o
}

// op runs one random operation of worker w and checks its answer.
func (e *ftEnv) op(r *rand.Rand, w int) {
	ctx, cancel := cqltest.OpContext(r)
	defer cancel()
	switch r.IntN(7) {
	case 6: // a partition paged from outside the callbacks, peeked at from another goroutine
		e.outsidePaging(ctx, r, w)
	case 0, 1: // a read by key: a callback or errback, and Result
		k := int64(r.IntN(ftReadKeys))
		st := native.Query("SELECT k, v FROM tort.kv WHERE k = ?", k).WithIdempotent(r.IntN(2) == 0)
		f := future.ExecuteAsync(ctx, e.sess, st, ftOpts(r))
		var calls atomic.Int32
		fired := make(chan error, 2)
		f.AddCallbacks(func(p future.Page) {
			calls.Add(1)
			rows, err := p.Rows()
			if err == nil && (len(rows) != 1 || fmt.Sprint(rows[0].Values()...) != fmt.Sprint(k, fmt.Sprint("v", k))) {
				e.fail.Add("worker %d: SELECT k=%d: the callback got %v", w, k, rows)
			}
			fired <- err
		}, func(err error) {
			calls.Add(1)
			fired <- err
		})
		rs, err := f.Result()
		if err == nil {
			rows := rs.CurrentRows()
			if len(rows) != 1 || fmt.Sprint(rows[0].Values()...) != fmt.Sprint(k, fmt.Sprint("v", k)) {
				e.fail.Add("worker %d: SELECT k=%d: Result got %v", w, k, rows)
			}
		}
		e.note(err)
		select {
		case cerr := <-fired:
			if (cerr == nil) != (err == nil) {
				e.fail.Add("worker %d: SELECT k=%d: Result says %v, the callbacks %v", w, k, err, cerr)
			}
		case <-time.After(30 * time.Second):
			e.fail.Add("worker %d: SELECT k=%d: neither callback nor errback fired 30s after Result returned", w, k)
		}
		if n := calls.Load(); n != 1 {
			e.fail.Add("worker %d: SELECT k=%d: %d callbacks fired", w, k, n)
		}
	case 2: // a counter increment: not idempotent, but retried after a broken connection, as Python's policy does
		st := native.Query("UPDATE tort.cnt SET n = n + 1 WHERE k = ?", int32(w)).WithObserver(func(_ context.Context, a native.Attempt) {
			if !a.Reprepare {
				e.attempts[w].Add(1)
			}
		})
		_, err := future.ExecuteAsync(ctx, e.sess, st, ftOpts(r)).Result()
		e.note(err)
		e.mu.Lock()
		if err == nil {
			e.cntOK[w]++
		} else {
			e.cntFail[w]++
		}
		e.mu.Unlock()
	case 3, 4: // a partition, page by page in the callbacks
		p := r.IntN(ftPartitions)
		st := native.Query("SELECT p, c, v FROM tort.pg WHERE p = ?", int32(p)).WithPageSize(1 + r.IntN(15)).WithIdempotent(r.IntN(2) == 0)
		f := future.ExecuteAsync(ctx, e.sess, st, ftOpts(r))
		done := make(chan error, 4)
		next, pages := 0, 0
		var fin atomic.Int32
		f.AddCallbacks(func(pg future.Page) {
			pages++
			if pg.Number() != pages {
				e.fail.Add("worker %d: partition %d: page %d numbered %d", w, p, pages, pg.Number())
			}
			rows, err := pg.Rows()
			if err != nil {
				done <- err
				return
			}
			for _, row := range rows {
				if got, want := fmt.Sprint(row.Values()...), fmt.Sprint(p, next, int64(p*1000+next)); got != want {
					e.fail.Add("worker %d: partition %d page %d: row %d is %s", w, p, pages, next, got)
				}
				next++
			}
			if f.HasMorePages() {
				if err := f.StartFetchingNextPage(); err != nil {
					fin.Add(1)
					done <- err
				}
				return
			}
			fin.Add(1)
			done <- nil
		}, func(err error) {
			fin.Add(1)
			done <- err
		})
		var err error
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			e.fail.Add("worker %d: partition %d: no callback ended the paging after 60s (%d pages)", w, p, pages)
			return
		}
		e.note(err)
		if err == nil && next != ftPartRows(p) {
			e.fail.Add("worker %d: partition %d: %d rows, want %d", w, p, next, ftPartRows(p))
		}
		time.Sleep(time.Millisecond) // a second end, if any, shows
		if n := fin.Load(); n != 1 {
			e.fail.Add("worker %d: partition %d: the paging ended %d times", w, p, n)
		}
	default: // a partition through Result and the ResultSet's own paging
		p := r.IntN(ftPartitions)
		st := native.Query("SELECT p, c, v FROM tort.pg WHERE p = ?", int32(p)).WithPageSize(1 + r.IntN(15)).WithIdempotent(r.IntN(2) == 0)
		rs, err := future.ExecuteAsync(ctx, e.sess, st, ftOpts(r)).Result()
		next := 0
		if err == nil {
			for row, rerr := range rs.Seq() {
				if rerr != nil {
					err = rerr
					break
				}
				if got, want := fmt.Sprint(row.Values()...), fmt.Sprint(p, next, int64(p*1000+next)); got != want {
					e.fail.Add("worker %d: partition %d (ResultSet): row %d is %s", w, p, next, got)
					return
				}
				next++
			}
		}
		e.note(err)
		if err == nil && next != ftPartRows(p) {
			e.fail.Add("worker %d: partition %d (ResultSet): %d rows, want %d", w, p, next, ftPartRows(p))
		}
	}
}

// outsidePaging pages through a partition with Result and StartFetchingNextPage, a callback
// added at a random moment counting the pages, while another goroutine peeks at the future
// (HasMorePages, PagingState, PageNumber, Warnings).
func (e *ftEnv) outsidePaging(ctx context.Context, r *rand.Rand, w int) {
	p := r.IntN(ftPartitions)
	st := native.Query("SELECT p, c, v FROM tort.pg WHERE p = ?", int32(p)).WithPageSize(1 + r.IntN(15)).WithIdempotent(r.IntN(2) == 0)
	f := future.ExecuteAsync(ctx, e.sess, st, ftOpts(r))
	stopPeek := make(chan struct{})
	peeked := make(chan struct{})
	go func() {
		defer close(peeked)
		for {
			select {
			case <-stopPeek:
				return
			default:
			}
			f.HasMorePages()
			f.PagingState()
			f.PageNumber()
			_, _ = f.Warnings()
			runtime.Gosched()
		}
	}()
	defer func() { close(stopPeek); <-peeked }()
	var seen sync.Map // page number -> how many callbacks saw it
	addAt := r.IntN(3)
	next, page := 0, 0
	var err error
	for {
		page++
		if page == addAt+1 {
			f.AddCallbacks(func(pg future.Page) {
				n, _ := seen.LoadOrStore(pg.Number(), new(atomic.Int32))
				n.(*atomic.Int32).Add(1)
			}, func(error) {})
		}
		var rs *future.ResultSet
		rs, err = f.Result()
		if err != nil {
			break
		}
		if n := f.PageNumber(); n != page {
			e.fail.Add("worker %d: partition %d: page %d numbered %d", w, p, page, n)
		}
		for _, row := range rs.CurrentRows() {
			if got, want := fmt.Sprint(row.Values()...), fmt.Sprint(p, next, int64(p*1000+next)); got != want {
				e.fail.Add("worker %d: partition %d (outside) page %d: row %d is %s", w, p, page, next, got)
				return
			}
			next++
		}
		if !f.HasMorePages() {
			break
		}
		if err = f.StartFetchingNextPage(); err != nil {
			break
		}
	}
	e.note(err)
	if err == nil && next != ftPartRows(p) {
		e.fail.Add("worker %d: partition %d (outside): %d rows, want %d", w, p, next, ftPartRows(p))
	}
	seen.Range(func(k, v any) bool {
		if n := v.(*atomic.Int32).Load(); n > 1 {
			e.fail.Add("worker %d: partition %d (outside): page %v fired %d callbacks", w, p, k, n)
		}
		return true
	})
}

// verify checks the counters against what the workers were told.
func (e *ftEnv) verify(t *testing.T) {
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: e.cl.Addrs(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for w := range e.cntOK {
		var n int64
		res, err := s.Execute(ctx, native.Query("SELECT n FROM tort.cnt WHERE k = ?", int32(w)))
		if err != nil {
			t.Fatal(err)
		}
		if row, ok := res.First(); ok {
			if err := row.Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
		// At least once per success, at most once per attempt sent (a failed increment may
		// count one more, cut off by Close).
		lo, hi := e.cntOK[w], e.attempts[w].Load()+e.cntFail[w]
		if n < lo || n > hi {
			e.fail.Add("counter %d is %d, want %d..%d (%d increments succeeded, %d failed, %d attempts)", w, n, lo, hi,
				e.cntOK[w], e.cntFail[w], e.attempts[w].Load())
		}
	}
}
