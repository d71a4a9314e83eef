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
	"strings"
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
		os.Exit(1)
	}
}

type options struct {
	driver, workload, hosts, jsonPath, compare, plotPath string
	cpuProfile                                           string
	concurrency, reps                                    int
	duration, warmup                                     time.Duration
	rate                                                 float64
	sim                                                  bool
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("cqlbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.driver, "driver", "native", "driver to run: gocql, compat, native or floor")
	fs.StringVar(&o.workload, "workload", wlReadPrepared, "workload: "+strings.Join(workloadNames, ", "))
	fs.IntVar(&o.concurrency, "concurrency", 1, "concurrent workers (each with one request in flight)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured duration of each run")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured warm-up before each run")
	fs.Float64Var(&o.rate, "rate", 0, "target operations per second over all workers (0: as fast as possible); enables cycle latency")
	fs.StringVar(&o.hosts, "hosts", "", "comma-separated server addresses (host or host:port)")
	fs.BoolVar(&o.sim, "sim", false, "start cqlsim as a separate process and run against it")
	fs.StringVar(&o.jsonPath, "json", "", "write results as JSON to this file")
	fs.StringVar(&o.compare, "compare", "", "comma-separated drivers to run in turn against the same server (e.g. gocql,compat,native,floor)")
	fs.IntVar(&o.reps, "reps", 3, "with --compare: interleaved repetitions per driver")
	fs.StringVar(&o.plotPath, "plot", "", "write an SVG of latency distributions and throughput to this file")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the client process (runs and warm-ups, not the data set-up) to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := checkWorkload(o.workload); err != nil {
		return nil, err
	}
	if (o.hosts == "") == !o.sim {
		return nil, errors.New("give exactly one of --hosts HOSTS or --sim")
	}
	if o.concurrency < 1 || o.concurrency > 4096 {
		return nil, fmt.Errorf("--concurrency must be 1..4096, got %d", o.concurrency)
	}
	if o.duration <= 0 {
		return nil, fmt.Errorf("--duration must be positive, got %v", o.duration)
	}
	if o.rate < 0 {
		return nil, fmt.Errorf("--rate must not be negative, got %v", o.rate)
	}
	if o.reps < 1 {
		return nil, fmt.Errorf("--reps must be at least 1, got %d", o.reps)
	}
	for _, d := range o.driverList() {
		if _, ok := drivers[d]; !ok {
			return nil, fmt.Errorf("unknown or unavailable driver %q (available: %s)", d, availableDrivers())
		}
	}
	return o, nil
}

func (o *options) driverList() []string {
	if o.compare == "" {
		return []string{o.driver}
	}
	var out []string
	for _, d := range strings.Split(o.compare, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
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

func mainErr(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	// The result files are claimed first: a path that cannot be written fails now, not after
	// the runs.
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var hosts []string
	if o.sim {
		addrs, shutdown, err := startSim(ctx, stderr)
		if err != nil {
			return err
		}
		defer shutdown()
		hosts = addrs
	} else {
		for _, h := range strings.Split(o.hosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				if _, _, err := net.SplitHostPort(h); err != nil {
					h = net.JoinHostPort(h, "9042")
				}
				hosts = append(hosts, h)
			}
		}
	}
	if err := setupData(ctx, hosts); err != nil {
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
	if o.compare != "" {
		reps = o.reps
	}
	if o.cpuProfile != "" {
		stopProfile, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	merged := make(map[string]*runResult, len(names))
	for rep := 0; rep < reps; rep++ {
		for _, name := range names { // interleaved: every driver once per repetition
			cfg := runConfig{Driver: name, Workload: o.workload, Concurrency: o.concurrency, Duration: o.duration,
				Warmup: o.warmup, Rate: o.rate, Hosts: hosts, Progress: progress}
			d, err := drivers[name](ctx, cfg)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			res, err := run(ctx, d, cfg)
			d.close()
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
	results := make([]*runResult, len(names))
	for i, n := range names {
		results[i] = merged[n]
	}
	printTable(stdout, results)
	if jsonOut != nil {
		b, err := encodeJSON(results, o.compare == "")
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

// startCPUProfile starts writing a CPU profile of this process to path; the returned function
// stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "cqlbench: --cpuprofile %s: %v\n", path, err)
		}
	}, nil
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
	cmd := exec.Command(bin, "--listen", addr, "--nodes", "1")
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("--sim: starting cqlsim: %w", err)
	}
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
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "cqlsim ready "); ok {
				ready <- strings.Split(strings.TrimSpace(rest), ",")
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case addrs := <-ready:
		return addrs, shutdown, nil
	case <-time.After(30 * time.Second):
		shutdown()
		return nil, nil, errors.New("--sim: cqlsim printed no ready line within 30s")
	case <-ctx.Done():
		shutdown()
		return nil, nil, ctx.Err()
	}
}
