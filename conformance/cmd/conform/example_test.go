package main

import (
	"log"
	"os"
)

// Example runs one scenario with legacy gocql and with cqlbridge's drop-in against an embedded
// cqlsim node and prints the comparison. (It builds both agents with the go command first.)
func Example() {
	if err := run([]string{"--sim", "--run", "^paging/prefetch_zero$"}, os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// scenario              server  legacy  shim  same?
	// paging/prefetch_zero  cqlsim  pass    pass  yes
	//
	// cqlsim: 1 scenarios, 0 unexpected differences, 0 stale pinned deviations, 0 pinned deviations whose shim trace changed
}
