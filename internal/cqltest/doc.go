// Package cqltest is the integration-test helper every package uses: it finds the server to test
// against (CQL_HOSTS, or an embedded cqlsim when one is wired in), and creates a uniquely named
// keyspace per test that it drops afterwards. Secure finds the nodes that require a password and
// a client certificate over TLS (CQL_SECURE_HOSTS, CQL_TLS_CA, CQL_TLS_CERT and CQL_TLS_KEY, as
// `scripts/cassandra up --secure` prints them).
package cqltest
