package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// drivers maps --driver names to their constructors.
var drivers = map[string]func(context.Context, runConfig) (driver, error){
	"gocql":  newGocqlDriver,
	"floor":  newFloorDriver,
	"native": newNativeDriver,
	"compat": newCompatDriver,
}

func main() {
	if err := mainErr(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the usage was printed
		}
		fmt.Fprintln(os.Stderr, "cqlbench:", err)
		if errors.Is(err, errInterrupted) {
			os.Exit(130) // as a shell reports a command ended by SIGINT
		}
		os.Exit(1)
	}
}

// errInterrupted is the error of a run ended by a signal (or by its context ending otherwise).
var errInterrupted = errors.New("interrupted")

// interruptContext returns a context cancelled by the first SIGINT or SIGTERM, with the signal
// as its cause. Once that signal has arrived the signals have their default effect again, so
// that a second one ends the process at once, even while the first is being handled (workers
// winding down, cqlsim shutting down). stop releases the signals and cancels the context.
func interruptContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs) // before ctx is cancelled: whoever sees ctx end can rely on it
			cancel(fmt.Errorf("signal %v", sig))
		case <-done:
			signal.Stop(sigs)
		case <-ctx.Done(): // the parent ended
			signal.Stop(sigs)
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(done)
			cancel(nil)
		})
	}
}

// interrupted is the error of a run whose context ended: it names the cause and says that no
// results were reported.
func interrupted(ctx context.Context) error {
	return fmt.Errorf("%w (%v): no results printed or written", errInterrupted, context.Cause(ctx))
}

// The values of --op-context.
const (
	opContextCancellable = "cancellable"
	opContextBackground  = "background"
)

// The values of --pacer.
const (
	pacerTimerfd = "timerfd"
	pacerTimer   = "timer"
)

