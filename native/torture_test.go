package native_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// tortureLong runs the torture tests for minutes instead of seconds.
var tortureLong = flag.Bool("torture.long", false, "run the torture tests for minutes (go test -run Torture -torture.long)")

// tortureSeed, when not 0, is the seed of the torture tests' randomness (each run logs its own).
var tortureSeed = flag.Uint64("torture.seed", 0, "seed of the torture tests (0: a random one, logged)")

// tortureReadKeys is the number of rows of tort.kv, each k with v "v<k>".
const tortureReadKeys = 500

// torturePartitions is the number of partitions of tort.pg; partition p has torturePartRows(p)
// rows c = 0, 1, ... with v = p*1000+c.
const torturePartitions = 12

func torturePartRows(p int) int { return 3 + p*11 }

// tortureBigKeys is the number of rows of tort.big, each k with v bigValue(k): from 20 KiB to
// 300 KiB, larger than a protocol v5 segment (128 KiB) and than what a connection's reader
// decodes itself for a detached request (64 KiB) for most of them.
const tortureBigKeys = 8

func bigValue(k int) string {
	return strings.Repeat(string(rune('a'+k)), 20<<10+k*40<<10)
}

// outcome is what a caller learnt of a write: it ran, it may have run, or it never left.
type outcome uint8

const (
	applied outcome = iota + 1
	maybeApplied
	notApplied
)

// classify turns a write's error into its outcome.
func classify(err error) outcome {
	switch {
	case err == nil:
		return applied
	case errors.Is(err, native.ErrNotSent):
		return notApplied
	default:
		return maybeApplied
	}
}

// tortureLedger records what the workers learnt, to check the data against once they stop.
type tortureLedger struct {
	mu     sync.Mutex
	writes map[int64]outcome // tort.w's keys, each written once (alone or in a batch)
	// counters: per worker, how many increments of its counter succeeded and how many may
	// have run.
	cntOK, cntMaybe []int64
}

func (l *tortureLedger) write(k int64, o outcome) {
	l.mu.Lock()
	l.writes[k] = o
	l.mu.Unlock()
}

// tortureStats counts the operations and faults of a run.
type tortureStats struct {
	ops, okOps, errOps, faults atomic.Int64
	mu                         sync.Mutex
	kinds                      map[string]int    // the errors' kinds (see errKind)
	example                    map[string]string // an error of each kind
}

// errKind names the kind of a failed operation's error, for the log.
func errKind(err error) string {
	var nh *native.NoHostAvailableError
	var re *native.RequestError
	switch {
	case errors.Is(err, native.ErrSessionClosed):
		return "closed"
	case errors.Is(err, native.ErrNotSent):
		return "not sent"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, native.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &nh):
		return "no host"
	case errors.As(err, &re):
		return fmt.Sprintf("server %#x", int(re.Code))
	case errors.Is(err, native.ErrConnClosed):
		return "conn closed"
	}
	return "other: " + err.Error()
}

// tortureEnv is one run's cluster, statements and bookkeeping.
type tortureEnv struct {
	t      *testing.T
	cl     *cqlsim.Cluster
	s      *native.Session
	sel    *native.Prepared // SELECT k, v FROM tort.kv WHERE k = ?
	ins    *native.Prepared // INSERT INTO tort.w (k, g, v) VALUES (?, ?, ?)
	inc    *native.Prepared // UPDATE tort.cnt SET n = n + 1 WHERE k = ?
	page   *native.Prepared // SELECT p, c, v FROM tort.pg WHERE p = ?
	ledger *tortureLedger
	stats  *tortureStats
	fail   *cqltest.Violations
	// pendings started by the workers before the session's Close was called, checked after it.
	pmu      sync.Mutex
	pendings []*native.Pending
	closeAt  atomic.Int64 // UnixNano when Close was called, 0 before
	// hookClose, when set, is called once by the next OnDone hook or observer call to run: it
	// closes the session from inside the session's callback.
	hookClose atomic.Pointer[func()]
}

// closeInCallback closes the session when the run asked for a Close from a callback.
func (e *tortureEnv) closeInCallback() {
	if f := e.hookClose.Swap(nil); f != nil {
		(*f)()
	}
}

