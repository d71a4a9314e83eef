package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Example runs the native driver for a moment against an embedded cqlsim node and reads the
// JSON record it writes.
func Example() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	dir, err := os.MkdirTemp("", "cqlbench-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "native.json")

	err = mainErr([]string{"--driver", "native", "--workload", "read_prepared", "--concurrency", "4",
		"--duration", "300ms", "--warmup", "100ms", "--hosts", strings.Join(sim.Addrs(), ","), "--json", out},
		io.Discard, io.Discard)
	if err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		log.Fatal(err)
	}
	var rec jsonRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Driver, rec.Workload, "concurrency", rec.Concurrency)
	fmt.Println("measured:", rec.OpsPerS > 0 && rec.CPUusPerOp > 0, "errors:", len(rec.Errors))
	// Output:
	// native read_prepared concurrency 4
	// measured: true errors: 0
}
