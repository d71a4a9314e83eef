package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Example runs one scenario with the package github.com/gocql/gocql resolves to in this build
// (the real gocql v1.7.0 under a plain go test) against an embedded cqlsim node, and reads back
// the trace it writes.
func Example() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	dir, err := os.MkdirTemp("", "conform-agent-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "legacy.json")

	err = run([]string{"--hosts", strings.Join(sim.Addrs(), ","), "--run", "^paging/prefetch_zero$", "--out", out})
	if err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		log.Fatal(err)
	}
	scens, err := trace.Decode(data)
	if err != nil {
		log.Fatal(err)
	}
	for _, sc := range scens {
		last := sc.Events[len(sc.Events)-1]
		fmt.Println(sc.Name, "panic:", sc.Panic != "")
		fmt.Println(last.Step, last.Values, "error:", last.Err != nil)
	}
	// Output:
	// paging/prefetch_zero panic: false
	// rows [[]int:[int:0 int:1 int:2 int:3 int:4 int:5 int:6 int:7 int:8 int:9 int:10 int:11]] error: false
}
