package main

import (
	"fmt"
	"strconv"
)

// Workload names, as the --workload flag takes them.
const (
	wlReadPrepared  = "read_prepared"
	wlWritePrepared = "write_prepared"
	wlReadPage      = "read_page"
	wlBatch         = "batch"
	wlLWT           = "lwt"
)

var workloadNames = []string{wlReadPrepared, wlWritePrepared, wlReadPage, wlBatch, wlLWT}

// benchKeyspace is the keyspace cqlbench creates (and reuses) on the server.
const benchKeyspace = "cqlbench"

// Data set sizes.
const (
	readRows      = 10000 // rows of kv read by read_prepared
	pagePartition = 1     // the partition read_page reads
	pageRows      = 1000  // rows in that partition
	pageSize      = 100   // page size of read_page
	batchSize     = 10    // statements per batch
)

// schema returns the DDL cqlbench needs, in order.
func schema() []string {
	return []string{
		"CREATE KEYSPACE IF NOT EXISTS " + benchKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS " + benchKeyspace + ".kv (k int PRIMARY KEY, i int, t text)",
		"CREATE TABLE IF NOT EXISTS " + benchKeyspace + ".wide (p int, c int, v text, PRIMARY KEY (p, c))",
		"CREATE TABLE IF NOT EXISTS " + benchKeyspace + ".lwt (k int PRIMARY KEY, v int)",
	}
}

// The statements of each workload. All drivers run exactly these.
const (
	stmtRead   = "SELECT i, t FROM " + benchKeyspace + ".kv WHERE k = ?"
	stmtWrite  = "INSERT INTO " + benchKeyspace + ".kv (k, i, t) VALUES (?, ?, ?)"
	stmtPage   = "SELECT c, v FROM " + benchKeyspace + ".wide WHERE p = ?"
	stmtBatch  = "INSERT INTO " + benchKeyspace + ".wide (p, c, v) VALUES (?, ?, ?)"
	stmtLWT    = "UPDATE " + benchKeyspace + ".lwt SET v = ? WHERE k = ? IF v = ?"
	stmtLWTIns = "INSERT INTO " + benchKeyspace + ".lwt (k, v) VALUES (?, ?) IF NOT EXISTS"
)

// textValue is the text column written for key k: short, like a typical small row. The values
// of the keys the workloads use are made once, so that building them is not counted in every
// driver's CPU and allocations per operation.
func textValue(k int) string {
	if k >= 0 && k < len(textValues) {
		return textValues[k]
	}
	return makeTextValue(k)
}

func makeTextValue(k int) string { return "value-" + strconv.Itoa(k) }

// textValues holds makeTextValue(k) for every key below readRows (it is never written).
var textValues = func() []string {
	v := make([]string, readRows)
	for k := range v {
		v[k] = makeTextValue(k)
	}
	return v
}()

// batchPartition is the partition the batch workload writes to for op n (never the read_page one).
func batchPartition(n int64) int { return 2 + int(n%1000) }

func checkWorkload(name string) error {
	for _, w := range workloadNames {
		if w == name {
			return nil
		}
	}
	return fmt.Errorf("unknown workload %q (want one of %v)", name, workloadNames)
}
