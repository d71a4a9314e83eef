package cqltest

import (
	"context"
	"net"
	"sync/atomic"
	"syscall"
)

// WriteBreaker is a dialer (a native.Dialer, a gocql Dialer) that dials TCP and, while armed,
// makes the next write on a connection to Addr write nothing and fail with EPIPE, as a write
// to a connection the server has reset does. It disarms itself on that write.
type WriteBreaker struct {
	// Addr is the host:port whose connections can break.
	Addr string
	// Armed, when true, breaks the next write to Addr (of at least MinLen bytes).
	Armed atomic.Bool
	// MinLen, when above zero, spares writes shorter than it: they neither break nor disarm,
	// so that a test can aim at one large frame while handshakes, heartbeats and other
	// small frames go through.
	MinLen int
	// Broken counts the writes broken.
	Broken atomic.Int32
}

// DialContext dials TCP; a connection to Addr is wrapped so that its writes can break.
func (d *WriteBreaker) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var nd net.Dialer
	nc, err := nd.DialContext(ctx, network, address)
	if err != nil || address != d.Addr {
		return nc, err
	}
	return &breakableConn{Conn: nc, d: d}, nil
}

type breakableConn struct {
	net.Conn
	d *WriteBreaker
}

func (c *breakableConn) Write(b []byte) (int, error) {
	if len(b) >= c.d.MinLen && c.d.Armed.CompareAndSwap(true, false) {
		c.d.Broken.Add(1)
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	}
	return c.Conn.Write(b)
}
