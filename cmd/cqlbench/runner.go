package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// requestTimeout is the request timeout of every driver that has one (the floor has none: the
// end of the run closes its sockets, see aborter).
const requestTimeout = 30 * time.Second

// driver runs the operations of one workload. op is called concurrently, once per operation;
// worker is the calling worker's index and n the operation's global sequence number.
type driver interface {
	op(ctx context.Context, worker int, n int64) error
	close()
}

// aborter is a driver whose operations nothing else would end when the server stops
// answering: run calls abort when the run ends (the window closed, or an interruption), so that
// an operation in flight then fails at once, whatever context it was given.
type aborter interface {
	abort()
}

// runConfig is one measured run.
type runConfig struct {
	Driver      string
	Workload    string
	Concurrency int
	Duration    time.Duration
	Warmup      time.Duration
	Rate        float64 // operations per second over all workers; 0 = as fast as possible
	Hosts       []string
	Progress    io.Writer     // nil: no live progress line
	ProgressDt  time.Duration // interval of the progress line; 0: a second
	// BackgroundOps runs each operation with context.Background() instead of the run's
	// cancellable context: drivers can skip watching a context that cannot end, and an
	// operation in flight when the window closes finishes instead of being cancelled.
	BackgroundOps bool
	// PortablePacer makes workers wait for their scheduled starts on Go timers even where a
	// timerfd is available (see pacer; --pacer timer).
	PortablePacer bool
}

// runResult is what one run (or several merged repetitions) measured.
type runResult struct {
	Driver      string
	Workload    string
	Concurrency int
	Ops         int64 // successful operations; failed ones are counted in Errors only
	Elapsed     time.Duration
	CPU         time.Duration // user+system CPU of this process while measuring
	Allocs      uint64
	Bytes       uint64
	Errors      map[string]int64
	Request     *hdrhistogram.Histogram // request latency, µs
	Cycle       *hdrhistogram.Histogram // latency from the scheduled start, µs (only with a rate)
	Rated       bool
	Saturated   int64 // latencies above the histograms' range, recorded at its highest value
	Behind      int64 // with a rate: operations due by the window's end that no worker had started
	// Unfinished counts the operations still in flight when the window closed (in no
	// histogram), and OldestUnfinished is how long the oldest of them had been running then.
	Unfinished       int64
	OldestUnfinished time.Duration
	// CoarsePacers counts the workers whose waits for their scheduled starts used Go timers
	// although a timerfd was asked for (see pacer), whose lateness is then in the cycle
	// latency; PacerErr says why (the first such worker's reason).
	CoarsePacers int64
	PacerErr     string
}

// histogramHighest is the highest latency the histograms track, in µs (120 s); a variable only
// so that tests can lower it.
var histogramHighest int64 = 120_000_000

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, histogramHighest, 3) // 1 µs .. 120 s, 3 significant digits
}

// opsPerS is the measured throughput of successful operations.
func (r *runResult) opsPerS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// perOp divides v, a cost over the whole window, by the successful operations.
func (r *runResult) perOp(v float64) float64 {
	if r.Ops == 0 {
		return 0
	}
	return v / float64(r.Ops)
}

// merge adds another repetition of the same driver and workload into r.
func (r *runResult) merge(o *runResult) {
	r.Ops += o.Ops
	r.Elapsed += o.Elapsed
	r.CPU += o.CPU
	r.Allocs += o.Allocs
	r.Bytes += o.Bytes
	r.Saturated += o.Saturated
	r.Behind += o.Behind
	r.Unfinished += o.Unfinished
	r.OldestUnfinished = max(r.OldestUnfinished, o.OldestUnfinished)
	r.CoarsePacers += o.CoarsePacers
	if r.PacerErr == "" {
		r.PacerErr = o.PacerErr
	}
	for k, v := range o.Errors {
		addErrors(r.Errors, k, v)
	}
	r.Request.Merge(o.Request)
	r.Cycle.Merge(o.Cycle)
}

