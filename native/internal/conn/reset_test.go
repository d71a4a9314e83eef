package conn

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// holdingDialer dials TCP and holds every write after the first two (at TLS 1.3 the client's
// ClientHello and its second flight, Finished included) until release is closed.
type holdingDialer struct {
	release chan struct{}
}

func (d holdingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &holdingConn{Conn: nc, release: d.release}, nil
}

type holdingConn struct {
	net.Conn
	release chan struct{}
	mu      sync.Mutex
	writes  int
}

func (c *holdingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	n := c.writes
	c.mu.Unlock()
	if n > 2 {
		<-c.release
	}
	return c.Conn.Write(p)
}

// A TLS 1.3 node that requires a client certificate refuses one only after the client's side
// of the handshake is done: it sends an alert and closes. A connection that writes its first
// request after the node's reset must still report the alert (what the application has to fix),
// not "connection reset by peer". Found on Cassandra (TestSecureCassandra's "no client
// certificate", about one run in six); here the node resets before the request is written, every
// time.
func TestWriteAfterResetReportsTheTLSAlert(t *testing.T) {
	cert, pool := cqltest.ServerCert(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed := make(chan struct{})
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			close(closed)
			return
		}
		tc := tls.Server(nc, &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13})
		_ = tc.Handshake() // fails: no client certificate; the alert is sent
		_ = nc.(*net.TCPConn).SetLinger(0)
		_ = nc.Close() // a reset
		close(closed)
	}()
	release := make(chan struct{})
	go func() {
		<-closed
		time.Sleep(50 * time.Millisecond) // the reset reaches the client
		close(release)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, ln.Addr().String(), Config{
		HeartbeatInterval: -1,
		TLS:               &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13},
		Dialer:            holdingDialer{release: release}.DialContext,
	})
	if err == nil {
		c.Close()
		t.Fatal("connected without the client certificate the server requires")
	}
	if !strings.Contains(err.Error(), "certificate required") {
		t.Errorf("err = %v, want the server's alert (certificate required)", err)
	}
}
