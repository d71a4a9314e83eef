package cqltest

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
)

// TailJoiner is a dialer (a native.Dialer, a gocql Dialer) whose connections hold back the
// last Tail bytes of every write of at least MinLen bytes and send them with the next write,
// in one write call: the frames written after a large one reach the server together with the
// large one's end, in the same read, as they often do when a client queues requests behind
// a large one. The held bytes wait for that next write (a write that never comes leaves
// them unsent), and go out before Close.
type TailJoiner struct {
	// MinLen is the size from which a write's tail is held back.
	MinLen int
	// Tail is how many bytes are held back (64 when zero).
	Tail int
	// Held counts the writes whose tail was held back.
	Held atomic.Int32
	// After counts the writes made on a connection after the write that carried a held
	// tail.
	After atomic.Int32
}

// DialContext dials TCP and wraps the connection.
func (d *TailJoiner) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var nd net.Dialer
	nc, err := nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &tailJoinConn{Conn: nc, d: d}, nil
}

type tailJoinConn struct {
	net.Conn
	d    *TailJoiner
	mu   sync.Mutex
	held []byte
	// joined is set once a write carried a held tail.
	joined bool
}

func (c *tailJoinConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.d.Tail
	if tail <= 0 {
		tail = 64
	}
	out := p
	if c.joined {
		c.d.After.Add(1)
	}
	if len(c.held) > 0 {
		out = append(c.held, p...)
		c.held = nil
		c.joined = true
	}
	keep := 0
	if len(p) >= c.d.MinLen && len(p) > tail {
		keep = tail
	}
	n, err := c.Conn.Write(out[:len(out)-keep])
	if err != nil {
		return max(0, n-(len(out)-len(p))), err
	}
	if keep > 0 {
		c.held = append([]byte(nil), out[len(out)-keep:]...)
		c.d.Held.Add(1)
	}
	return len(p), nil
}

func (c *tailJoinConn) Close() error {
	c.mu.Lock()
	if len(c.held) > 0 {
		_, _ = c.Conn.Write(c.held)
		c.held = nil
	}
	c.mu.Unlock()
	return c.Conn.Close()
}