// TestTortureNative runs workers that each know the answer of every statement they send
// (reads of rows whose key and value they chose, pages of partitions whose rows they know,
// writes of unique keys, increments of a counter of their own), with random timeouts and
// cancellations, random page sizes, prepared and unprepared statements, batches, synchronous
// and asynchronous calls, against a three-node cqlsim cluster whose nodes are delayed, fail
// statements, freeze, restart and lose their connections at random, and closes the session at
// a random moment in half of the runs. Every answer must be the caller's own and right; a
// write reported applied must be there, one reported not sent must not, no counter increment
// may run twice; every call returns, every Pending started before Close is complete after it,
// and no goroutine is left. -torture.long runs it for minutes.
func TestTortureNative(t *testing.T) {
	cqltest.TortureRuns(t, *tortureLong, *tortureSeed, func(t *testing.T, seed uint64, dur time.Duration, closeEarly bool) {
		t.Logf("seed %d (-torture.seed=%d reproduces the randomness, not the timing)", seed, seed)
		tortureRun(t, seed, dur, closeEarly)
	})
}

func tortureRun(t *testing.T, seed uint64, dur time.Duration, closeEarly bool) {
	leaks := cqltest.LeakCheck(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	var cfgLog native.Config
	// The framing varies: protocol v4 or v5 (segments), compressed or not, and ScyllaDB
	// shards (a connection per shard) or not.
	opts := cqlsim.Options{Nodes: 3}
	version, compression := 4, []string{"", "lz4", "snappy"}[rng.IntN(3)]
	if rng.IntN(3) == 0 {
		opts.MaxProtocolVersion, version = 5, 5
		if compression == "snappy" {
			compression = ""
		}
	} else if rng.IntN(2) == 0 {
		opts.Shards = 2
	}
	t.Logf("protocol v%d, compression %q, %d shards", version, compression, opts.Shards)
	defer func() {
		t.Logf("routing %v, prepared cache %d, observer %v, speculative %d", cfgLog.Routing, cfgLog.MaxPreparedStatements, cfgLog.Observer != nil, cfgLog.SpeculativeAttempts)
	}()
	cl := cqlsim.StartT(t, opts)
	setup, err := native.Connect(context.Background(), native.Config{Hosts: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE tort WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE tort.kv (k bigint PRIMARY KEY, v text)",
		"CREATE TABLE tort.w (k bigint PRIMARY KEY, g int, v text)",
		"CREATE TABLE tort.cnt (k int PRIMARY KEY, n counter)",
		"CREATE TABLE tort.pg (p int, c int, v bigint, PRIMARY KEY (p, c))",
		"CREATE TABLE tort.big (k int PRIMARY KEY, v text)",
	} {
		mustExec(t, setup, q)
	}
	for k := range tortureReadKeys {
		mustExec(t, setup, "INSERT INTO tort.kv (k, v) VALUES (?, ?)", int64(k), fmt.Sprint("v", k))
	}
	for k := range tortureBigKeys {
		mustExec(t, setup, "INSERT INTO tort.big (k, v) VALUES (?, ?)", int32(k), bigValue(k))
	}
	for p := range torturePartitions {
		for c := range torturePartRows(p) {
			mustExec(t, setup, "INSERT INTO tort.pg (p, c, v) VALUES (?, ?, ?)", int32(p), int32(c), int64(p*1000+c))
		}
	}
	setup.Close()

	cfg := native.Config{Hosts: cl.Addrs(), Timeout: 3 * time.Second, RetryPolicy: native.NextHostRetry{MaxRetries: 2},
		ConnsPerHost: 1 + rng.IntN(2), HeartbeatInterval: 200 * time.Millisecond,
		ProtocolVersion: version, Compression: compression}
	var env atomic.Pointer[tortureEnv]
	if rng.IntN(2) == 0 {
		// Requests run on goroutines; the observer may close the session (see closeInCallback).
		cfg.Observer = func(context.Context, native.Attempt) {
			if e := env.Load(); e != nil {
				e.closeInCallback()
			}
		}
	}
	if rng.IntN(2) == 0 {
		cfg.SpeculativeAttempts, cfg.SpeculativeDelay = 2, time.Duration(1+rng.IntN(20))*time.Millisecond
	}
	if rng.IntN(2) == 0 {
		cfg.Routing = native.RoundRobin
	}
	if rng.IntN(2) == 0 {
		// A small cache: the statements prepared during the run evict each other, and the
		// setup's statements, all the time.
		cfg.MaxPreparedStatements = 2 + rng.IntN(6)
	}
	cfg = native.WithMaxStreams(cfg, 2+rng.IntN(14)) // few stream ids: they are reused all the time
	cfgLog = cfg
	s, err := native.Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitHostsUp(t, s, 3)
	workers := 16
	e := &tortureEnv{t: t, cl: cl, s: s, ledger: &tortureLedger{writes: map[int64]outcome{},
		cntOK: make([]int64, workers), cntMaybe: make([]int64, workers)},
		stats: &tortureStats{}, fail: &cqltest.Violations{}}
	env.Store(e)
	e.sel = mustPrepare(t, s, "SELECT k, v FROM tort.kv WHERE k = ?")
	e.ins = mustPrepare(t, s, "INSERT INTO tort.w (k, g, v) VALUES (?, ?, ?)")
	e.inc = mustPrepare(t, s, "UPDATE tort.cnt SET n = n + 1 WHERE k = ?")
	e.page = mustPrepare(t, s, "SELECT p, c, v FROM tort.pg WHERE p = ?")

	stop := make(chan struct{})
	faultsDone := cqltest.InjectFaults(cl, rand.New(rand.NewPCG(seed, 2)), stop, cqltest.FaultOptions{Match: "tort.",
		Count: &e.stats.faults, DelayErrors: true, DelayPrepares: true, Extra: []func(*rand.Rand, int){e.closeConns}})
	// The session is closed once closeAt is set: calls fail at once.
	wg, opStart := cqltest.TortureWorkers(workers, seed, stop, e.op, func() bool { return e.closeAt.Load() != 0 })
	closeDone := cqltest.CloseAtRandom(rng, dur, closeEarly, func() func() {
		// Close while the workers run: they go on, and must see the session closed.
		e.closeAt.Store(time.Now().UnixNano())
		e.pmu.Lock()
		before := e.pendings
		e.pendings = nil
		e.pmu.Unlock()
		return func() {
			if rng.IntN(2) == 0 {
				// Close from a callback: the next OnDone hook of an asynchronous read, or
				// observer call, to run (or here, when none runs within 30 s).
				closed := make(chan struct{})
				closer := func() { s.Close(); close(closed) }
				e.hookClose.Store(&closer)
				select {
				case <-closed:
				case <-time.After(30 * time.Second):
					if f := e.hookClose.Swap(nil); f != nil {
						(*f)()
					}
					<-closed
				}
			} else {
				s.Close()
			}
			// Every Pending started before Close must be complete now (give a running retry
			// policy, which Close does not wait for, a moment).
			for _, p := range before {
				select {
				case <-p.Done():
				case <-time.After(10 * time.Second):
					e.fail.Add("a Pending started before Close is not complete 10s after Close returned")
					return
				}
			}
		}
	})
	close(stop)
	cqltest.AwaitWorkers(t, wg, opStart)
	faultsDone.Wait()
	if closeDone != nil {
		<-closeDone
	}
	s.Close()
	cqltest.RestoreNodes(cl)
	e.verify()
	if n := e.fail.Report(t); n > 0 {
		t.Errorf("%d violations", n)
	}
	t.Logf("%d operations (%d succeeded, %d failed: %v), %d faults, %d writes, close early %v",
		e.stats.ops.Load(), e.stats.okOps.Load(), e.stats.errOps.Load(), e.stats.kinds, e.stats.faults.Load(), len(e.ledger.writes), closeEarly)
	if testing.Verbose() {
		for k, m := range e.stats.example {
			t.Logf("%s: %.300s", k, m)
		}
	}
	leaks()
}

// closeConns closes the session's connections to node i a third of the time (the pool
// reconnects with a backoff: not too often), a kind of fault of InjectFaults.
func (e *tortureEnv) closeConns(r *rand.Rand, i int) {
	if r.IntN(3) == 0 {
		native.CloseConnsTo(e.s, e.cl.Addrs()[i])
	}
}

// withTimeout sets a random request timeout on st, some of them shorter than a second (a timer
// each) and some not (the coarse clock), or leaves the session's.
func withTimeout(r *rand.Rand, st native.Statement) native.Statement {
	switch r.IntN(3) {
	case 0:
		return st.WithTimeout(time.Duration(1+r.IntN(100)) * time.Millisecond)
	case 1:
		return st.WithTimeout(time.Second + time.Duration(r.IntN(500))*time.Millisecond)
	}
	return st
}

// note counts an operation's outcome.
func (e *tortureEnv) note(err error) {
	e.stats.ops.Add(1)
	if err == nil {
		e.stats.okOps.Add(1)
	} else {
		e.stats.errOps.Add(1)
		k := errKind(err)
		e.stats.mu.Lock()
		if e.stats.kinds == nil {
			e.stats.kinds, e.stats.example = map[string]int{}, map[string]string{}
		}
		if len(e.stats.kinds) < 40 {
			e.stats.kinds[k]++
			if _, ok := e.stats.example[k]; !ok {
				e.stats.example[k] = err.Error()
			}
		}
		e.stats.mu.Unlock()
	}
}

// track records a Pending started before Close, for the check after it.
func (e *tortureEnv) track(p *native.Pending) {
	e.pmu.Lock()
	if e.closeAt.Load() == 0 {
		e.pendings = append(e.pendings, p)
	}
	e.pmu.Unlock()
}

// syncOrAsync sends a request synchronously or, half the time, asynchronously, tracking its
// Pending for the check after Close, and returns its error.
func (e *tortureEnv) syncOrAsync(r *rand.Rand, sync func() (*native.Result, error), async func() *native.Pending) error {
	if r.IntN(2) == 0 {
		_, err := sync()
		return err
	}
	p := async()
	e.track(p)
	_, err := p.Result()
	return err
}

// op runs one random operation of worker w and checks its answer.
func (e *tortureEnv) op(r *rand.Rand, w, i int) {
	ctx, cancel := cqltest.OpContext(r)
	defer cancel()
	s := e.s
	switch r.IntN(10) {
	case 9: // a large row, read sync or async
		k := r.IntN(tortureBigKeys)
		st := withTimeout(r, native.Query("SELECT k, v FROM tort.big WHERE k = ?", int32(k)).WithIdempotent(r.IntN(2) == 0))
		var res *native.Result
		var err error
		if r.IntN(2) == 0 {
			res, err = s.Execute(ctx, st)
		} else {
			res, err = s.ExecuteAsync(ctx, st).Result()
		}
		e.note(err)
		if err == nil {
			e.checkBig(w, k, res)
		}
	case 8: // a read prepared now, from a text no worker prepared before, sometimes dropped after
		k := int64(r.IntN(tortureReadKeys))
		p, err := s.Prepare(ctx, fmt.Sprintf("SELECT k, v FROM tort.kv WHERE k = ? LIMIT %d", 1+w*100_000+i))
		if err == nil {
			var res *native.Result
			res, err = s.Execute(ctx, withTimeout(r, p.Bind(k)))
			if err == nil {
				e.checkKV(w, k, res)
			}
			if r.IntN(2) == 0 {
				s.DropPrepared(p)
			}
		}
		e.note(err)
	case 0, 1: // a read by key, prepared or not, sync or async
		k := int64(r.IntN(tortureReadKeys))
		var st native.Statement
		if r.IntN(2) == 0 {
			st = e.sel.Bind(k)
		} else {
			st = native.Query("SELECT k, v FROM tort.kv WHERE k = ?", k)
		}
		st = withTimeout(r, st.WithIdempotent(r.IntN(2) == 0))
		var res *native.Result
		var err error
		if r.IntN(2) == 0 {
			res, err = s.Execute(ctx, st)
		} else {
			p := s.ExecuteAsync(ctx, st)
			e.track(p)
			var hooked atomic.Int32
			p.OnDone(func() {
				hooked.Add(1)
				e.closeInCallback()
			})
			if r.IntN(2) == 0 {
				res, err = p.Result()
			} else {
				res, err = p.Wait(ctx)
				if err != nil && p != nil {
					res, err = p.Result()
				}
			}
			// OnDone runs once, on completion: at the latest shortly after Result returns.
			for n := 0; hooked.Load() == 0 && n < 10_000; n++ {
				time.Sleep(time.Millisecond)
			}
			if h := hooked.Load(); h != 1 {
				e.fail.Add("worker %d: OnDone ran %d times", w, h)
			}
		}
		e.note(err)
		if err == nil {
			e.checkKV(w, k, res)
		}
	case 2: // a write of a unique key, prepared or not, sync or async
		k := int64(w)*10_000_000 + int64(i)
		v := fmt.Sprint("w", k)
		var st native.Statement
		if r.IntN(2) == 0 {
			st = e.ins.Bind(k, int32(w), v)
		} else {
			st = native.Query("INSERT INTO tort.w (k, g, v) VALUES (?, ?, ?)", k, int32(w), v)
		}
		st = withTimeout(r, st.WithIdempotent(r.IntN(2) == 0))
		err := e.syncOrAsync(r, func() (*native.Result, error) { return s.Execute(ctx, st) },
			func() *native.Pending { return s.ExecuteAsync(ctx, st) })
		e.note(err)
		e.ledger.write(k, classify(err))
	case 3: // a batch of unique keys
		base := int64(w)*10_000_000 + int64(i)*10 + 5_000_000
		n := 1 + r.IntN(4)
		stmts := make([]native.Statement, n)
		for j := range n {
			k := base + int64(j)
			if r.IntN(2) == 0 {
				stmts[j] = e.ins.Bind(k, int32(w), fmt.Sprint("w", k))
			} else {
				stmts[j] = native.Query("INSERT INTO tort.w (k, g, v) VALUES (?, ?, ?)", k, int32(w), fmt.Sprint("w", k))
			}
		}
		typ := native.LoggedBatch
		if r.IntN(2) == 0 {
			typ = native.UnloggedBatch
		}
		b := native.NewBatch(typ, stmts...)
		err := e.syncOrAsync(r, func() (*native.Result, error) { return s.ExecuteBatch(ctx, b) },
			func() *native.Pending { return s.ExecuteBatchAsync(ctx, b) })
		e.note(err)
		o := classify(err)
		for j := range n {
			e.ledger.write(base+int64(j), o)
		}
	case 4: // a non-idempotent counter increment
		st := withTimeout(r, e.inc.Bind(int32(w)))
		err := e.syncOrAsync(r, func() (*native.Result, error) { return s.Execute(ctx, st) },
			func() *native.Pending { return s.ExecuteAsync(ctx, st) })
		e.note(err)
		e.ledger.mu.Lock()
		switch classify(err) {
		case applied:
			e.ledger.cntOK[w]++
		case maybeApplied:
			e.ledger.cntMaybe[w]++
		}
		e.ledger.mu.Unlock()
	default: // a partition read across pages
		p := r.IntN(torturePartitions)
		var st native.Statement
		if r.IntN(2) == 0 {
			st = e.page.Bind(int32(p))
		} else {
			st = native.Query("SELECT p, c, v FROM tort.pg WHERE p = ?", int32(p))
		}
		st = withTimeout(r, st.WithPageSize(1+r.IntN(20)).WithIdempotent(r.IntN(2) == 0).WithPrefetch(r.IntN(3) == 0))
		e.pages(ctx, r, w, p, st)
	}
}

// checkKV checks that res is the row of tort.kv with key k.
func (e *tortureEnv) checkKV(w int, k int64, res *native.Result) {
	row, ok := res.First()
	if !ok || res.Len() != 1 {
		e.fail.Add("worker %d: SELECT k=%d: %d rows, kind %v", w, k, res.Len(), res.Kind())
		return
	}
	var gk int64
	var gv string
	if err := row.Scan(&gk, &gv); err != nil {
		e.fail.Add("worker %d: SELECT k=%d: scan: %v", w, k, err)
		return
	}
	if gk != k || gv != fmt.Sprint("v", k) {
		e.fail.Add("worker %d: SELECT k=%d got the row k=%d v=%q", w, k, gk, gv)
	}
}

// checkBig checks that res is the row of tort.big with key k.
func (e *tortureEnv) checkBig(w, k int, res *native.Result) {
	row, ok := res.First()
	if !ok || res.Len() != 1 {
		e.fail.Add("worker %d: SELECT big k=%d: %d rows", w, k, res.Len())
		return
	}
	var gk int32
	var gv string
	if err := row.Scan(&gk, &gv); err != nil {
		e.fail.Add("worker %d: SELECT big k=%d: scan: %v", w, k, err)
		return
	}
	if int(gk) != k || gv != bigValue(k) {
		e.fail.Add("worker %d: SELECT big k=%d got k=%d and a value of %d bytes", w, k, gk, len(gv))
	}
}

// pages reads partition p with st in one of three ways and checks that the rows are its own,
// in order, each once, and all of them when no error came.
func (e *tortureEnv) pages(ctx context.Context, r *rand.Rand, w, p int, st native.Statement) {
	s := e.s
	next, bad := 0, false
	check := func(row native.Row) bool {
		var gp, gc int
		var gv int64
		if err := row.Scan(&gp, &gc, &gv); err != nil {
			e.fail.Add("worker %d: partition %d row %d: scan: %v", w, p, next, err)
			bad = true
			return false
		}
		if gp != p || gc != next || gv != int64(p*1000+next) {
			e.fail.Add("worker %d: partition %d: row %d is p=%d c=%d v=%d", w, p, next, gp, gc, gv)
			bad = true
			return false
		}
		next++
		return true
	}
	// Sometimes the loop stops early, with a next page perhaps being prefetched.
	mode, stopAt := r.IntN(3), -1
	if mode < 2 && r.IntN(4) == 0 {
		stopAt = r.IntN(torturePartRows(p) + 1)
	}
	var err error
	switch mode {
	case 0:
		for row, rerr := range s.Iter(ctx, st) {
			if rerr != nil {
				err = rerr
				break
			}
			if !check(row) || next == stopAt {
				break
			}
		}
	case 1:
		var res *native.Result
		res, err = s.Execute(ctx, st)
		if err == nil {
			for row, rerr := range res.All(ctx) {
				if rerr != nil {
					err = rerr
					break
				}
				if !check(row) || next == stopAt {
					break
				}
			}
		}
	default: // page by page, NextPage and NextPageAsync
		var res *native.Result
		res, err = s.Execute(ctx, st)
		for err == nil {
			for _, row := range res.Rows() {
				if !check(row) {
					e.note(nil)
					return
				}
			}
			if !res.HasMorePages() {
				break
			}
			if r.IntN(2) == 0 {
				res, err = res.NextPage(ctx)
			} else {
				pn := res.NextPageAsync(ctx)
				e.track(pn)
				res, err = pn.Result()
			}
		}
	}
	e.note(err)
	if err == nil && !bad && stopAt < 0 && next != torturePartRows(p) {
		e.fail.Add("worker %d: partition %d: %d rows, want %d", w, p, next, torturePartRows(p))
	}
}

// verify checks the writes and counters against the ledger with a fresh session.
func (e *tortureEnv) verify() {
	t := e.t
	s, err := native.Connect(context.Background(), native.Config{Hosts: e.cl.Addrs(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := ctxT(t)
	got := map[int64]string{}
	for row, err := range s.Iter(ctx, native.Query("SELECT k, v FROM tort.w").WithPageSize(1000)) {
		if err != nil {
			t.Fatal(err)
		}
		var k int64
		var v string
		if err := row.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got[k] = v
	}
	for k, o := range e.ledger.writes {
		v, ok := got[k]
		switch {
		case o == applied && !ok:
			e.fail.Add("write k=%d reported applied is missing", k)
		case o == notApplied && ok:
			e.fail.Add("write k=%d reported not sent was applied", k)
		case ok && v != fmt.Sprint("w", k):
			e.fail.Add("write k=%d has v=%q", k, v)
		}
	}
	for k := range got {
		if _, ok := e.ledger.writes[k]; !ok {
			e.fail.Add("write k=%d is in the table but no worker wrote it", k)
		}
	}
	for w := range e.ledger.cntOK {
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
		lo, hi := e.ledger.cntOK[w], e.ledger.cntOK[w]+e.ledger.cntMaybe[w]
		if n < lo || n > hi {
			e.fail.Add("counter %d is %d, want %d..%d (increments succeeded, and those that may have run)", w, n, lo, hi)
		}
	}
}

// TestTortureLateResponses aims at stream id reuse: one connection per node with two or three
// stream ids, nodes whose answers come 0 to 20 ms late (changing all the time) or not at all
// for a while (frozen, then thawed: every answer held comes at once), and requests that give
// up before their answer in every way there is (a timer of their own, the coarse clock, a
// context ending while the request waits, is sent, or is detached), so that most answers
// arrive after their request gave up, for a stream id that another request has taken since.
// Every answer a request gets must be its own.
func TestTortureLateResponses(t *testing.T) {
	dur := 3 * time.Second
	if *tortureLong {
		dur = 60 * time.Second
	}
	seed := *tortureSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d", seed)
	leaks := cqltest.LeakCheck(t)
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, MaxProtocolVersion: 5})
	setup, err := native.Connect(context.Background(), native.Config{Hosts: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, setup, "CREATE KEYSPACE tort WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, setup, "CREATE TABLE tort.kv (k bigint PRIMARY KEY, v text)")
	mustExec(t, setup, "CREATE TABLE tort.big (k int PRIMARY KEY, v text)")
	for k := range 100 {
		mustExec(t, setup, "INSERT INTO tort.kv (k, v) VALUES (?, ?)", int64(k), fmt.Sprint("v", k))
	}
	for k := range tortureBigKeys {
		mustExec(t, setup, "INSERT INTO tort.big (k, v) VALUES (?, ?)", int32(k), bigValue(k))
	}
	setup.Close()
	// The framing varies: protocol v4 or v5 (segments), compressed or not.
	version, compression := 4, []string{"", "lz4"}[rand.IntN(2)]
	if rand.IntN(2) == 0 {
		version = 5
	}
	t.Logf("protocol v%d, compression %q", version, compression)
	rng := rand.New(rand.NewPCG(seed, 1))
	cfg := native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1, Timeout: 5 * time.Second, HeartbeatInterval: -1,
		ProtocolVersion: version, Compression: compression}
	s, err := native.Connect(context.Background(), native.WithMaxStreams(cfg, 2+rng.IntN(2)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	sel := mustPrepare(t, s, "SELECT k, v FROM tort.kv WHERE k = ?")
	e := &tortureEnv{t: t, cl: cl, s: s, stats: &tortureStats{}, fail: &cqltest.Violations{}}
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Add(1)
	go func() {
		defer bg.Done()
		r := rand.New(rand.NewPCG(seed, 2))
		frozen := -1
		for {
			select {
			case <-stop:
				if frozen >= 0 {
					_ = cl.ThawNode(frozen)
				}
				return
			case <-time.After(time.Duration(2+r.IntN(10)) * time.Millisecond):
			}
			i := r.IntN(2)
			switch {
			case frozen >= 0 && r.IntN(5) == 0:
				_ = cl.ThawNode(frozen)
				frozen = -1
			case frozen < 0 && r.IntN(30) == 0:
				frozen = i
				_ = cl.FreezeNode(i)
			default:
				_ = cl.SetNodeDelay(i, time.Duration(r.IntN(20))*time.Millisecond)
			}
			e.stats.faults.Add(1)
		}
	}()
	var wg sync.WaitGroup
	for w := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(100+w)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				k := int64(r.IntN(100))
				big := r.IntN(4) == 0
				var st native.Statement
				switch {
				case big:
					k %= tortureBigKeys
					st = native.Query("SELECT k, v FROM tort.big WHERE k = ?", int32(k))
				case r.IntN(2) == 0:
					st = sel.Bind(k)
				default:
					st = native.Query("SELECT k, v FROM tort.kv WHERE k = ?", k)
				}
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				switch r.IntN(4) {
				case 0: // a timer of its own
					st = st.WithTimeout(time.Duration(1+r.IntN(25)) * time.Millisecond)
				case 1: // the coarse clock (a frozen node)
					st = st.WithTimeout(time.Second)
				case 2: // a context deadline
					ctx, cancel = context.WithTimeout(ctx, time.Duration(1+r.IntN(25))*time.Millisecond)
				default: // a cancellation
					var c context.CancelFunc
					ctx, c = context.WithCancel(ctx)
					tm := time.AfterFunc(time.Duration(r.IntN(25))*time.Millisecond, c)
					cancel = func() { tm.Stop(); c() }
				}
				var res *native.Result
				var err error
				if r.IntN(2) == 0 {
					res, err = s.Execute(ctx, st)
				} else {
					res, err = s.ExecuteAsync(ctx, st).Result()
				}
				cancel()
				e.note(err)
				switch {
				case err == nil && big:
					e.checkBig(w, int(k), res)
				case err == nil:
					e.checkKV(w, k, res)
				}
			}
		}()
	}
	time.Sleep(dur)
	close(stop)
	wg.Wait()
	bg.Wait()
	s.Close()
	e.fail.Report(t)
	t.Logf("%d requests (%d answered, %d failed: %v), %d delay changes", e.stats.ops.Load(), e.stats.okOps.Load(),
		e.stats.errOps.Load(), e.stats.kinds, e.stats.faults.Load())
	leaks()
}