type options struct {
	driver, workload, hosts, jsonPath, compare, plotPath string
	cpuProfile, opContext, pacer                         string
	concurrency, reps                                    int
	duration, warmup                                     time.Duration
	rate                                                 float64
	sim                                                  bool
	compareList                                          []string // --compare split, when given
	hostList                                             []string // --hosts parsed, when given
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("cqlbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.driver, "driver", "native", "driver to run: gocql, compat, native or floor (not with --compare)")
	fs.StringVar(&o.workload, "workload", wlReadPrepared, "workload: "+strings.Join(workloadNames, ", "))
	fs.IntVar(&o.concurrency, "concurrency", 1, "concurrent workers (each with one request in flight)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured duration of each run")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured warm-up before each run")
	fs.Float64Var(&o.rate, "rate", 0, "target operations per second over all workers (positive; without it: as fast as possible); enables cycle latency")
	fs.StringVar(&o.hosts, "hosts", "", "comma-separated server addresses (host, host:port, IPv6 as ::1, [::1] or [::1]:port)")
	fs.BoolVar(&o.sim, "sim", false, "start cqlsim as a separate process and run against it")
	fs.StringVar(&o.jsonPath, "json", "", "write results as JSON to this file")
	fs.StringVar(&o.compare, "compare", "", "comma-separated drivers to run in turn against the same server (e.g. gocql,compat,native,floor)")
	fs.IntVar(&o.reps, "reps", 3, "with --compare: interleaved repetitions per driver")
	fs.StringVar(&o.plotPath, "plot", "", "write an SVG of latency distributions (with --rate, cycle latency dashed) and throughput to this file")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the client process (runs and warm-ups, not the data set-up) to this file")
	fs.StringVar(&o.opContext, "op-context", opContextCancellable, "the context of each operation: cancellable (the run's, ended with the window; as a request's context in a server) or background (context.Background(), which cannot end)")
	fs.StringVar(&o.pacer, "pacer", pacerTimerfd, "with --rate, how workers wait for scheduled starts: timerfd (Linux; wakes within tens of µs, one wake-up per operation) or timer (Go timers: up to about 1 ms late when the process is idle, fewer wake-ups); timerfd falls back to timer elsewhere")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.opContext != opContextCancellable && o.opContext != opContextBackground {
		return nil, fmt.Errorf("--op-context %q: want %s or %s", o.opContext, opContextCancellable, opContextBackground)
	}
	if o.pacer != pacerTimerfd && o.pacer != pacerTimer {
		return nil, fmt.Errorf("--pacer %q: want %s or %s", o.pacer, pacerTimerfd, pacerTimer)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := checkWorkload(o.workload); err != nil {
		return nil, err
	}
	if set["hosts"] == o.sim || (set["hosts"] && strings.TrimSpace(o.hosts) == "") {
		return nil, errors.New("give exactly one of --hosts HOSTS or --sim")
	}
	if o.concurrency < 1 || o.concurrency > 4096 {
		return nil, fmt.Errorf("--concurrency must be 1..4096, got %d", o.concurrency)
	}
	if o.duration <= 0 {
		return nil, fmt.Errorf("--duration must be positive, got %v", o.duration)
	}
	if o.warmup < 0 {
		return nil, fmt.Errorf("--warmup must not be negative, got %v", o.warmup)
	}
	if set["rate"] && o.rate == 0 {
		// An explicit 0 (often an unset variable in a script) is not a rate: refused rather than
		// run unthrottled, without the cycle latency that --rate promises.
		return nil, fmt.Errorf("--rate %s schedules no operation: leave --rate out to run as fast as possible",
			fs.Lookup("rate").Value.String())
	}
	interval, err := rateInterval(o.rate)
	if err != nil {
		return nil, fmt.Errorf("--rate: %w", err)
	}
	if interval > o.duration {
		return nil, fmt.Errorf("--rate %v schedules one operation every %v, longer than --duration %v: "+
			"no operation would be measured (raise --rate to at least %.3g or lengthen --duration)",
			o.rate, interval, o.duration, 1/o.duration.Seconds())
	}
	if set["pacer"] && !set["rate"] {
		return nil, errors.New("--pacer applies only with --rate (without it the workers run unpaced)")
	}
	if err := distinctOutputs(map[string]string{"--json": o.jsonPath, "--plot": o.plotPath, "--cpuprofile": o.cpuProfile}); err != nil {
		return nil, err
	}
	if o.reps < 1 {
		return nil, fmt.Errorf("--reps must be at least 1, got %d", o.reps)
	}
	if set["compare"] {
		if set["driver"] {
			return nil, errors.New("give --driver or --compare, not both (--compare lists the drivers to run)")
		}
		if strings.Trim(o.compare, " ,") == "" {
			return nil, fmt.Errorf("--compare %q lists no driver (want a comma-separated list such as gocql,native)", o.compare)
		}
		var names []string
		seen := map[string]bool{}
		for _, d := range strings.Split(o.compare, ",") {
			d = strings.TrimSpace(d)
			switch {
			case d == "":
				return nil, fmt.Errorf("--compare %q: empty driver name (want a comma-separated list such as gocql,native)", o.compare)
			case seen[d]:
				return nil, fmt.Errorf("--compare %q: driver %q listed twice", o.compare, d)
			}
			seen[d] = true
			names = append(names, d)
		}
		o.compareList = names
	} else if set["reps"] {
		return nil, errors.New("--reps applies only with --compare")
	}
	for _, d := range o.driverList() {
		if _, ok := drivers[d]; !ok {
			return nil, fmt.Errorf("unknown or unavailable driver %q (available: %s)", d, availableDrivers())
		}
	}
	if o.hosts != "" {
		if o.hostList, err = parseHosts(o.hosts); err != nil {
			return nil, fmt.Errorf("--hosts: %w", err)
		}
	}
	return o, nil
}

// repetitionOrder is the order in which repetition rep (from 0) runs the drivers of names:
// every driver once, each repetition starting one driver further along (gocql, compat, native;
// compat, native, gocql; ...), so that no driver always runs first after the set-up, or always
// right after the same other driver.
func repetitionOrder(names []string, rep int) []string {
	out := make([]string, len(names))
	for i := range names {
		out[i] = names[(i+rep)%len(names)]
	}
	return out
}

// distinctOutputs refuses two output flags naming the same file (after filepath.Abs), where
// one result would silently replace the other. Flags with an empty path are not written.
func distinctOutputs(paths map[string]string) error {
	names := make([]string, 0, len(paths))
	for name := range paths {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]string{}
	for _, name := range names {
		if paths[name] == "" {
			continue
		}
		abs, err := filepath.Abs(paths[name])
		if err != nil {
			return fmt.Errorf("%s %q: %w", name, paths[name], err)
		}
		if other, ok := seen[abs]; ok {
			return fmt.Errorf("%s and %s name the same file %q: give each its own", other, name, paths[name])
		}
		seen[abs] = name
	}
	return nil
}

// driverList is the drivers to run: those of --compare, or the one of --driver.
func (o *options) driverList() []string {
	if o.compareList != nil {
		return o.compareList
	}
	return []string{o.driver}
}

// defaultPort is the port of a --hosts entry that names none.
const defaultPort = "9042"

// parseHosts splits a --hosts list into host:port addresses. An entry is a host name or address
// with or without a port: host, host:port, an IPv6 address bare (::1) or in brackets ([::1],
// [::1]:9042). Entries without a port get defaultPort.
func parseHosts(list string) ([]string, error) {
	var hosts []string
	for _, h := range strings.Split(list, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		host, port, err := net.SplitHostPort(h)
		switch {
		case err == nil:
			if port == "" {
				port = defaultPort
			}
		case strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]"): // [v6] without a port
			host, port = h[1:len(h)-1], defaultPort
		case strings.Count(h, ":") > 1 && net.ParseIP(strings.SplitN(h, "%", 2)[0]) != nil: // bare IPv6 address
			host, port = h, defaultPort
		case !strings.ContainsAny(h, ":[]"): // host without a port
			host, port = h, defaultPort
		default:
			return nil, fmt.Errorf("bad address %q: %v", h, err)
		}
		if host == "" || strings.ContainsAny(host, "[]") {
			return nil, fmt.Errorf("bad address %q: no host", h)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("bad address %q: port %q is not 1..65535", h, port)
		}
		hosts = append(hosts, net.JoinHostPort(host, port))
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("no address in %q", list)
	}
	return hosts, nil
}

func availableDrivers() string {
	var names []string
	for _, n := range []string{"gocql", "compat", "native", "floor"} {
		if _, ok := drivers[n]; ok {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// mainErr runs the command with args, stopping at the first SIGINT or SIGTERM.
func mainErr(args []string, stdout, stderr io.Writer) error {
	ctx, stop := interruptContext(context.Background())
	defer stop()
	return mainCtx(ctx, args, stdout, stderr)
}

// mainCtx runs the command with args until done or until ctx ends; a run that ctx ends returns
// an error wrapping errInterrupted and reports nothing.
func mainCtx(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	// The result files are claimed first: a path that cannot be written fails now, not after
	// the runs (or after cqlsim has been built and started).
	jsonOut, err := claimOutput("--json", o.jsonPath)
	if err != nil {
		return err
	}
	defer jsonOut.discard()
	plotOut, err := claimOutput("--plot", o.plotPath)
	if err != nil {
		return err
	}
	defer plotOut.discard()
	profOut, err := claimOutput("--cpuprofile", o.cpuProfile)
	if err != nil {
		return err
	}
	defer profOut.discard()

	hosts := o.hostList
	if o.sim {
		addrs, shutdown, err := startSim(ctx, stderr)
		if err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx)
			}
			return err
		}
		defer shutdown()
		hosts = addrs
	}
	if err := setupData(ctx, hosts); err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx)
		}
		return err
	}

	var progress io.Writer
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			progress = stderr
		}
	}
	names := o.driverList()
	reps := 1
	if o.compareList != nil {
		reps = o.reps
	}
	if profOut != nil {
		stopProfile, err := startCPUProfile(profOut)
		if err != nil {
			return err
		}
		// The profile of what ran is written even when a run fails or is interrupted.
		defer stopProfile()
	}
	merged := make(map[string]*runResult, len(names))
	for rep := 0; rep < reps; rep++ {
		for _, name := range repetitionOrder(names, rep) {
			cfg := runConfig{Driver: name, Workload: o.workload, Concurrency: o.concurrency, Duration: o.duration,
				Warmup: o.warmup, Rate: o.rate, Hosts: hosts, Progress: progress,
				BackgroundOps: o.opContext == opContextBackground, PortablePacer: o.pacer == pacerTimer}
			d, err := drivers[name](ctx, cfg)
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(ctx)
				}
				return fmt.Errorf("%s: %w", name, err)
			}
			res, err := run(ctx, d, cfg)
			d.close()
			if ctx.Err() != nil {
				return interrupted(ctx)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if reps > 1 {
				fmt.Fprintf(stderr, "rep %d/%d %s: %.0f ops/s, p50 %d µs\n", rep+1, reps, name, res.opsPerS(), res.Request.ValueAtQuantile(50))
			}
			if m := merged[name]; m != nil {
				m.merge(res)
			} else {
				merged[name] = res
			}
		}
	}
	if ctx.Err() != nil {
		return interrupted(ctx)
	}
	results := make([]*runResult, len(names))
	for i, n := range names {
		results[i] = merged[n]
	}
	printTable(stdout, results)
	if jsonOut != nil {
		b, err := encodeJSON(results, o.compareList == nil)
		if err != nil {
			return fmt.Errorf("--json: encoding the results: %w", err)
		}
		if err := jsonOut.commit(b); err != nil {
			return err
		}
	}
	if plotOut != nil {
		if err := plotOut.commit(renderPlot(results)); err != nil {
			return err
		}
	}
	return nil
}

