//go:build ignore

// run runs a compiled test binary under `go tool test2json` and appends its events to a
// `go test -json` stream, going on past a test that ends the binary: gocql's tests panic (their
// helpers do when a keyspace cannot be made) and its examples call log.Fatal, either of which
// would lose every later test's result. A test that started and has no outcome when the binary
// ends is recorded as failed ("ended the test binary"), and the binary runs again with every test
// that has an outcome skipped, until a run ends without a failure or runs no test.
//
//	go run run.go -bin gocql.test -pkg github.com/gocql/gocql -out gocql.json [-run RE] -- test args...
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"
)

var (
	flagBin = flag.String("bin", "", "test binary")
	flagPkg = flag.String("pkg", "", "package name for the events")
	flagOut = flag.String("out", "", "file the events are appended to")
	flagRun = flag.String("run", "", "-test.run of the binary")
)

type event struct {
	Time    time.Time `json:",omitempty"`
	Action  string
	Package string
	Test    string  `json:",omitempty"`
	Elapsed float64 `json:",omitempty"`
	Output  string  `json:",omitempty"`
}

func main() {
	flag.Parse()
	out, err := os.OpenFile(*flagOut, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		os.Exit(2)
	}
	defer out.Close()
	enc := json.NewEncoder(out)
	done := map[string]bool{} // top-level tests with an outcome
	for {
		args := []string{"tool", "test2json", "-t", "-p", *flagPkg, *flagBin, "-test.v=test2json", "-test.count=1"}
		if *flagRun != "" {
			args = append(args, "-test.run", *flagRun)
		}
		if len(done) > 0 {
			var names []string
			for n := range done {
				names = append(names, regexp.QuoteMeta(n))
			}
			sort.Strings(names)
			args = append(args, "-test.skip", "^("+strings.Join(names, "|")+")$")
		}
		args = append(args, flag.Args()...)
		cmd := exec.Command("go", args...)
		cmd.Stderr = os.Stderr
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, "run:", err)
			os.Exit(2)
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "run:", err)
			os.Exit(2)
		}
		running := map[string]bool{}
		started := 0
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			top, _, _ := strings.Cut(e.Test, "/")
			switch {
			case e.Test == "":
				continue // package-level events: each run ends with one
			case e.Action == "run" && top == e.Test:
				running[top] = true
				started++
			case (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") && top == e.Test:
				delete(running, top)
				done[top] = true
			}
			enc.Encode(e)
		}
		err = cmd.Wait()
		for name := range running {
			enc.Encode(event{Time: time.Now(), Action: "output", Package: *flagPkg, Test: name,
				Output: "gocql-suite: the test ended the test binary (" + fmt.Sprint(err) + ")\n"})
			enc.Encode(event{Time: time.Now(), Action: "fail", Package: *flagPkg, Test: name})
			done[name] = true
		}
		if started == 0 && err != nil && len(done) == 0 {
			fmt.Fprintln(os.Stderr, "run: the test binary ran no test:", err)
			os.Exit(1)
		}
		if err == nil || started == 0 {
			return
		}
	}
}
