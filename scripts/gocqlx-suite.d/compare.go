//go:build ignore

// compare reads two `go test -json` streams (the gocql run and the shim run of the gocqlx
// suite), prints each test's outcome in both, and exits 1 when a test that passed with gocql
// did not pass with the shim. With a third argument it also writes the top-level tests of
// those regressions to that file, one "package<TAB>test" line each (package as in the
// report: "." or a path below the module), for the caller to run again.
//
//	go run compare.go gocql.json shim.json [regressions.txt]
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// outcome is what happened to one test (or, with an empty test name, to a package).
type outcome struct {
	action string   // pass, fail, skip, or "" when never reported
	output []string // the last lines of the test's output (where a failure says what failed)
}

// keepLines is how many of a test's last output lines the report shows.
const keepLines = 40

func load(path string) (map[string]*outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res := make(map[string]*outcome)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		pkg := strings.TrimPrefix(e.Package, "github.com/scylladb/gocqlx/v2")
		if pkg == "" {
			pkg = "."
		}
		key := pkg + " " + e.Test
		o := res[key]
		if o == nil {
			o = &outcome{}
			res[key] = o
		}
		switch e.Action {
		case "pass", "fail", "skip":
			o.action = e.Action
		case "output":
			o.output = append(o.output, strings.TrimRight(e.Output, "\n"))
			if len(o.output) > 2*keepLines {
				o.output = append(o.output[:0], o.output[len(o.output)-keepLines:]...)
			}
		}
	}
	return res, sc.Err()
}

func main() {
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run compare.go gocql.json shim.json [regressions.txt]")
		os.Exit(2)
	}
	base, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
	shim, err := load(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
	keys := make(map[string]bool)
	for k := range base {
		keys[k] = true
	}
	for k := range shim {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		if !strings.HasSuffix(k, " ") { // package-level lines are reported separately
			names = append(names, k)
		}
	}
	sort.Strings(names)
	show := func(o *outcome) string {
		if o == nil || o.action == "" {
			return "not-run"
		}
		return o.action
	}
	var regressions, gocqlFailures []string
	counts := map[string]int{}
	fmt.Printf("%-60s %-8s %-8s\n", "test", "gocql", "shim")
	for _, k := range names {
		b, s := show(base[k]), show(shim[k])
		fmt.Printf("%-60s %-8s %-8s\n", k, b, s)
		counts["gocql "+b]++
		counts["shim "+s]++
		if b == "pass" && s != "pass" {
			regressions = append(regressions, k)
		}
		if b == "fail" {
			gocqlFailures = append(gocqlFailures, k)
		}
	}
	for _, k := range sortedKeys(shim) {
		if strings.HasSuffix(k, " ") && shim[k].action == "fail" && (base[k] == nil || base[k].action != "fail") {
			fmt.Printf("package %s failed with the shim (build or setup):\n", strings.TrimSpace(k))
			for _, l := range lastLines(shim[k].output) {
				fmt.Println("    " + l)
			}
		}
	}
	fmt.Printf("\ngocql: %d pass, %d fail, %d skip; shim: %d pass, %d fail, %d skip, %d not run\n",
		counts["gocql pass"], counts["gocql fail"], counts["gocql skip"],
		counts["shim pass"], counts["shim fail"], counts["shim skip"], counts["shim not-run"])
	if len(gocqlFailures) > 0 {
		fmt.Println("failing with gocql itself:", strings.Join(gocqlFailures, ", "))
	}
	if len(regressions) > 0 {
		fmt.Println("REGRESSIONS (pass with gocql, not with the shim):")
		for _, k := range regressions {
			fmt.Println("  " + k)
			if o := shim[k]; o != nil {
				for _, l := range lastLines(o.output) {
					fmt.Println("      " + l)
				}
			}
		}
		if len(os.Args) == 4 {
			if err := writeTopLevel(os.Args[3], regressions); err != nil {
				fmt.Fprintln(os.Stderr, "compare:", err)
				os.Exit(2)
			}
		}
		os.Exit(1)
	}
	fmt.Println("no regressions")
}

func sortedKeys(m map[string]*outcome) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lastLines returns the last keepLines lines of out.
func lastLines(out []string) []string {
	if len(out) > keepLines {
		return out[len(out)-keepLines:]
	}
	return out
}

// writeTopLevel writes the distinct top-level tests of keys ("package test/subtest") to path,
// as "package<TAB>test" lines.
func writeTopLevel(path string, keys []string) error {
	seen := make(map[string]bool)
	var b strings.Builder
	for _, k := range keys {
		pkg, test, ok := strings.Cut(k, " ")
		if !ok || test == "" {
			continue
		}
		test, _, _ = strings.Cut(test, "/")
		line := pkg + "\t" + test
		if !seen[line] {
			seen[line] = true
			b.WriteString(line + "\n")
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
