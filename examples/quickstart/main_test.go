package main

import "log"

// Example runs the quickstart: on an embedded cqlsim, or on the cluster named by CQL_HOSTS (as
// `make test` does), with the same output either way.
func Example() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// tweet 3: hello #3
	//   1 hello #1 (page of 2 rows)
	//   2 hello #2 (page of 2 rows)
	//   3 hello #3 (page of 2 rows)
	//   4 hello #4 (page of 2 rows)
	//   5 hello #5 (page of 1 rows)
	//   callback: page 1 with 2 rows
	//   callback: page 2 with 2 rows
	//   callback: page 3 with 1 rows
	// native count: 5
}
