package cqltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"

	reflz4 "github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// FrameRewriter is a dialer (a native.Dialer, a gocql Dialer) whose connections pass every
// whole frame the server sends through Rewrite before the driver reads it: a test's way to
// make a server answer as no real one would. Frames are cut by their protocol v3/v4 header
// (9 bytes, the body's length last), so Rewrite suits uncompressed frames outside protocol v5
// segments. With RewriteSegment set, a protocol v5 connection's segments (everything the
// server sends after its READY or AUTHENTICATE) are checked, decoded and passed to it, and
// what it returns is encoded again, checksums included.
type FrameRewriter struct {
	// Rewrite returns the frame to deliver in place of frame (frame itself to leave it);
	// it may be called from several connections at once.
	Rewrite func(frame []byte) []byte
	// RewriteSegment, when set, returns the segments to deliver in place of seg, one of
	// the segments of a protocol v5 connection ([]Segment{seg} to leave it); it may be
	// called from several connections at once.
	RewriteSegment func(seg Segment) []Segment
	// Compressed says that the v5 connections use lz4 segments (the driver asked for lz4).
	Compressed bool
}

// Segment is a protocol v5 segment as FrameRewriter.RewriteSegment sees it: its payload
// (uncompressed) and its self-contained flag.
type Segment struct {
	Payload       []byte
	SelfContained bool
}

// DialContext dials TCP and wraps the connection so that the frames it reads are rewritten.
func (f *FrameRewriter) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	rc := &rewrittenConn{Conn: nc, rewrite: f.Rewrite, rewriteSegment: f.RewriteSegment}
	if rc.rewrite == nil {
		rc.rewrite = func(frame []byte) []byte { return frame }
	}
	if f.Compressed {
		rc.codec = segment.NewCodecWithCompression(reflz4.Compressor{})
	} else {
		rc.codec = segment.NewCodec()
	}
	return rc, nil
}

// rewrittenConn is a connection whose reads return the server's frames as rewritten.
type rewrittenConn struct {
	net.Conn
	rewrite        func([]byte) []byte
	rewriteSegment func(Segment) []Segment
	codec          segment.Codec
	segmented      bool   // the server's bytes are v5 segments from now on
	in             []byte // bytes read from the server, not yet a whole frame or segment
	out            []byte // frames rewritten, not yet returned
}

func (c *rewrittenConn) Read(b []byte) (int, error) {
	for len(c.out) == 0 {
		buf := make([]byte, 64<<10)
		n, err := c.Conn.Read(buf)
		c.in = append(c.in, buf[:n]...)
		for !c.segmented && len(c.in) >= 9 {
			size := 9 + int(binary.BigEndian.Uint32(c.in[5:9]))
			if len(c.in) < size {
				break
			}
			c.out = append(c.out, c.rewrite(c.in[:size])...)
			// A v5 server sends segments after READY or AUTHENTICATE.
			c.segmented = c.rewriteSegment != nil && c.in[0] == 0x85 && (c.in[4] == 0x02 || c.in[4] == 0x03)
			c.in = c.in[size:]
		}
		for c.segmented && len(c.in) > 0 {
			r := bytes.NewReader(c.in)
			seg, derr := c.codec.DecodeSegment(r)
			if derr != nil {
				if errors.Is(derr, io.EOF) || errors.Is(derr, io.ErrUnexpectedEOF) {
					break // not whole yet
				}
				c.out, c.in = append(c.out, c.in...), nil // not a segment: passed as it is
				break
			}
			c.in = c.in[len(c.in)-r.Len():]
			var w bytes.Buffer
			for _, s := range c.rewriteSegment(Segment{Payload: seg.Payload.UncompressedData, SelfContained: seg.Header.IsSelfContained}) {
				if eerr := c.codec.EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: s.SelfContained}, Payload: &segment.Payload{UncompressedData: s.Payload}}, &w); eerr != nil {
					return 0, eerr
				}
			}
			c.out = append(c.out, w.Bytes()...)
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
