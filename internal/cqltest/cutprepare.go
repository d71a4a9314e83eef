package cqltest

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
)

// PrepareCutter is a dialer (a native.Dialer, a gocql Dialer) whose connections, while armed,
// close themselves right after writing a PREPARE frame whose bytes contain Mark: the node goes
// away with the PREPARE in flight, sent. It disarms itself on that write.
type PrepareCutter struct {
	// Mark is a piece of the statement text whose PREPARE is cut off.
	Mark []byte
	// Armed, when true, cuts off the next PREPARE containing Mark.
	Armed atomic.Bool
	// AnyFrame, when true, cuts off after a write of any frame containing Mark (an EXECUTE
	// carrying a value, say), not only a PREPARE.
	AnyFrame bool
}

// DialContext dials TCP and wraps the connection so that its PREPARE can be cut off.
func (d *PrepareCutter) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var nd net.Dialer
	nc, err := nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &prepareCutConn{Conn: nc, d: d}, nil
}

type prepareCutConn struct {
	net.Conn
	d *PrepareCutter
}

// opPrepare is the PREPARE opcode, byte 4 of a v3/v4 frame header.
const opPrepare = 0x09

func (c *prepareCutConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if len(p) > 9 && (p[4] == opPrepare || c.d.AnyFrame) && bytes.Contains(p, c.d.Mark) && c.d.Armed.CompareAndSwap(true, false) {
		c.Conn.Close()
	}
	return n, err
}
