// Package smoke holds the foundation's smoke tests: the legacy driver, gocql v1.7.0, against the
// server named by CQL_HOSTS (the Apache Cassandra node that `make test` starts). They prove the
// test environment works before anything of cqlbridge is involved. The package has no non-test code.
package smoke
