package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/rawio"
)

// floorDriver is the physical limit of the machine for a workload: one connection per worker,
// frames encoded before the run starts (only a paging state is spliced in during read_page),
// one request in flight per connection, responses read into a reused buffer and checked only for
// their opcode (and the paging state). The socket is read and written with raw system calls
// (internal/rawio), the cheapest I/O a Go program has. No driver can do less work per operation.
type floorDriver struct {
	workload string
	conns    []*floorConn
	frames   [][]byte // pre-encoded request frames, chosen by operation number
	pageID   []byte   // read_page: the prepared id, for building next-page frames
}

type floorConn struct {
	c   net.Conn
	w   io.Writer // c, or raw writes to it
	r   *bufio.Reader
	hdr [9]byte // reused response header (a local would escape through io.Reader)
	buf []byte  // reused response body buffer
	req []byte  // reused request buffer for next-page frames
}

const (
	opError    = 0x00
	opStartup  = 0x01
	opReady    = 0x02
	opPrepare  = 0x09
	opExecute  = 0x0A
	opBatch    = 0x0D
	opResult   = 0x08
	protoV4Req = 0x04
)

func newFloorDriver(ctx context.Context, cfg runConfig) (driver, error) {
	d := &floorDriver{workload: cfg.Workload}
	addr := cfg.Hosts[0]
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "9042")
	}
	for i := 0; i < cfg.Concurrency; i++ {
		fc, err := dialFloor(ctx, addr)
		if err != nil {
			d.close()
			return nil, err
		}
		d.conns = append(d.conns, fc)
	}
	prep := func(stmt string) ([]byte, error) {
		body := appendLongString(nil, stmt)
		if err := d.conns[0].roundTrip(frame(opPrepare, body)); err != nil {
			return nil, fmt.Errorf("floor: preparing %q: %w", stmt, err)
		}
		b := d.conns[0].buf
		if len(b) < 6 || binary.BigEndian.Uint32(b) != 4 {
			return nil, fmt.Errorf("floor: preparing %q: not a PREPARED result", stmt)
		}
		n := int(binary.BigEndian.Uint16(b[4:]))
		if len(b) < 6+n {
			return nil, errors.New("floor: truncated prepared id")
		}
		return append([]byte(nil), b[6:6+n]...), nil
	}
	switch cfg.Workload {
	case wlReadPrepared, wlWritePrepared, wlLWT:
		stmt := map[string]string{wlReadPrepared: stmtRead, wlWritePrepared: stmtWrite, wlLWT: stmtLWT}[cfg.Workload]
		id, err := prep(stmt)
		if err != nil {
			d.close()
			return nil, err
		}
		keys := readRows
		if cfg.Workload == wlLWT {
			keys = 1000
		}
		for k := 0; k < keys; k++ {
			var vals [][]byte
			flags := byte(0x01) // values
			switch cfg.Workload {
			case wlReadPrepared:
				vals = [][]byte{int32Bytes(k)}
				flags |= 0x02 // skip metadata
			case wlWritePrepared:
				vals = [][]byte{int32Bytes(k), int32Bytes(k), []byte(textValue(k))}
			case wlLWT:
				vals = [][]byte{int32Bytes(1), int32Bytes(k), int32Bytes(1)}
			}
			d.frames = append(d.frames, frame(opExecute, appendExecute(nil, id, flags, vals, 0, nil)))
		}
	case wlReadPage:
		id, err := prep(stmtPage)
		if err != nil {
			d.close()
			return nil, err
		}
		d.pageID = id
	case wlBatch:
		id, err := prep(stmtBatch)
		if err != nil {
			d.close()
			return nil, err
		}
		for p := 0; p < 1000; p++ {
			body := []byte{1} // unlogged
			body = binary.BigEndian.AppendUint16(body, batchSize)
			for i := 0; i < batchSize; i++ {
				body = append(body, 1) // prepared
				body = appendShortBytes(body, id)
				body = binary.BigEndian.AppendUint16(body, 3)
				for _, v := range [][]byte{int32Bytes(batchPartition(int64(p))), int32Bytes(i), []byte(textValue(i))} {
					body = appendBytes(body, v)
				}
			}
			body = binary.BigEndian.AppendUint16(body, 1) // consistency ONE
			body = append(body, 0)                        // flags
			d.frames = append(d.frames, frame(opBatch, body))
		}
	default:
		d.close()
		return nil, fmt.Errorf("floor driver: unknown workload %q", cfg.Workload)
	}
	return d, nil
}

