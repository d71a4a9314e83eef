package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// stubDriver is a driver whose operations are a function of the test's.
type stubDriver struct {
	do     func(ctx context.Context, worker int, n int64) error
	closed func()
}

func (d *stubDriver) op(ctx context.Context, worker int, n int64) error { return d.do(ctx, worker, n) }

func (d *stubDriver) close() {
	if d.closed != nil {
		d.closed()
	}
}

// opLog records the sequence numbers of the operations a stub driver started.
type opLog struct {
	mu sync.Mutex
	ns []int64
}

func (l *opLog) add(n int64) {
	l.mu.Lock()
	l.ns = append(l.ns, n)
	l.mu.Unlock()
}

func (l *opLog) started() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int64(nil), l.ns...)
}

// TestRateWaitEndsWithWindow: at one operation an hour, only operation 0 (scheduled at the
// run's start) may start in a short window, and the run returns when its window ends instead of
// waiting for the workers' next scheduled starts, hours away. (Before the fix the workers slept
// until then and the run hung: this test then fails by the test binary's -timeout.)
// Both pacers (timerfd and Go timers) are run.
func TestRateWaitEndsWithWindow(t *testing.T) {
	for _, portable := range []bool{false, true} {
		var log opLog
		d := &stubDriver{do: func(_ context.Context, _ int, n int64) error { log.add(n); return nil }}
		res, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 8,
			Duration: 50 * time.Millisecond, Rate: 1.0 / 3600, PortablePacer: portable})
		if err != nil {
			t.Fatal(err)
		}
		if got := log.started(); len(got) != 1 || got[0] != 0 {
			t.Errorf("portable pacer %v: operations started: %v, want only [0]", portable, got)
		}
		if !res.Rated {
			t.Errorf("portable pacer %v: the result is not marked as rated", portable)
		}
	}
}

// TestRateWaitEndsOnInterrupt: a worker waiting for its operation's scheduled start stops
// waiting when the run's context ends, and the run returns the context's error.
func TestRateWaitEndsOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log opLog
	d := &stubDriver{do: func(_ context.Context, _ int, n int64) error {
		log.add(n)
		// The interruption comes while the other workers wait for their operations, an hour
		// and more away.
		waitForBlockedWorkers(3)
		cancel()
		return nil
	}}
	_, err := run(ctx, d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 4,
		Duration: 2 * time.Hour, Rate: 1.0 / 3600})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("run: %v, want context.Canceled", err)
	}
	if got := log.started(); len(got) != 1 {
		t.Errorf("operations started: %v, want only [0]", got)
	}
}

