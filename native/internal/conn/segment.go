package conn

import (
	"bufio"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Protocol v5 segments.
//
// A v5 connection exchanges OPTIONS, STARTUP and the server's READY or AUTHENTICATE in the
// legacy framing, then wraps every frame in checksummed segments (proto.AppendSegments) in
// both directions. The switch happens in the goroutine reading the socket, the moment it reads
// READY or AUTHENTICATE, so no byte after them is read the old way; the writer switches at the
// same moment, before the handshake can send anything else. With compression the segments, not
// the frames, are lz4-compressed.
//
// The frame reader keeps reading frames from c.br, which now reads the segments' checked
// payloads (proto.SegmentReader) instead of the socket; a read deadline passing in the
// middle of a segment leaves it in place, as in the middle of a frame.

// startSegments switches the connection to segments. It runs under rmu.
func (c *Conn) startSegments() {
	c.segSrc = c.br
	c.segReader = &proto.SegmentReader{R: c.segSrc, Compressed: c.segCompress.Load(),
		// A segment arriving slowly is progress (see heartbeatLoop), as part of a frame is.
		Partial: func() { c.frames.Add(1) }}
	c.br = bufio.NewReaderSize(c.segReader, readBufferSize)
	c.wmu.Lock()
	c.segmented = true
	c.wmu.Unlock()
}

// buffered returns how many bytes were received and not yet read as frames: in c.br and, with
// segments, in the segment reader and the socket's buffer beneath it (segments not yet
// opened). It runs under rmu.
func (c *Conn) buffered() int {
	n := c.br.Buffered()
	if c.segReader != nil {
		n += c.segReader.Buffered() + c.segSrc.Buffered()
	}
	return n
}

// writeFrames writes buf, whole frames back to back, as segments once the connection uses
// them. It returns how many bytes of buf reached the server: with segments, those of the
// segments written whole (a segment cut short cannot be read, so its frames were not sent).
// It runs under wmu.
func (c *Conn) writeFrames(buf []byte) (int, error) {
	if !c.segmented {
		return c.w.Write(buf)
	}
	compress := c.segCompress.Load()
	segs, err := proto.AppendSegments(c.segBuf[:0], buf, compress)
	if err != nil {
		return 0, err
	}
	if cap(segs) <= writeBufferKeep {
		c.segBuf = segs[:0]
	} else {
		c.segBuf = nil
	}
	n, err := c.w.Write(segs)
	if err != nil {
		return proto.SegmentedPrefix(segs, n, compress), err
	}
	return len(buf), nil
}
