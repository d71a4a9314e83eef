//go:build ignore

// compare reads two `go test -json` streams (the gocql run and the shim run of the gocqlx
// suite), prints each test's outcome in both, and exits 1 when a test that passed with gocql
// did not pass with the shim.
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
	output []string // the test's output, kept for failures
}

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
			if len(o.output) < 40 {
				o.output = append(o.output, strings.TrimRight(e.Output, "\n"))
			}
		}
	}
	return res, sc.Err()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run compare.go gocql.json shim.json")
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
			for _, l := range shim[k].output {
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
				for _, l := range o.output {
					fmt.Println("      " + l)
				}
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
