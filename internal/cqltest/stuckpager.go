package cqltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"sync"
)

// FrameRewriter is a dialer (a native.Dialer, a gocql Dialer) whose connections pass every
// whole frame the server sends through Rewrite before the driver reads it: a test's way to
// make a server answer as no real one would. Frames are cut by their protocol v3/v4 header
// (9 bytes, the body's length last), so it suits uncompressed connections below protocol v5.
type FrameRewriter struct {
	// Rewrite returns the frame to deliver in place of frame (frame itself to leave it);
	// it may be called from several connections at once.
	Rewrite func(frame []byte) []byte
}

// DialContext dials TCP and wraps the connection so that the frames it reads are rewritten.
func (f *FrameRewriter) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &rewrittenConn{Conn: nc, rewrite: f.Rewrite}, nil
}

// rewrittenConn is a connection whose reads return the server's frames as rewritten.
type rewrittenConn struct {
	net.Conn
	rewrite func([]byte) []byte
	in      []byte // bytes read from the server, not yet a whole frame
	out     []byte // frames rewritten, not yet returned
}

func (c *rewrittenConn) Read(b []byte) (int, error) {
	for len(c.out) == 0 {
		buf := make([]byte, 64<<10)
		n, err := c.Conn.Read(buf)
		c.in = append(c.in, buf[:n]...)
		for len(c.in) >= 9 {
			size := 9 + int(binary.BigEndian.Uint32(c.in[5:9]))
			if len(c.in) < size {
				break
			}
			c.out = append(c.out, c.rewrite(c.in[:size])...)
			c.in = c.in[size:]
		}
		if len(c.out) == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(b, c.out)
	c.out = c.out[n:]
	return n, nil
}

// StuckPager is a dialer (a native.Dialer, a gocql Dialer) whose connections make their
// server look as if its paging state never moved on: the first paging state a RESULT Rows
// frame brings is kept, and every later page, whatever its own state, comes with that one. A
// driver that fetches the next page with the state it was given so asks for the second page
// again and again. Only uncompressed protocol v4 frames without tracing id, warnings or
// custom payload are rewritten; other bytes pass unchanged.
type StuckPager struct {
	mu    sync.Mutex
	first []byte
}

// DialContext dials TCP and wraps the connection so that its pages' paging states are
// rewritten.
func (p *StuckPager) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return (&FrameRewriter{Rewrite: p.rewrite}).DialContext(ctx, network, address)
}

// rewrite returns frame with its paging state replaced by the first one seen (and records
// that one when it is the first).
func (p *StuckPager) rewrite(frame []byte) []byte {
	const rowsHead = 9 + 4 + 4 + 4 // header, result kind, flags, column count
	if len(frame) < rowsHead+4 || frame[0] != 0x84 || frame[1] != 0 || frame[4] != 0x08 ||
		binary.BigEndian.Uint32(frame[9:]) != 2 || binary.BigEndian.Uint32(frame[13:])&0x02 == 0 {
		return frame
	}
	n := int(int32(binary.BigEndian.Uint32(frame[rowsHead:])))
	if n <= 0 || rowsHead+4+n > len(frame) {
		return frame
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first == nil {
		p.first = bytes.Clone(frame[rowsHead+4 : rowsHead+4+n])
		return frame
	}
	out := append([]byte(nil), frame[:rowsHead]...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(p.first)))
	out = append(out, p.first...)
	out = append(out, frame[rowsHead+4+n:]...)
	binary.BigEndian.PutUint32(out[5:9], uint32(len(out)-9))
	return out
}
