// Package smoke holds the foundation's smoke tests: the legacy driver, gocql v1.7.0, against the
// server named by CQL_HOSTS (the Apache Cassandra node that `make test` starts) or, when it is
// unset, an embedded cqlsim node. They prove the test environment works before anything of
// cqlbridge is involved. TestGocqlSeesAllNodes runs only with CQL_EXPECT_NODES set (on a
// cluster of that many nodes). The package has no code outside its tests.
package smoke