// snapshot is the process-wide counters read before and after the measured window.
type snapshot struct {
	cpu    time.Duration
	allocs uint64 // runtime.MemStats.Mallocs
	bytes  uint64 // runtime.MemStats.TotalAlloc
}

// readMem reads the heap allocation counters the testing package reports (allocs/op and B/op
// of testing.B, testing.AllocsPerRun): Mallocs counts every allocation, tiny ones included,
// and ReadMemStats stops the world and flushes every processor's cached counts first, so the
// figure is exact at the moment it is read. (runtime/metrics' /gc/heap/allocs:objects leaves
// out tiny allocations and lags for objects in spans a processor still caches.)
func readMem(s *snapshot) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.allocs, s.bytes = ms.Mallocs, ms.TotalAlloc
}

// takeSnapshotBefore reads the counters at the start of the window: the allocation counters
// first, so that the stop-the-world of ReadMemStats is not in the CPU measured.
func takeSnapshotBefore() snapshot {
	var s snapshot
	readMem(&s)
	s.cpu = readCPU()
	return s
}

// takeSnapshotAfter reads the counters at the end of the window: CPU first, for the same reason.
func takeSnapshotAfter() snapshot {
	s := snapshot{cpu: readCPU()}
	readMem(&s)
	return s
}

// worker state, owned by one goroutine while the run lasts.
type workerStats struct {
	ops       int64
	request   latencies
	cycle     latencies
	errors    map[string]int64
	saturated int64 // latencies recorded at the histograms' highest value
	pacerErr  error // why the worker's pacer fell back to Go timers (see pacer.fallback)
	// opStart is when the worker's operation in flight started, as an offset from the run's
	// start in ns, or -1 between operations: read when the window closes (see Unfinished).
	opStart atomic.Int64
	// waitUntil is the scheduled start (an offset from the run's start in ns) the worker is
	// waiting for with a rate, or -1: read when the window closes (see lateWaits).
	waitUntil atomic.Int64
	_         [64]byte // keeps the next worker's counters off this worker's cache lines
}

// atClose looks at the workers when the window closes, at now (an offset from the run's
// start). It returns how many have an operation in flight and how long the oldest of them has
// been running, and how many are still waiting for a scheduled start that is already past
// (with a rate; their pacers wake late): such an operation was due in the window and has not
// started, so it is behind like the ones no worker has taken yet. Each worker is counted once:
// waitUntil is read before opStart, and a worker sets opStart before it clears waitUntil.
func atClose(stats []workerStats, now time.Duration) (inFlight int64, oldest time.Duration, late int64) {
	for i := range stats {
		due := stats[i].waitUntil.Load()
		if t0 := stats[i].opStart.Load(); t0 >= 0 {
			inFlight++
			oldest = max(oldest, now-time.Duration(t0))
		} else if due >= 0 && time.Duration(due) <= now {
			late++
		}
	}
	return inFlight, oldest, late
}

// latencyBatch is how many latencies a worker keeps before adding them to its histogram.
const latencyBatch = 256

// latencies is one worker's histogram of one kind of latency, with the latencies not yet added
// to it. Adding them in batches keeps the harness's cost per operation, which every driver pays
// alike, low: a histogram's counts (about 240 KiB at 1 µs .. 120 s and 3 digits) are out of the
// processor's caches by the time a worker records its next operation, so recording each one
// at once costs a cache miss or two, while a batch of them finds the lines it shares loaded.
type latencies struct {
	h       *hdrhistogram.Histogram
	pending []int64
}

func newLatencies() latencies {
	return latencies{h: newHistogram(), pending: make([]int64, 0, latencyBatch)}
}

// add notes latency us, adding the batch to the histogram when it is full (see flush).
func (l *latencies) add(us int64, saturated *int64) {
	l.pending = append(l.pending, us)
	if len(l.pending) == cap(l.pending) {
		l.flush(saturated)
	}
}

