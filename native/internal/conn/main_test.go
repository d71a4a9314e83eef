package conn

import (
	"testing"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, cqltest.GoleakOptions()...)
}

// realServer reports whether the tests run against the servers of CQL_HOSTS (Apache Cassandra
// or ScyllaDB) rather than the embedded cqlsim; checks of behaviour that only a real node has
// (tracing sessions, server warnings, a consistency level that a single node cannot meet,
// compressed responses) are made only then.
func realServer() bool { return len(cqltest.HostsFromEnv()) > 0 }
