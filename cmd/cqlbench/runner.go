package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// driver runs the operations of one workload. op is called concurrently, once per operation;
// worker is the calling worker's index and n the operation's global sequence number.
type driver interface {
	op(ctx context.Context, worker int, n int64) error
	close()
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
	Progress    io.Writer // nil: no live progress line
}

// runResult is what one run (or several merged repetitions) measured.
type runResult struct {
	Driver      string
	Workload    string
	Concurrency int
	Ops         int64
	Elapsed     time.Duration
	CPU         time.Duration // user+system CPU of this process while measuring
	Allocs      uint64
	Bytes       uint64
	Errors      map[string]int64
	Request     *hdrhistogram.Histogram // request latency, µs
	Cycle       *hdrhistogram.Histogram // latency from the scheduled start, µs (only with a rate)
	Rated       bool
}

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, 120_000_000, 3) // 1 µs .. 120 s, 3 significant digits
}

// opsPerS is the measured throughput.
func (r *runResult) opsPerS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

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
	for k, v := range o.Errors {
		r.Errors[k] += v
	}
	r.Request.Merge(o.Request)
	r.Cycle.Merge(o.Cycle)
}

// snapshot is the process-wide counters read before and after the measured window.
type snapshot struct {
	cpu    time.Duration
	allocs uint64
	bytes  uint64
}

var metricNames = []string{"/gc/heap/allocs:objects", "/gc/heap/allocs:bytes"}

func takeSnapshot() snapshot {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	samples := []metrics.Sample{{Name: metricNames[0]}, {Name: metricNames[1]}}
	metrics.Read(samples)
	return snapshot{cpu: cpu, allocs: samples[0].Value.Uint64(), bytes: samples[1].Value.Uint64()}
}

// worker state, owned by one goroutine while the run lasts.
type workerStats struct {
	ops     int64
	request *hdrhistogram.Histogram
	cycle   *hdrhistogram.Histogram
	errors  map[string]int64
}

// errorKind names an error for the errors-by-type table.
func errorKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	}
	return fmt.Sprintf("%T", err)
}

// run drives d with cfg.Concurrency workers: a warm-up (not measured), then the measured window.
func run(ctx context.Context, d driver, cfg runConfig) (*runResult, error) {
	if cfg.Concurrency < 1 {
		return nil, fmt.Errorf("concurrency must be at least 1, got %d", cfg.Concurrency)
	}
	var seq atomic.Int64
	var measuring atomic.Bool
	var counted atomic.Int64
	stats := make([]workerStats, cfg.Concurrency)
	for i := range stats {
		stats[i] = workerStats{request: newHistogram(), cycle: newHistogram(), errors: map[string]int64{}}
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	start := time.Now()
	var interval time.Duration
	if cfg.Rate > 0 {
		interval = time.Duration(float64(time.Second) / cfg.Rate)
	}
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			st := &stats[w]
			for runCtx.Err() == nil {
				n := seq.Add(1) - 1
				// Times are offsets from start read with time.Since, which reads only the
				// monotonic clock (time.Now reads the wall clock too): half the clock reads
				// of the harness's per-operation cost, which every driver pays alike.
				var scheduled time.Duration
				if interval > 0 {
					scheduled = time.Duration(n) * interval
					if wait := scheduled - time.Since(start); wait > 0 {
						// time.Sleep allocates nothing (a timer would count against the
						// driver's allocs/op); it overshoots a closing window by at most one wait.
						time.Sleep(wait)
					}
				}
				t0 := time.Since(start)
				err := d.op(runCtx, w, n)
				end := time.Since(start)
				if runCtx.Err() != nil {
					return // the window closed under this operation: do not count it
				}
				if !measuring.Load() {
					continue
				}
				counted.Add(1)
				st.ops++
				if err != nil {
					st.errors[errorKind(err)]++
					continue
				}
				_ = st.request.RecordValue((end - t0).Microseconds())
				if interval > 0 {
					_ = st.cycle.RecordValue((end - scheduled).Microseconds())
				}
			}
		}(w)
	}

	progressDone := make(chan struct{})
	if cfg.Progress != nil {
		go func() {
			defer close(progressDone)
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			last, lastT := int64(0), time.Now()
			for {
				select {
				case <-runCtx.Done():
					fmt.Fprint(cfg.Progress, "\r\033[K")
					return
				case now := <-tick.C:
					c := counted.Load()
					phase := "warm-up"
					if measuring.Load() {
						phase = "measuring"
					}
					fmt.Fprintf(cfg.Progress, "\r\033[K%s %s c=%d %s: %.0f ops/s, %d ops",
						cfg.Driver, cfg.Workload, cfg.Concurrency, phase,
						float64(c-last)/now.Sub(lastT).Seconds(), c)
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
	if cfg.Warmup > 0 && !sleep(cfg.Warmup) {
		stop()
		wg.Wait()
		return nil, ctx.Err()
	}
	runtime.GC()
	before := takeSnapshot()
	t0 := time.Now()
	measuring.Store(true)
	ok := sleep(cfg.Duration)
	measuring.Store(false)
	elapsed := time.Since(t0)
	after := takeSnapshot()
	stop()
	wg.Wait()
	<-progressDone
	if !ok {
		return nil, ctx.Err()
	}

	res := &runResult{
		Driver: cfg.Driver, Workload: cfg.Workload, Concurrency: cfg.Concurrency,
		Elapsed: elapsed, CPU: after.cpu - before.cpu,
		Allocs: after.allocs - before.allocs, Bytes: after.bytes - before.bytes,
		Errors: map[string]int64{}, Request: newHistogram(), Cycle: newHistogram(), Rated: interval > 0,
	}
	for i := range stats {
		res.Ops += stats[i].ops
		res.Request.Merge(stats[i].request)
		res.Cycle.Merge(stats[i].cycle)
		for k, v := range stats[i].errors {
			res.Errors[k] += v
		}
	}
	return res, nil
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
