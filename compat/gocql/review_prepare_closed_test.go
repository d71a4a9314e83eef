package gocql

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// cutOnPrepare is a dialer whose connections close themselves right after writing a PREPARE
// whose text contains mark, once: the node goes away with the PREPARE in flight.
type cutOnPrepare struct {
	mark  []byte
	armed atomic.Bool
}

func (d *cutOnPrepare) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &cutConn{Conn: nc, d: d}, nil
}

type cutConn struct {
	net.Conn
	d *cutOnPrepare
}

func (c *cutConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if len(p) > 9 && p[4] == 0x09 && bytes.Contains(p, c.d.mark) && c.d.armed.CompareAndSwap(true, false) {
		c.Conn.Close()
	}
	return n, err
}

// A query whose PREPARE was sent and whose connection then closed, before the answer, fails
// with ErrConnectionClosed, as in gocql v1.7.0 on Cassandra (on cqlsim gocql may report the
// socket's own error instead): the PREPARE was an attempt. It failed with ErrNoConnections
// ("no hosts available in the pool"), the error of a query no node could be sent, as if the
// PREPARE had found no open connection, hiding the node's failure. The next query succeeds.
func TestPrepareConnectionClosedInFlightLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	cd, ld := &cutOnPrepare{mark: []byte("cluster_name")}, &cutOnPrepare{mark: []byte("release_version")}
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Dialer, l.Dialer = cd, ld
	})
	cd.armed.Store(true)
	ld.armed.Store(true)
	var v string
	err := ls.Query("SELECT release_version FROM system.local WHERE key = ?", "local").Scan(&v)
	if err == nil || errors.Is(err, gocqlv1.ErrNoConnections) {
		t.Errorf("gocql: %v, want the connection's failure", err)
	}
	err = s.Query("SELECT cluster_name FROM system.local WHERE key = ?", "local").Scan(&v)
	if !errors.Is(err, ErrConnectionClosed) {
		t.Errorf("compat: %v, want ErrConnectionClosed", err)
	}
	if cd.armed.Load() || ld.armed.Load() {
		t.Fatal("a PREPARE was not cut off")
	}
	if err := s.Query("SELECT cluster_name FROM system.local WHERE key = ?", "local").Scan(&v); err != nil {
		t.Errorf("compat, the next query: %v", err)
	}
}
