package gocql

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// SocketKeepalive sets the keep-alive period of the connections the shim dials when no
// Dialer or HostDialer is set, as gocql's default dialer does (a net.Dialer with that
// KeepAlive): the socket's TCP_KEEPIDLE is that period, TCP_KEEPINTVL Go's default. With a Dialer set, the Dialer decides (gocql ignores
// SocketKeepalive then too).
func TestSocketKeepaliveSetsTheSocketsPeriod(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	keepalive := func(d interface {
		DialContext(context.Context, string, string) (net.Conn, error)
	}) (idle, intvl int) {
		t.Helper()
		c, err := d.DialContext(context.Background(), "tcp", sim.Addrs()[0])
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var serr error
		if err := raw.Control(func(fd uintptr) {
			if idle, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE); serr == nil {
				intvl, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL)
			}
		}); err != nil || serr != nil {
			t.Fatal(err, serr)
		}
		return idle, intvl
	}

	cfg := NewCluster(sim.Addrs()...)
	cfg.SocketKeepalive = 7 * time.Second
	d := nativeDialer(cfg)
	if d == nil {
		t.Fatal("SocketKeepalive set, but the native core keeps its own dialer")
	}
	var plain net.Dialer
	_, goIntvl := keepalive(&plain)
	if idle, intvl := keepalive(d); idle != 7 || intvl != goIntvl {
		t.Errorf("SocketKeepalive 7s: TCP_KEEPIDLE %d, TCP_KEEPINTVL %d, want 7 and %d", idle, intvl, goIntvl)
	}
	cfg.Dialer = &net.Dialer{KeepAlive: 11 * time.Second}
	if idle, _ := keepalive(nativeDialer(cfg)); idle != 11 {
		t.Errorf("with a Dialer, TCP_KEEPIDLE %d, want the Dialer's 11", idle)
	}
	if nativeDialer(NewCluster(sim.Addrs()...)) != nil {
		t.Error("without SocketKeepalive or a dialer, the shim replaces the native core's dialer")
	}
	// And a session with SocketKeepalive alone works.
	cfg.Dialer = nil
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
