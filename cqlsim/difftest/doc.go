// Package difftest holds the differential test of cqlsim: one scenario of CQL statements run
// with gocql against cqlsim and against a real Apache Cassandra node, whose outcomes (rows,
// column names, error codes and messages) must match.
package difftest