// waitForBlockedWorkers returns once n goroutines started by run are blocked (asleep, in a
// select, or waiting on the pacer's timerfd), as workers are while they wait for their
// operations' scheduled starts.
func waitForBlockedWorkers(n int) {
	createdByRun := "created by " + runtime.FuncForPC(reflect.ValueOf(run).Pointer()).Name() + " in "
	buf := make([]byte, 1<<20)
	for {
		stacks := string(buf[:runtime.Stack(buf, true)])
		blocked := 0
		for _, g := range strings.Split(stacks, "\n\n") {
			if (strings.Contains(g, " [sleep") || strings.Contains(g, " [select") || strings.Contains(g, " [IO wait")) && strings.Contains(g, createdByRun) {
				blocked++
			}
		}
		if blocked >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRunRejectsBadRate: run itself refuses rates whose interval is not a positive
// time.Duration rather than running unthrottled.
func TestRunRejectsBadRate(t *testing.T) {
	d := &stubDriver{do: func(context.Context, int, int64) error { t.Error("an operation ran"); return nil }}
	for _, rate := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 2e9, 1e-300} {
		if _, err := run(context.Background(), d, runConfig{Concurrency: 1, Duration: time.Millisecond, Rate: rate}); err == nil {
			t.Errorf("run with rate %v: no error", rate)
		}
	}
	for _, tc := range []struct {
		rate float64
		want time.Duration
	}{{0, 0}, {1, time.Second}, {1e9, time.Nanosecond}, {0.5, 2 * time.Second}} {
		if got, err := rateInterval(tc.rate); err != nil || got != tc.want {
			t.Errorf("rateInterval(%v) = %v, %v; want %v", tc.rate, got, err, tc.want)
		}
	}
}

// TestRunCountsOnlySuccesses: failed operations are counted in Errors only, not in the
// operations that throughput and the per-operation costs divide by. With one worker failing
// every other operation, the window holds as many failures as successes, give or take one.
func TestRunCountsOnlySuccesses(t *testing.T) {
	errOdd := errors.New("odd operation refused")
	d := &stubDriver{do: func(_ context.Context, _ int, n int64) error {
		if n%2 == 1 {
			return fmt.Errorf("op %d: %w", n, errOdd)
		}
		return nil
	}}
	res, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 1,
		Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var failed int64
	for _, v := range res.Errors {
		failed += v
	}
	if res.Ops == 0 || failed < res.Ops-1 || failed > res.Ops+1 {
		t.Errorf("%d operations counted and %d errors (%v); want as many errors as operations", res.Ops, failed, res.Errors)
	}
	if got, want := res.Errors["error: op N: odd operation refused"], failed; got != want {
		t.Errorf("errors by kind %v, want all %d under one kind", res.Errors, want)
	}
	if got := int64(res.Request.TotalCount()); got != res.Ops {
		t.Errorf("%d latencies recorded for %d successful operations", got, res.Ops)
	}
	if want := float64(res.Ops) / res.Elapsed.Seconds(); res.opsPerS() != want {
		t.Errorf("opsPerS %v, want successes/elapsed %v", res.opsPerS(), want)
	}
}

type stubError struct{ code int }

func (e *stubError) Error() string { return "stub error " + strconv.Itoa(e.code) }

// TestErrorKind: error kinds name something useful (a typed error's type, a system call error,
// a normalized message) instead of the wrapper's type, and are bounded in number.
func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("native: %w", context.DeadlineExceeded), "context.DeadlineExceeded"},
		{fmt.Errorf("x: %w", syscall.ECONNRESET), "errno connection reset by peer"},
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.EPIPE}, "errno broken pipe"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("no route")}, "*net.OpError"},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", &stubError{7})), "*main.stubError"},
		{errors.Join(errors.New("plain"), &stubError{1}), "*main.stubError"},
		{fmt.Errorf("conn: %w", errShortRead{0, 1}), "main.errShortRead"},
		{fmt.Errorf("read: %w", fmt.Errorf("frame: %w", errors.New("x"))), "error: read: frame: x"},
		{errors.New("server error 0x2200: table t12 on 10.0.0.1:9042,   stream 17"), "error: server error N: table tN on N.N.N.N:N, stream N"},
		{errors.New(strings.Repeat("long message ", 20)), "error: " + strings.Repeat("long message ", 5)[:messagePrefixLen] + "..."},
	} {
		if got := errorKind(tc.err); got != tc.want {
			t.Errorf("errorKind(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
	// Messages that differ only in their numbers are one kind.
	if a, b := errorKind(fmt.Errorf("stream %d: timeout after %dms", 5, 100)), errorKind(fmt.Errorf("stream %d: timeout after %dms", 1234, 7)); a != b {
		t.Errorf("kinds %q and %q differ", a, b)
	}

	m := map[string]int64{}
	for i := 0; i < 100; i++ {
		addErrors(m, "kind "+strings.Repeat("x", i), 1)
	}
	if len(m) != maxErrorKinds+1 || m[otherErrors] != 100-maxErrorKinds {
		t.Errorf("after 100 kinds: %d kinds, %d other; want %d kinds and %d other", len(m), m[otherErrors], maxErrorKinds+1, 100-maxErrorKinds)
	}
}

// Sinks that make allocOp's objects escape to the heap (atomic: workers call it concurrently).
var (
	sinkA   atomic.Pointer[[8]byte]
	sinkB   atomic.Pointer[[4]byte]
	sinkBuf atomic.Pointer[[64]byte]
)

// allocOp allocates like a small driver operation: two tiny objects (pointer-free, under 16
// bytes: the runtime packs them into shared 16-byte blocks) and one 64-byte buffer.
func allocOp() {
	a, b, buf := new([8]byte), new([4]byte), new([64]byte)
	sinkA.Store(a)
	sinkB.Store(b)
	sinkBuf.Store(buf)
}

// TestAllocsMatchTesting: allocs/op and B/op are those the testing package reports for the same
// operation: tiny allocations are counted and nothing is missed for objects still in a
// processor's cache. (runtime/metrics' heap counters, used before, left out the tiny ones.)
func TestAllocsMatchTesting(t *testing.T) {
	wantAllocs := testing.AllocsPerRun(1000, allocOp)
	if wantAllocs != 3 {
		t.Fatalf("testing.AllocsPerRun: %v allocations per operation, want 3", wantAllocs)
	}
	const calls = 100000
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := 0; i < calls; i++ {
		allocOp()
	}
	runtime.ReadMemStats(&m1)
	wantBytes := float64(m1.TotalAlloc-m0.TotalAlloc) / calls

	// The operation yields, as a real one waits for its response: operations that never yield
	// keep the harness's own goroutine off the processors for up to a scheduling time slice
	// between the window's start and its first reading, and the allocations of the
	// operations that run meanwhile would count without the operations.
	d := &stubDriver{do: func(context.Context, int, int64) error { allocOp(); runtime.Gosched(); return nil }}
	res, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 2,
		Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.record()
	t.Logf("%d ops: %.2f allocs/op, %.1f B/op (testing: %v allocs/op, %.1f B/op)", res.Ops, rec.AllocsPerOp, rec.BytesPerOp, wantAllocs, wantBytes)
	// The harness's own allocations in the window (a timer, ...) are a handful over many
	// thousand operations, and a delay of the harness's goroutine at the window's start on a
	// busy machine adds a few hundredths: both far within the tolerances here. (Counting
	// without tiny allocations gave 1 allocation and 64 B per operation.)
	if rec.AllocsPerOp < wantAllocs || rec.AllocsPerOp > wantAllocs+0.25 {
		t.Errorf("allocs/op %v, want %v (testing.AllocsPerRun)", rec.AllocsPerOp, wantAllocs)
	}
	if rec.BytesPerOp < wantBytes*0.95 || rec.BytesPerOp > wantBytes*1.05 {
		t.Errorf("B/op %v, want %.1f (runtime.MemStats.TotalAlloc)", rec.BytesPerOp, wantBytes)
	}
}

// progressOps matches a progress line's phase and operation count.
var progressOps = regexp.MustCompile(`(warm-up|measuring): \d+ ops/s, (\d+) ops`)

// TestProgressCountsWarmup: the progress line counts the operations of the warm-up too (it
// showed "0 ops/s, 0 ops" until the window opened).
func TestProgressCountsWarmup(t *testing.T) {
	var progress bytes.Buffer // written by the run's progress goroutine only, read after the run
	d := &stubDriver{do: func(context.Context, int, int64) error { return nil }}
	_, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 2,
		Warmup: 300 * time.Millisecond, Duration: 50 * time.Millisecond, Progress: &progress, ProgressDt: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	warmupLines, counted := 0, false
	for _, m := range progressOps.FindAllStringSubmatch(progress.String(), -1) {
		if m[1] == "warm-up" {
			warmupLines++
			counted = counted || m[2] != "0"
		}
	}
	if warmupLines == 0 || !counted {
		t.Errorf("%d warm-up progress lines, none counting operations:\n%q", warmupLines, progress.String())
	}
	if got := progressLine(runConfig{Driver: "x", Workload: "w", Concurrency: 3}, phaseMeasuring, 12, 34, 5); !strings.HasSuffix(got, "x w c=3 measuring: 12 ops/s, 34 ops, 5 errors") {
		t.Errorf("progress line %q", got)
	}
}

// TestSecondSignalEndsProcess: after the first SIGINT has ended the run's context, a second
// SIGINT ends the process (the default action), instead of being caught again while the first
// is being handled. The test runs itself as a child process that takes the signals.
func TestSecondSignalEndsProcess(t *testing.T) {
	if os.Getenv("CQLBENCH_SIGNAL_CHILD") == "1" {
		signalChild()
		return
	}
	cmd := newSelfCommand(t, "^TestSecondSignalEndsProcess$", "CQLBENCH_SIGNAL_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := newLineReader(out)
	if l := lines.next(); l != "ready" {
		cmd.Process.Kill()
		t.Fatalf("child: %q, want ready", l)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if l := lines.next(); l != "cancelled: signal interrupt" {
		cmd.Process.Kill()
		t.Fatalf("child after the first SIGINT: %q, want the context cancelled by the signal", l)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("child after the second SIGINT: %v (%v), want ended by SIGINT", err, cmd.ProcessState)
	}
}

// signalChild is the child process of TestSecondSignalEndsProcess: it waits for the first
// signal to end the context, says so, and then waits for the second to end the process.
func signalChild() {
	ctx, stop := interruptContext(context.Background())
	defer stop()
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("cancelled:", context.Cause(ctx))
	// A child whose second signal was caught would wait here forever; it gives up after a
	// minute (exit status 3, which fails the test) only so that it does not linger.
	time.Sleep(time.Minute)
	os.Exit(3)
}

// newSelfCommand runs this test binary again, running only the tests matching pattern, with env
// added to its environment.
func newSelfCommand(t *testing.T, pattern string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run="+pattern, "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	return cmd
}

// lineReader reads a child's output line by line.
type lineReader struct{ sc *bufio.Scanner }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewScanner(r)} }

// next returns the next line, or "" at the end of the output.
func (l *lineReader) next() string {
	if l.sc.Scan() {
		return l.sc.Text()
	}
	return ""
}

// TestLatencyAboveHistogramRange: a latency above the histograms' highest trackable value is
// recorded (at that value, and counted as saturated), not silently dropped: every successful
// operation has its request latency, and a rated run its cycle latency, in the histograms, and
// their high percentiles show the saturation instead of hiding the slowest operations. (Before
// the fix RecordValue's error was ignored and the values were lost: a client falling behind its
// --rate for longer than 120 s lost exactly its worst cycle latencies.)
func TestLatencyAboveHistogramRange(t *testing.T) {
	defer func(h int64) { histogramHighest = h }(histogramHighest)
	histogramHighest = 1000 // 1 ms
	d := &stubDriver{do: func(context.Context, int, int64) error { time.Sleep(3 * time.Millisecond); return nil }}
	res, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 2,
		Duration: 100 * time.Millisecond, Rate: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops == 0 {
		t.Fatal("no operation measured")
	}
	for name, h := range map[string]*hdrhistogram.Histogram{"request": res.Request, "cycle": res.Cycle} {
		if got := h.TotalCount(); got != res.Ops {
			t.Errorf("%s latencies: %d recorded for %d successful operations", name, got, res.Ops)
		}
		if p := h.ValueAtQuantile(99); p < histogramHighest {
			t.Errorf("%s p99 %d µs, want the saturated %d µs", name, p, histogramHighest)
		}
	}
	if res.Saturated != 2*res.Ops {
		t.Errorf("%d saturated latencies, want %d (every request and cycle latency)", res.Saturated, 2*res.Ops)
	}
	var out bytes.Buffer
	printTable(&out, []*runResult{res})
	if !strings.Contains(out.String(), "above the histograms' range") {
		t.Errorf("the table does not say that latencies were saturated:\n%s", out.String())
	}
}

// TestRateBehindScheduleReported: a client that cannot keep up with --rate leaves operations
// that were due in the window unstarted at its end; their cycle latency (at least the time they
// had waited) is in no histogram, so the cycle percentiles understate the queue. The run counts
// them and the table says so. (Before the fix nothing said that the cycle latency left out a
// backlog of, here, three quarters of the schedule.) A client that keeps up has none.
func TestRateBehindScheduleReported(t *testing.T) {
	slow := &stubDriver{do: func(context.Context, int, int64) error { time.Sleep(2 * time.Millisecond); return nil }}
	res, err := run(context.Background(), slow, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 1,
		Duration: 200 * time.Millisecond, Rate: 2000})
	if err != nil {
		t.Fatal(err)
	}
	// 400 operations are due in 200 ms; one worker taking 2 ms each starts at most 100.
	if res.Behind < 200 {
		t.Errorf("%d operations behind the schedule (%d done), want at least 200", res.Behind, res.Ops)
	}
	var out bytes.Buffer
	printTable(&out, []*runResult{res})
	if !strings.Contains(out.String(), "fell behind --rate") {
		t.Errorf("the table does not say that the client fell behind:\n%s", out.String())
	}

	fast := &stubDriver{do: func(context.Context, int, int64) error { return nil }}
	res, err = run(context.Background(), fast, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 2,
		Duration: 100 * time.Millisecond, Rate: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// 0, or a couple if both workers were descheduled just as the window closed (a busy machine).
	if res.Behind > 2 {
		t.Errorf("a client keeping up: %d operations behind the schedule, want 0", res.Behind)
	}
	out.Reset()
	printTable(&out, []*runResult{res})
	if res.Behind == 0 && strings.Contains(out.String(), "fell behind") {
		t.Errorf("the table says a client keeping up fell behind:\n%s", out.String())
	}
}

// TestOpContext: operations get the run's context, which ends with the window, or with
// BackgroundOps a context that cannot end.
func TestOpContext(t *testing.T) {
	for _, background := range []bool{false, true} {
		var cancellable, total atomic.Int64
		d := &stubDriver{do: func(ctx context.Context, _ int, _ int64) error {
			total.Add(1)
			if ctx.Done() != nil {
				cancellable.Add(1)
			}
			time.Sleep(time.Millisecond)
			return nil
		}}
		_, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 2,
			Duration: 30 * time.Millisecond, BackgroundOps: background})
		if err != nil {
			t.Fatal(err)
		}
		want := total.Load()
		if background {
			want = 0
		}
		if total.Load() == 0 || cancellable.Load() != want {
			t.Errorf("BackgroundOps %v: %d of %d operations had a cancellable context, want %d", background, cancellable.Load(), total.Load(), want)
		}
	}
}
