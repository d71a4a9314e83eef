package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sim", "--hosts", "x"}, "exactly one of"},
		{[]string{"--sim", "--hosts", ""}, "exactly one of"},
		{[]string{"--hosts", " "}, "exactly one of"},
		{[]string{}, "exactly one of"},
		{[]string{"--sim", "--workload", "nope"}, "unknown workload"},
		{[]string{"--sim", "--driver", "nope"}, "unknown or unavailable driver"},
		{[]string{"--sim", "--compare", "gocql,bogus"}, `driver "bogus"`},
		{[]string{"--sim", "--concurrency", "0"}, "--concurrency"},
		{[]string{"--sim", "--duration", "0s"}, "--duration"},
		{[]string{"--sim", "--rate", "-1"}, "--rate"},
		{[]string{"--sim", "--rate", "0"}, "--rate 0 schedules no operation: leave --rate out to run as fast as possible"},
		{[]string{"--sim", "--rate", "-0"}, "--rate -0 schedules no operation"},
		{[]string{"--sim", "--rate", "NaN"}, "--rate: NaN is not a finite number"},
		{[]string{"--sim", "--rate", "Inf"}, "--rate: +Inf is not a finite number"},
		{[]string{"--sim", "--rate", "-Inf"}, "--rate: -Inf is not a finite number"},
		{[]string{"--sim", "--rate", "2e9"}, "too high: operations less than 1 ns apart"},
		{[]string{"--sim", "--rate", "1e-300"}, "too low"},
		{[]string{"--sim", "--rate", "0.01", "--duration", "10s"}, "--rate 0.01 schedules one operation every 1m40s, longer than --duration 10s"},
		{[]string{"--sim", "--warmup", "-1s"}, "--warmup must not be negative"},
		{[]string{"--sim", "--compare", "floor,floor"}, `driver "floor" listed twice`},
		{[]string{"--sim", "--compare", "gocql, floor ,gocql"}, `driver "gocql" listed twice`},
		{[]string{"--sim", "--compare", ","}, "lists no driver"},
		{[]string{"--sim", "--compare", ""}, "lists no driver"},
		{[]string{"--sim", "--compare", "gocql,,floor"}, "empty driver name"},
		{[]string{"--sim", "--compare", "floor", "--driver", "gocql"}, "not both"},
		{[]string{"--sim", "--reps", "2"}, "--reps applies only with --compare"},
		{[]string{"--sim", "--driver", "floor", "--reps", "2"}, "--reps applies only with --compare"},
		{[]string{"--hosts", "[::1"}, "--hosts: bad address"},
		{[]string{"--hosts", "h:99999"}, "is not 1..65535"},
		{[]string{"--hosts", " , "}, "--hosts: no address"},
		{[]string{"--sim", "--op-context", "nope"}, `--op-context "nope": want cancellable or background`},
		{[]string{"--sim", "--pacer", "nope"}, `--pacer "nope": want timerfd or timer`},
		{[]string{"--sim", "--pacer", "timer"}, "--pacer applies only with --rate"},
		{[]string{"--sim", "--json", "out", "--plot", "./out"}, `--json and --plot name the same file "./out"`},
		{[]string{"--sim", "--cpuprofile", "/tmp/x/../p", "--plot", "/tmp/p"}, "--cpuprofile and --plot name the same file"},
	} {
		_, err := parseFlags(tc.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseFlags(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestFlagsAccepted: the checks reject nothing they should not.
func TestFlagsAccepted(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		drivers []string
	}{
		{[]string{"--sim"}, []string{"native"}},
		{[]string{"--sim", "--driver", "floor"}, []string{"floor"}},
		{[]string{"--sim", "--compare", "gocql, floor", "--reps", "2"}, []string{"gocql", "floor"}},
		{[]string{"--sim", "--compare", "floor"}, []string{"floor"}},
		{[]string{"--sim", "--rate", "1", "--duration", "1s", "--warmup", "0s"}, []string{"native"}},
		{[]string{"--sim", "--rate", "1e9"}, []string{"native"}},
		{[]string{"--sim", "--op-context", "background"}, []string{"native"}},
		{[]string{"--sim", "--op-context", "cancellable"}, []string{"native"}},
		{[]string{"--sim", "--rate", "10", "--pacer", "timer"}, []string{"native"}},
		{[]string{"--sim", "--rate", "10", "--pacer", "timerfd"}, []string{"native"}},
	} {
		o, err := parseFlags(tc.args, &bytes.Buffer{})
		if err != nil {
			t.Errorf("parseFlags(%q): %v", tc.args, err)
			continue
		}
		if got := o.driverList(); !reflect.DeepEqual(got, tc.drivers) {
			t.Errorf("parseFlags(%q): drivers %q, want %q", tc.args, got, tc.drivers)
		}
	}
}

// TestParseHosts: --hosts entries with and without ports, IPv6 bare or in brackets.
func TestParseHosts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"127.0.0.1", []string{"127.0.0.1:9042"}},
		{"127.0.0.1:9043", []string{"127.0.0.1:9043"}},
		{"localhost, db.example:19042", []string{"localhost:9042", "db.example:19042"}},
		{"[::1]", []string{"[::1]:9042"}},
		{"[::1]:9043", []string{"[::1]:9043"}},
		{"::1", []string{"[::1]:9042"}},
		{"fe80::1%eth0", []string{"[fe80::1%eth0]:9042"}},
		{"[fe80::1%eth0]:7000,10.0.0.2", []string{"[fe80::1%eth0]:7000", "10.0.0.2:9042"}},
		{"h:", []string{"h:9042"}},
	} {
		got, err := parseHosts(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseHosts(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"[::1", "::1]", "[[::1]]", "[]:9042", "h:x", "a:b:c", ""} {
		if got, err := parseHosts(bad); err == nil {
			t.Errorf("parseHosts(%q) = %q, want an error", bad, got)
		}
	}
}

// TestInterruptedRunReportsNothing: a run whose context ends (a signal) after its measured
// window, while the drivers wind down, returns an error saying it was interrupted (so the
// command exits non-zero) and prints and writes no results.
func TestInterruptedRunReportsNothing(t *testing.T) {
	hosts := cqltest.Hosts(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	drivers["stub"] = func(context.Context, runConfig) (driver, error) {
		return &stubDriver{
			do:     func(context.Context, int, int64) error { return nil },
			closed: func() { cancel(errors.New("signal interrupt")) }, // the signal comes as the run ends
		}, nil
	}
	defer delete(drivers, "stub")
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "out.json")
	var out bytes.Buffer
	err := mainCtx(ctx, []string{"--driver", "stub", "--hosts", strings.Join(hosts, ","), "--duration", "50ms",
		"--warmup", "0s", "--json", jsonPath}, &out, &bytes.Buffer{})
	if !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), "interrupted (signal interrupt)") {
		t.Errorf("interrupted run: %v, want an error saying it was interrupted by the signal", err)
	}
	if out.Len() != 0 {
		t.Errorf("interrupted run printed results:\n%s", out.String())
	}
	if _, err := os.Stat(jsonPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("interrupted run wrote %s: %v", jsonPath, err)
	}
}

