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
// The test in this package (futures_test.go) runs everything against a real node named by
// CQL_HOSTS; it fails rather than skips when CI=true and CQL_HOSTS, or a Python with
// cassandra-driver 3.29.2, is missing. The interpreter is $FUTURES_PYTHON, else the virtualenv
// scripts/install-drivers fills (${CQLBRIDGE_CACHE:-$HOME/.cache/cqlbridge}/pydrivers), else
// python3 (install the driver with `python3 -m pip install cassandra-driver==3.29.2`). Set
// FUTURES_TRACE_DIR to a directory to keep both sides' traces (python.json, go.json).
//
// The scenarios of faults.json carry a server error (a read or write timeout, unavailable,
// overloaded, ...) that a real node cannot be made to return: faults_test.go runs them on two
// cqlsim clusters with the same injected faults (cqlsim.Cluster.InjectFault), one for the Python
// driver and one for package future, to compare error handling and the default retry policy
// (legacy semantics A21-A23). They too need the Python driver, not CQL_HOSTS.
//
// To add a scenario, append it to scenarios.json; when the two traces differ on purpose, document
// the difference in docs/deviations.md (section future/callbacks, with an anchor) and list the
// events each side alone produces under "deviation".
package futures
