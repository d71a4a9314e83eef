// Package conformance runs scenarios written once against the gocql API with the legacy gocql
// v1.7.0 and with cqlbridge's shim on the same server, and compares their traces with go-cmp.
//
// When the suite runs on two servers (the real Cassandra node and cqlsim), CompareServers also
// compares the legacy traces of the two: the same client against two servers, so what differs is
// the server's. That measures cqlsim's fidelity; it is reported, never enforced.
package conformance
