// Package difftest holds the differential test of cqlsim: one scenario of CQL statements (DDL,
// every type, INSERT/UPDATE/DELETE variants, lightweight transactions, batches, counters,
// paging with small page sizes, IN, clustering slices, ORDER BY, LIMIT, PER PARTITION LIMIT,
// token ranges, ALLOW FILTERING, GROUP BY, JSON, functions, type orderings and errors) run with
// gocql against cqlsim and against a real Apache Cassandra node. Rows, column names and types,
// [applied] results and error codes and messages must match (compared with go-cmp); paging-state
// bytes and write timestamps are never compared. Further tests compare gocql's
// KeyspaceMetadata, PREPARE metadata and keyspace-bound sessions. TestConditionsAndBatches,
// TestSelectsAndPaging, TestWritesAndCollections and TestStaticsIndexesAndDeletes compare
// groups of statements, each in its own keyspace (runCompared), on lightweight transactions
// and batches, SELECT features with the rows and paging state of every page (Step.Pages),
// counters, timestamps, TTLs, collection and JSON writes, static columns, deletions and
// secondary indexes. TestGenerated runs seeded,
// generated sequences of statements on a random schema (writes with literals and bind markers,
// conditions, TTLs and timestamps, collection updates, reads with every kind of restriction,
// paging, counters and invalid statements) on both servers and minimizes a divergence to a
// short reproduction; -gen.seeds (or DIFFTEST_GEN_SEEDS) runs other seeds, e.g. 1-500.
//
// Run it against a node with:
//
//	CQL_HOSTS=127.0.0.1 go test ./cqlsim/difftest
//
// Without CQL_HOSTS the tests skip (there is nothing to compare with). CQL_KEYSPACE_PREFIX
// replaces the t_ prefix of the keyspaces the tests create, for runs that share a node.
package difftest
