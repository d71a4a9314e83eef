package main

import (
	"bytes"
	"encoding/json"
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
		{[]string{}, "exactly one of"},
		{[]string{"--sim", "--workload", "nope"}, "unknown workload"},
		{[]string{"--sim", "--driver", "nope"}, "unknown or unavailable driver"},
		{[]string{"--sim", "--compare", "gocql,bogus"}, `driver "bogus"`},
		{[]string{"--sim", "--concurrency", "0"}, "--concurrency"},
		{[]string{"--sim", "--duration", "0s"}, "--duration"},
		{[]string{"--sim", "--rate", "-1"}, "--rate"},
	} {
		_, err := parseFlags(tc.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseFlags(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	err = mainErr([]string{"--hosts", addr, "--json", old, "--duration", "1s"}, &bytes.Buffer{}, &bytes.Buffer{})
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

// TestCompareWritesJSON runs two drivers for a short time against the test server and checks the
// JSON records: the fixed key set, a positive throughput, and no errors.
func TestCompareWritesJSON(t *testing.T) {
	hosts := cqltest.Hosts(t)
	dir := t.TempDir()
	jsonPath, svg := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.svg")
	var out bytes.Buffer
	err := mainErr([]string{"--compare", "gocql,floor", "--workload", "read_prepared", "--hosts", strings.Join(hosts, ","),
		"--duration", "1s", "--warmup", "200ms", "--reps", "1", "--concurrency", "2", "--rate", "2000",
		"--json", jsonPath, "--plot", svg}, &out, &bytes.Buffer{})
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
}
