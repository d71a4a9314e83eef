package difftest

import (
	"testing"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// cqltest.Exec uses go-cassandra-native-protocol's client, which logs every frame through
	// zerolog's global logger.
	zerolog.SetGlobalLevel(zerolog.WarnLevel)
	// Every cqlsim cluster and gocql session a test opens is closed at its end.
	goleak.VerifyTestMain(m)
}