// TestOutputPathsCheckedBeforeRunning: a result path that cannot be written fails at once (not
// after the runs), and a run that fails leaves an existing result file as it was, with no
// temporary file behind.
func TestOutputPathsCheckedBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sim", "--plot", filepath.Join(dir, "missing", "out.svg")}, "--plot " + filepath.Join(dir, "missing", "out.svg") + ": cannot write there"},
		{[]string{"--sim", "--json", dir}, "--json " + dir + ": is a directory"},
		// With a server that does not answer: the profile's path is checked before the set-up.
		{[]string{"--hosts", closedAddr(t), "--cpuprofile", filepath.Join(dir, "missing", "cpu.prof")},
			"--cpuprofile " + filepath.Join(dir, "missing", "cpu.prof") + ": cannot write there"},
	} {
		err := mainErr(tc.args, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cqlbench %q: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}

	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("earlier results\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Nothing listens on the port of a listener just closed: the data set-up fails.
	err := mainErr([]string{"--hosts", closedAddr(t), "--json", old, "--duration", "1s"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil {
		t.Fatal("a run against a closed port succeeded")
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "earlier results\n" {
		t.Errorf("the failed run changed %s: %q, %v", old, b, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// closedAddr is the address of a listener just closed: nothing listens there.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestCompareWritesJSON runs two drivers for a short time against the test server and checks the
// JSON records: the fixed key set, a positive throughput, and no errors.
func TestCompareWritesJSON(t *testing.T) {
	hosts := cqltest.Hosts(t)
	dir := t.TempDir()
	jsonPath, svg, prof := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.svg"), filepath.Join(dir, "cpu.prof")
	var out bytes.Buffer
	err := mainErr([]string{"--compare", "gocql,floor", "--workload", "read_prepared", "--hosts", strings.Join(hosts, ","),
		"--duration", "1s", "--warmup", "200ms", "--reps", "1", "--concurrency", "2", "--rate", "2000",
		"--json", jsonPath, "--plot", svg, "--cpuprofile", prof}, &out, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("cqlbench: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "ratios to gocql") {
		t.Errorf("no ratio table in output:\n%s", out.String())
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatalf("JSON: %v\n%s", err, data)
	}
	wantKeys := []string{"allocs_per_op", "bytes_per_op", "concurrency", "cpu_us_per_op", "driver", "errors",
		"ops_per_s", "p50_us", "p999_us", "p99_us", "workload"}
	if len(recs) != 2 {
		t.Fatalf("got %d records, want 2", len(recs))
	}
	for _, r := range recs {
		var keys []string
		for k := range r {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, wantKeys) {
			t.Errorf("record keys %v, want %v", keys, wantKeys)
		}
		if r["ops_per_s"].(float64) <= 0 {
			t.Errorf("%v: no operations measured", r["driver"])
		}
		if errs := r["errors"].(map[string]any); len(errs) != 0 {
			t.Errorf("%v: errors %v", r["driver"], errs)
		}
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("plot not written: %v", err)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("CPU profile not written: %v", err)
	}
}
