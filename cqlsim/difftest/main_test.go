package difftest

import (
	"os"
	"testing"

	"github.com/rs/zerolog"
)

func TestMain(m *testing.M) {
	// cqltest.Exec uses go-cassandra-native-protocol's client, which logs every frame through
	// zerolog's global logger.
	zerolog.SetGlobalLevel(zerolog.WarnLevel)
	os.Exit(m.Run())
}
