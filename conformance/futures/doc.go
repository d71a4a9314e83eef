// Package futures is the conformance harness of package future: scenarios written as data
// (scenarios.json: a statement, a page size, and steps saying when each callback or errback is
// added, which page fetches happen and what is read back) run on cqlbridge's future package (by
// [Run]) and on the legacy DataStax Python driver (by runner.py, cassandra-driver 3.29.2) against
// the same server. Both produce a [Trace]: the callback and errback invocations in order (which
// function, on which page, with which rows or error class, whether it ran inline inside its add
// call) and the results of the steps. [Compare] reports their differences, after removing, for a
// scenario that pins a documented deviation (docs/deviations.md), exactly the events the
// deviation lists, and fails if those events are not there.
//
// The test in this package (futures_test.go) runs everything against CQL_HOSTS; it fails rather
// than skips when CI=true and python3 or cassandra-driver is missing.
package futures
