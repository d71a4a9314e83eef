// Command apicheck compares the exported API of compat/gocql with gocql
// v1.7.0's and generates the drop-in module.
//
//	go run ./cmd/apicheck                 # report, write docs/api-coverage.md
//	go run ./cmd/apicheck -allow-missing  # report, write docs/api-coverage.md, but exit 0 with gaps
//	go run ./cmd/apicheck -doc ''         # report only, write nothing
//	go run ./cmd/apicheck -dropin         # regenerate compat/gocql/dropin
//	go run ./cmd/apicheck -check-dropin   # fail if the checked-in drop-in is stale
//
// Both packages are loaded with go/types from the export data that
// `go list -export` produces, so the checker sees exactly what the compiler
// sees. Every exported identifier of gocql (types, functions, methods,
// struct fields, interface methods, constants, variables) is looked up in
// compat/gocql and its declaration compared structurally, with the two
// package paths written as "gocql". The report lists what is missing or
// declared differently and ends with the line "missing: N, differing: M";
// the command exits with status 1 when anything is missing or differs,
// unless -allow-missing is given.
//
// annotations.txt lists behaviours that compat/gocql reports as a clear
// error instead of supporting, and deliberate deviations; both go into the
// coverage document.
package main