func dialFloor(ctx context.Context, addr string) (*floorConn, error) {
	var dialer net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := dialer.DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("floor: dialing %s: %w", addr, err)
	}
	fc := &floorConn{c: c, w: c, r: bufio.NewReaderSize(c, 64<<10)}
	if raw := rawio.New(c); raw != nil {
		fc.w, fc.r = raw, bufio.NewReaderSize(raw, 64<<10)
	}
	body := binary.BigEndian.AppendUint16(nil, 1) // string map with one entry
	body = appendString(body, "CQL_VERSION")
	body = appendString(body, "3.0.0")
	if err := fc.roundTrip(frame(opStartup, body)); err != nil {
		c.Close()
		return nil, fmt.Errorf("floor: STARTUP on %s: %w", addr, err)
	}
	return fc, nil
}

// roundTrip writes one frame and reads the response into fc.buf; an ERROR response is an error.
func (fc *floorConn) roundTrip(req []byte) error {
	if _, err := fc.w.Write(req); err != nil {
		return err
	}
	hdr := fc.hdr[:]
	if _, err := io.ReadFull(fc.r, hdr); err != nil {
		return err
	}
	n := int(binary.BigEndian.Uint32(hdr[5:]))
	if cap(fc.buf) < n {
		fc.buf = make([]byte, n)
	}
	fc.buf = fc.buf[:n]
	if _, err := io.ReadFull(fc.r, fc.buf); err != nil {
		return err
	}
	switch hdr[4] {
	case opResult, opReady:
		return nil
	case opError:
		msg := ""
		if n >= 6 {
			l := int(binary.BigEndian.Uint16(fc.buf[4:]))
			if 6+l <= n {
				msg = string(fc.buf[6 : 6+l])
			}
		}
		return fmt.Errorf("server error 0x%04x: %s", binary.BigEndian.Uint32(fc.buf), msg)
	}
	return fmt.Errorf("unexpected opcode 0x%02x", hdr[4])
}

func (d *floorDriver) close() {
	for _, c := range d.conns {
		c.c.Close()
	}
}

func (d *floorDriver) op(ctx context.Context, worker int, n int64) error {
	fc := d.conns[worker]
	if d.workload != wlReadPage {
		return fc.roundTrip(d.frames[int(n)%len(d.frames)])
	}
	var state []byte
	for pages := 0; ; pages++ {
		fc.req = appendFrameHeader(fc.req[:0], opExecute)
		fc.req = appendExecute(fc.req, d.pageID, 0x01|0x02|0x04|boolFlag(state != nil, 0x08), [][]byte{int32Bytes(pagePartition)}, pageSize, state)
		binary.BigEndian.PutUint32(fc.req[5:], uint32(len(fc.req)-9))
		if err := fc.roundTrip(fc.req); err != nil {
			return err
		}
		b := fc.buf
		// RESULT Rows: kind, metadata flags, column count, [paging state when flag 0x0002]
		if len(b) < 12 || binary.BigEndian.Uint32(b) != 2 {
			return errors.New("floor: read_page: not a ROWS result")
		}
		if binary.BigEndian.Uint32(b[4:])&0x0002 == 0 {
			return nil
		}
		l := int(int32(binary.BigEndian.Uint32(b[12:])))
		if l < 0 || 16+l > len(b) {
			return errors.New("floor: read_page: bad paging state")
		}
		state = append(state[:0], b[16:16+l]...)
		if pages > pageRows {
			return errors.New("floor: read_page: paging does not end")
		}
	}
}

func boolFlag(b bool, f byte) byte {
	if b {
		return f
	}
	return 0
}

func frame(op byte, body []byte) []byte {
	f := appendFrameHeader(make([]byte, 0, 9+len(body)), op)
	binary.BigEndian.PutUint32(f[5:], uint32(len(body)))
	return append(f, body...)
}

func appendFrameHeader(dst []byte, op byte) []byte {
	return append(dst, protoV4Req, 0, 0, 0, op, 0, 0, 0, 0)
}

func appendExecute(dst, id []byte, flags byte, vals [][]byte, pageSize int32, state []byte) []byte {
	dst = appendShortBytes(dst, id)
	dst = binary.BigEndian.AppendUint16(dst, 1) // consistency ONE
	dst = append(dst, flags)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(vals)))
	for _, v := range vals {
		dst = appendBytes(dst, v)
	}
	if flags&0x04 != 0 {
		dst = binary.BigEndian.AppendUint32(dst, uint32(pageSize))
	}
	if flags&0x08 != 0 {
		dst = appendBytes(dst, state)
	}
	return dst
}

func int32Bytes(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(int32(v))) }

func appendString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

func appendLongString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

func appendShortBytes(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(b)))
	return append(dst, b...)
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}
