// Command cqlbench is a Latte-style benchmark of gocql v1.7.0, cqlbridge's compat/gocql shim, the
// native core, and a "floor" driver (a bare socket loop sending pre-encoded frames: the physical
// limit of the machine for a workload), run against the same server.
//
//	go run ./cmd/cqlbench --driver native --workload read_prepared --concurrency 32 --duration 10s --sim
//	go run ./cmd/cqlbench --compare gocql,compat,native,floor --workload read_prepared --hosts 127.0.0.1 --json out.json --plot out.svg
//
// Per run it reports throughput, request latency (p50/p90/p99/p99.9/max from an HDR histogram),
// with --rate the cycle latency measured from each operation's scheduled start (so a stalled
// client cannot hide queueing: coordinated omission; on Linux workers wait for their starts on a
// timerfd, which is punctual to tens of microseconds where Go timers can be a millisecond late,
// --pacer timer selects Go timers), client CPU per operation (getrusage of this
// process; with --sim the server runs as a separate process), allocations and bytes per operation
// (runtime.MemStats Mallocs and TotalAlloc, as the testing package counts them), all per successful
// operation, and errors by kind. --compare runs the drivers in turn, in interleaved
// repetitions (each starting one driver further along), against one server process and prints ratios to gocql. The --json and --plot
// paths are checked before anything runs; each file is written next to its target and renamed
// over it at the end, so a failed or interrupted run leaves an earlier file as it was. An
// interrupted run (SIGINT, SIGTERM) reports nothing and exits with status 130; a second signal
// ends the process at once.
package main