// startCPUProfile starts writing a CPU profile of this process to the claimed file out; the
// returned function stops it and moves the file into place.
func startCPUProfile(out *output) (func(), error) {
	if err := pprof.StartCPUProfile(out.tmp); err != nil {
		return nil, fmt.Errorf("--cpuprofile %s: %w", out.path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := out.commit(nil); err != nil {
			fmt.Fprintf(os.Stderr, "cqlbench: %v\n", err)
		}
	}, nil
}

// simCommand is the command that runs the cqlsim binary bin on addr (a variable so that tests
// can make it fail).
var simCommand = func(bin, addr string) *exec.Cmd {
	return exec.Command(bin, "--listen", addr, "--nodes", "1")
}

// startSim builds cmd/cqlsim and runs it as a separate process on a free port, so that the
// client's CPU is measured alone. It returns the addresses from its ready line.
func startSim(ctx context.Context, stderr io.Writer) ([]string, func(), error) {
	dir, err := os.MkdirTemp("", "cqlbench-sim")
	if err != nil {
		return nil, nil, err
	}
	bin := filepath.Join(dir, "cqlsim")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/cqlbridge/cqlbridge/cmd/cqlsim")
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("--sim: building cmd/cqlsim: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := simCommand(bin, addr)
	cmd.Stderr = stderr
	cmd.SysProcAttr = simSysProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("--sim: starting cqlsim: %w", err)
	}
	// The running binary is no longer needed on disk (where the system allows removing it):
	// nothing is left in the temporary directory even if this process is killed.
	_ = os.RemoveAll(dir)
	shutdown := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(dir)
	}
	ready := make(chan []string, 1)
	noReady := make(chan struct{}) // closed when cqlsim's output ended without a ready line
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "cqlsim ready "); ok {
				ready <- strings.Split(strings.TrimSpace(rest), ",")
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		close(noReady)
	}()
	select {
	case addrs := <-ready:
		return addrs, shutdown, nil
	case <-noReady: // it exited (or closed its output): no ready line will come
		shutdown()
		return nil, nil, fmt.Errorf("--sim: cqlsim exited before its ready line (%v)", cmd.ProcessState)
	case <-time.After(30 * time.Second):
		shutdown()
		return nil, nil, errors.New("--sim: cqlsim printed no ready line within 30s")
	case <-ctx.Done():
		shutdown()
		return nil, nil, ctx.Err()
	}
}
