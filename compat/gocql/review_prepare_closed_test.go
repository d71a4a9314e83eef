package gocql

import (
	"errors"
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// A query whose PREPARE was sent and whose connection then closed, before the answer, fails
// with ErrConnectionClosed, as in gocql v1.7.0 on Cassandra (on cqlsim gocql may report the
// socket's own error instead): the PREPARE was an attempt. It failed with ErrNoConnections
// ("no hosts available in the pool"), the error of a query no node could be sent, as if the
// PREPARE had found no open connection, hiding the node's failure. The next query succeeds.
func TestPrepareConnectionClosedInFlightLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	cd, ld := &cqltest.PrepareCutter{Mark: []byte("cluster_name")}, &cqltest.PrepareCutter{Mark: []byte("release_version")}
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Dialer, l.Dialer = cd, ld
	})
	cd.Armed.Store(true)
	ld.Armed.Store(true)
	var v string
	err := ls.Query("SELECT release_version FROM system.local WHERE key = ?", "local").Scan(&v)
	if err == nil || errors.Is(err, gocqlv1.ErrNoConnections) {
		t.Errorf("gocql: %v, want the connection's failure", err)
	}
	err = s.Query("SELECT cluster_name FROM system.local WHERE key = ?", "local").Scan(&v)
	if !errors.Is(err, ErrConnectionClosed) {
		t.Errorf("compat: %v, want ErrConnectionClosed", err)
	}
	if cd.Armed.Load() || ld.Armed.Load() {
		t.Fatal("a PREPARE was not cut off")
	}
	if err := s.Query("SELECT cluster_name FROM system.local WHERE key = ?", "local").Scan(&v); err != nil {
		t.Errorf("compat, the next query: %v", err)
	}
}
