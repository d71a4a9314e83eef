// Package conformance runs scenarios written once against the gocql API with the legacy gocql
// v1.7.0 and with cqlbridge's shim on the same server, and compares their traces with go-cmp.
package conformance
