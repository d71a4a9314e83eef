// Package cqltest is the integration-test helper every package uses: it finds the server to test
// against (CQL_HOSTS, or an embedded cqlsim when one is wired in), and creates a uniquely named
// keyspace per test that it drops afterwards.
package cqltest