// flush adds the noted latencies to the histogram. A latency beyond what it tracks (which
// RecordValue refuses, and which would otherwise be lost without a trace) is recorded at its
// highest trackable value and counted in *saturated, so that every operation is in the
// histogram and its high percentiles show the saturation.
func (l *latencies) flush(saturated *int64) {
	hi := l.h.HighestTrackableValue()
	for _, us := range l.pending {
		if us > hi {
			us = hi
			*saturated++
		}
		_ = l.h.RecordValue(us)
	}
	l.pending = l.pending[:0]
}

// maxErrorKinds bounds the distinct error kinds kept per worker and per result; further kinds
// are counted under otherErrors.
const maxErrorKinds = 16

// otherErrors is the kind of the errors beyond maxErrorKinds kinds.
const otherErrors = "other"

// addErrors adds n errors of kind to m, keeping at most maxErrorKinds kinds besides otherErrors.
func addErrors(m map[string]int64, kind string, n int64) {
	if _, ok := m[kind]; !ok && kind != otherErrors {
		kinds := len(m)
		if _, ok := m[otherErrors]; ok {
			kinds--
		}
		if kinds >= maxErrorKinds {
			kind = otherErrors
		}
	}
	m[kind] += n
}

// errorKind names an error for the errors-by-kind table: the context errors, a few sentinels
// and system call errors by name, otherwise the first error of a type of its own in the chain
// (a driver's typed error: *native.ReadTimeoutError, *net.OpError, gocql.RequestErrWriteTimeout,
// ...) by its type, otherwise (errors.New and fmt.Errorf all the way down) the start of the
// message with its numbers (addresses, ports, stream ids, ...) replaced, so that a kind does not
// split per operation.
func errorKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	case errors.Is(err, io.EOF):
		return "io.EOF"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "io.ErrUnexpectedEOF"
	case errors.Is(err, net.ErrClosed):
		return "net.ErrClosed"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return "errno " + errno.Error()
	}
	if t := typedError(err); t != nil {
		return fmt.Sprintf("%T", t)
	}
	return "error: " + messagePrefix(err.Error())
}

// typedError returns the first error in err's chain (depth first) whose type is not one of the
// standard library's plain and wrapping errors, or nil.
func typedError(err error) error {
	if err == nil {
		return nil
	}
	switch fmt.Sprintf("%T", err) {
	case "*errors.errorString", "*fmt.wrapError", "*fmt.wrapErrors", "*errors.joinError":
	default:
		return err
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return typedError(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if t := typedError(e); t != nil {
				return t
			}
		}
	}
	return nil
}

// messagePrefixLen is how much of an untyped error's message names its kind.
const messagePrefixLen = 60

// messagePrefix normalizes an error message into a kind: every number (a run of decimal
// digits, or 0x and hex digits) becomes "N", runs of white space become one space, and the
// result is cut to messagePrefixLen bytes.
func messagePrefix(msg string) string {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isHex := func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
	var b strings.Builder
	for i := 0; i < len(msg); {
		if b.Len() >= messagePrefixLen {
			b.WriteString("...")
			break
		}
		c := msg[i]
		switch {
		case isDigit(c):
			if c == '0' && i+2 < len(msg) && msg[i+1]|0x20 == 'x' && isHex(msg[i+2]) {
				for i += 2; i < len(msg) && isHex(msg[i]); i++ {
				}
			} else {
				for ; i < len(msg) && isDigit(msg[i]); i++ {
				}
			}
			b.WriteByte('N')
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for ; i < len(msg) && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\n' || msg[i] == '\r'); i++ {
			}
			b.WriteByte(' ')
		default: // a whole character, so that the cut never splits one
			_, size := utf8.DecodeRuneInString(msg[i:])
			b.WriteString(msg[i : i+size])
			i += size
		}
	}
	return strings.TrimSpace(b.String())
}

