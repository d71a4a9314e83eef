// Package cqlsim is an embedded, in-memory CQL server that real drivers accept: protocol
// negotiation, system tables, an in-memory store for a CQL subset, paging, prepared statements,
// lightweight transactions, batches and multi-node clusters on 127.0.0.x. It serves tests,
// examples and benchmarks.
package cqlsim
