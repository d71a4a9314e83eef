//go:build ignore

// compare reads two `go test -json` streams (the gocql run and the shim run of gocql v1.7.0's
// own tests, one package), prints each test's outcome in both, the tests pruned before either
// run, and exits 1 when a test that passed with gocql did not pass with the shim, unless the
// expected-differences file lists it ("Test<TAB>reason" lines, # comments): those are printed
// with their reason and do not count. It writes the top-level tests of the other differences to
// regressions.txt, one a line, for the caller to run again.
//
//	go run compare.go gocql.json shim.json pruned.txt expected.txt regressions.txt
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
		key := e.Test
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
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: go run compare.go gocql.json shim.json pruned.txt expected.txt regressions.txt")
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
	pruned, err := readLines(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
	expectedLines, err := readLines(os.Args[4])
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
	expected := map[string]string{}
	for _, l := range expectedLines {
		name, why, _ := strings.Cut(l, "\t")
		expected[name] = why
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
		if k != "" { // package-level events
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
	var regressions, known, gocqlFailures []string
	counts := map[string]int{}
	fmt.Printf("%-70s %-8s %-8s\n", "test", "gocql", "shim")
	for _, k := range names {
		b, s := show(base[k]), show(shim[k])
		fmt.Printf("%-70s %-8s %-8s\n", k, b, s)
		if !strings.Contains(k, "/") {
			counts[b+"/"+s]++
		}
		top, _, _ := strings.Cut(k, "/")
		if b == "pass" && s != "pass" {
			if _, ok := expected[top]; ok {
				known = append(known, k)
			} else {
				regressions = append(regressions, k)
			}
		}
		if b == "fail" {
			gocqlFailures = append(gocqlFailures, k)
		}
	}
	for _, p := range pruned {
		fmt.Printf("%-70s %-8s %-8s\n", p, "pruned", "pruned")
	}
	fmt.Printf("\ntop-level tests and examples (gocql/shim): %d pass/pass, %d pass/fail, %d fail/fail, %d fail/pass, %d skip/skip, %d other; %d pruned\n",
		counts["pass/pass"], counts["pass/fail"], counts["fail/fail"], counts["fail/pass"], counts["skip/skip"],
		other(counts), len(pruned))
	if len(gocqlFailures) > 0 {
		fmt.Println("failing with gocql itself:", strings.Join(gocqlFailures, ", "))
	}
	for _, k := range known {
		top, _, _ := strings.Cut(k, "/")
		fmt.Printf("expected difference: %s: %s\n", k, expected[top])
	}
	if len(regressions) > 0 {
		fmt.Println("DIFFERENCES (pass with gocql, not with the shim):")
		for _, k := range regressions {
			fmt.Println("  " + k)
			if o := shim[k]; o != nil {
				for _, l := range lastLines(o.output) {
					fmt.Println("      " + l)
				}
			}
		}
		if err := writeTopLevel(os.Args[5], regressions); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(2)
		}
		os.Exit(1)
	}
	fmt.Println("no differences")
}

// other counts the outcome pairs the summary does not name.
func other(counts map[string]int) int {
	n := 0
	for k, v := range counts {
		switch k {
		case "pass/pass", "pass/fail", "fail/fail", "fail/pass", "skip/skip":
		default:
			n += v
		}
	}
	return n
}

// readLines returns the non-empty lines of path that are not # comments.
func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
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

// writeTopLevel writes the distinct top-level tests of keys ("Test/subtest") to path, one a
// line.
func writeTopLevel(path string, keys []string) error {
	seen := make(map[string]bool)
	var b strings.Builder
	for _, k := range keys {
		test, _, _ := strings.Cut(k, "/")
		if !seen[test] {
			seen[test] = true
			b.WriteString(test + "\n")
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