// rateInterval is the interval between the scheduled starts of operations at rate operations per
// second; 0 for rate 0 (as fast as possible). A rate that is not finite, negative, or whose
// interval is under a nanosecond or beyond what a time.Duration holds is an error.
func rateInterval(rate float64) (time.Duration, error) {
	switch {
	case math.IsNaN(rate) || math.IsInf(rate, 0):
		return 0, fmt.Errorf("%v is not a finite number", rate)
	case rate < 0:
		return 0, fmt.Errorf("%v is negative", rate)
	case rate == 0:
		return 0, nil
	}
	iv := float64(time.Second) / rate
	switch {
	case iv < 1:
		return 0, fmt.Errorf("%v per second is too high: operations less than 1 ns apart (at most 1e9 per second)", rate)
	case iv >= math.MaxInt64: // float64(math.MaxInt64) is 2^63, one past the largest Duration
		return 0, fmt.Errorf("%v per second is too low: operations would be more than a time.Duration (about 292 years) apart", rate)
	}
	return time.Duration(iv), nil
}

// Phases of a run.
const (
	phaseWarmup int32 = iota
	phaseMeasuring
	phaseClosed // the window has ended: no further operation starts
)

// run drives d with cfg.Concurrency workers: a warm-up (not measured), then the measured window.
// It returns ctx's error when ctx ends before the run has.
func run(ctx context.Context, d driver, cfg runConfig) (*runResult, error) {
	if cfg.Concurrency < 1 {
		return nil, fmt.Errorf("concurrency must be at least 1, got %d", cfg.Concurrency)
	}
	interval, err := rateInterval(cfg.Rate)
	if err != nil {
		return nil, fmt.Errorf("rate: %w", err)
	}
	var seq atomic.Int64
	var phase atomic.Int32
	var succeeded, failed atomic.Int64 // for the progress line, in every phase
	stats := make([]workerStats, cfg.Concurrency)
	for i := range stats {
		stats[i] = workerStats{request: newLatencies(), cycle: newLatencies(), errors: map[string]int64{}}
		stats[i].opStart.Store(-1)
		stats[i].waitUntil.Store(-1)
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if a, ok := d.(aborter); ok {
		context.AfterFunc(runCtx, a.abort)
	}
	opCtx := runCtx
	if cfg.BackgroundOps {
		opCtx = context.Background()
	}
	start := time.Now()
	// With a rate, op n is scheduled at n*interval from start; beyond lastN that no longer fits
	// a time.Duration (the window is long over by then).
	var lastN int64
	if interval > 0 {
		lastN = int64(math.MaxInt64 / interval)
	}
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			st := &stats[w]
			// One pacer per worker, made before the window and reused for every wait: waiting
			// allocates nothing that would count against the driver's allocs/op. The end of
			// the run (window closed, interrupted) ends its wait.
			var pace *pacer
			if interval > 0 {
				pace = newPacer(cfg.PortablePacer)
				defer func() {
					st.pacerErr = pace.fallback // read by run after wg.Wait
					pace.close()
				}()
				defer context.AfterFunc(runCtx, pace.stop)()
			}
			for runCtx.Err() == nil && phase.Load() != phaseClosed {
				n := seq.Add(1) - 1
				// Times are offsets from start read with time.Since, which reads only the
				// monotonic clock (time.Now reads the wall clock too): half the clock reads
				// of the harness's per-operation cost, which every driver pays alike.
				var scheduled time.Duration
				if interval > 0 {
					if n > lastN {
						<-runCtx.Done()
						return
					}
					scheduled = time.Duration(n) * interval
					if wait := scheduled - time.Since(start); wait > 0 {
						st.waitUntil.Store(int64(scheduled))
						// The wait ends early when the run ends (window closed, interrupted):
						// a worker never outlives the run by more than an operation in flight.
						if pace.wait(wait) != nil {
							return
						}
						if phase.Load() == phaseClosed {
							return // the window closed during the wait: start nothing more
						}
					}
				}
				// Only an operation that starts and ends inside the window is measured: one
				// started in the warm-up would bring warm-up time into the latencies.
				startPhase := phase.Load()
				t0 := time.Since(start)
				st.opStart.Store(int64(t0))
				st.waitUntil.Store(-1)
				err := d.op(opCtx, w, n)
				end := time.Since(start)
				st.opStart.Store(-1)
				if runCtx.Err() != nil {
					return // the window closed under this operation: do not count it
				}
				measuring := startPhase == phaseMeasuring && phase.Load() == phaseMeasuring
				if err != nil {
					failed.Add(1)
					if measuring {
						addErrors(st.errors, errorKind(err), 1)
					}
					continue
				}
				succeeded.Add(1)
				if !measuring {
					continue
				}
				st.ops++
				st.request.add((end - t0).Microseconds(), &st.saturated)
				if interval > 0 {
					st.cycle.add((end - scheduled).Microseconds(), &st.saturated)
				}
			}
		}(w)
	}

	progressDone := make(chan struct{})
	if cfg.Progress != nil {
		dt := cfg.ProgressDt
		if dt <= 0 {
			dt = time.Second
		}
		go func() {
			defer close(progressDone)
			tick := time.NewTicker(dt)
			defer tick.Stop()
			last, lastT := int64(0), time.Now()
			for {
				select {
				case <-runCtx.Done():
					fmt.Fprint(cfg.Progress, "\r\033[K")
					return
				case now := <-tick.C:
					c := succeeded.Load()
					fmt.Fprint(cfg.Progress, progressLine(cfg, phase.Load(), float64(c-last)/now.Sub(lastT).Seconds(), c, failed.Load()))
					last, lastT = c, now
				}
			}
		}()
	} else {
		close(progressDone)
	}

	sleep := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	finish := func() {
		phase.Store(phaseClosed)
		stop()
		wg.Wait()
		<-progressDone
	}
	if cfg.Warmup > 0 && !sleep(cfg.Warmup) {
		finish()
		return nil, ctx.Err()
	}
	runtime.GC()
	before := takeSnapshotBefore()
	t0 := time.Now()
	phase.Store(phaseMeasuring)
	ok := sleep(cfg.Duration)
	phase.Store(phaseClosed)
	elapsed := time.Since(t0)
	closedAt := time.Since(start)
	unfinished, oldest, behind := atClose(stats, closedAt)
	if interval > 0 {
		// Operations 0..due-1 were scheduled by now; seq has handed out 0..seq-1 (every one
		// either done, in flight or waiting for its time, on time or late).
		if due := int64(closedAt/interval) + 1; due > seq.Load() {
			behind += due - seq.Load()
		}
	}
	after := takeSnapshotAfter()
	finish()
	if !ok || ctx.Err() != nil {
		return nil, ctx.Err()
	}

	res := &runResult{
		Driver: cfg.Driver, Workload: cfg.Workload, Concurrency: cfg.Concurrency,
		Elapsed: elapsed, CPU: after.cpu - before.cpu,
		Allocs: after.allocs - before.allocs, Bytes: after.bytes - before.bytes,
		Errors: map[string]int64{}, Request: newHistogram(), Cycle: newHistogram(), Rated: interval > 0,
		Behind: behind, Unfinished: unfinished, OldestUnfinished: oldest,
	}
	for i := range stats {
		st := &stats[i]
		st.request.flush(&st.saturated)
		st.cycle.flush(&st.saturated)
		res.Ops += st.ops
		res.Saturated += st.saturated
		if st.pacerErr != nil {
			res.CoarsePacers++
			if res.PacerErr == "" {
				res.PacerErr = st.pacerErr.Error()
			}
		}
		res.Request.Merge(st.request.h)
		res.Cycle.Merge(st.cycle.h)
		for _, k := range sortedKeys(stats[i].errors) {
			addErrors(res.Errors, k, stats[i].errors[k])
		}
	}
	return res, nil
}

// progressLine is the live progress line: the phase, the rate of successful operations over the
// last interval, and the successful and failed operations since the run started (warm-up
// included).
func progressLine(cfg runConfig, phase int32, rate float64, ops, errs int64) string {
	name := "warm-up"
	if phase != phaseWarmup {
		name = "measuring"
	}
	line := fmt.Sprintf("\r\033[K%s %s c=%d %s: %.0f ops/s, %d ops", cfg.Driver, cfg.Workload, cfg.Concurrency, name, rate, ops)
	if errs > 0 {
		line += fmt.Sprintf(", %d errors", errs)
	}
	return line
}

// sortedKeys returns m's keys in order (for stable output).
func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
