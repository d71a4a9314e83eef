package difftest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"go.uber.org/goleak"
)

// leakWait bounds how long TestMain waits for the goroutines of closed gocql sessions to end.
// gocql's Session.Close returns before its connections' goroutines have ended; on a loaded
// machine (the whole test suite under the race detector) they can outlast goleak's own retries
// (about two seconds). A goroutine a test truly leaked is still there after leakWait.
const leakWait = 30 * time.Second

func TestMain(m *testing.M) {
	// cqltest.Exec uses go-cassandra-native-protocol's client, which logs every frame through
	// zerolog's global logger.
	zerolog.SetGlobalLevel(zerolog.WarnLevel)
	code := m.Run()
	if code == 0 {
		// Every cqlsim cluster and gocql session a test opens is closed at its end.
		err := goleak.Find()
		for deadline := time.Now().Add(leakWait); err != nil && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
			err = goleak.Find()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left %s after the tests: %v\n", leakWait, err)
			code = 1
		}
	}
	os.Exit(code)
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
