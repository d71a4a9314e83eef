package difftest

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// cqltest.Exec uses go-cassandra-native-protocol's client, which logs every frame through
	// zerolog's global logger.
	zerolog.SetGlobalLevel(zerolog.WarnLevel)
	// Every cqlsim cluster and gocql session a test opens is closed at its end.
	goleak.VerifyTestMain(m)
}

// referenceHosts returns the real node(s) from CQL_HOSTS, skipping the test when it is unset:
// comparing cqlsim with the embedded cqlsim that cqltest.Hosts falls back to proves nothing.
func referenceHosts(t *testing.T) []string {
	t.Helper()
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		t.Skipf("%s is unset: the differential test needs a real Cassandra node (e.g. %s=127.0.0.1)", cqltest.EnvHosts, cqltest.EnvHosts)
	}
	return hosts
}
