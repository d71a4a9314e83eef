package main

import (
	"bufio"
	"bytes"
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
// one request in flight per connection, responses read into a reused buffer and checked, without
// decoding any value, for what the other drivers check too: the header (protocol version, the
// stream, the opcode; an ERROR is an error), the result's kind, the number of rows a read
// returns and an LWT's [applied] flag. The socket is read and written with raw system calls
// (internal/rawio), the cheapest I/O a Go program has. No driver can do less work per operation.
type floorDriver struct {
	workload string
	conns    []*floorConn // worker i's connection is to host i mod the number of hosts
	frames   [][]byte     // pre-encoded request frames, chosen by operation number
	pageID   []byte       // read_page: the prepared id, for building next-page frames
	pageVals [][]byte     // read_page: the bound values, encoded once
}

type floorConn struct {
	c     net.Conn
	w     io.Writer // c, or raw writes to it
	r     *bufio.Reader
	hdr   [9]byte // reused response header (a local would escape through io.Reader)
	buf   []byte  // reused response body buffer
	body  []byte  // the response's message: buf after the tracing id, warnings and custom payload
	req   []byte  // reused request buffer for next-page frames
	state []byte  // reused paging state buffer (read_page)
}

const (
	opError    = 0x00
	protoV4Rsp = 0x84 // the version byte of a v4 response
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
	addrs := make([]string, len(cfg.Hosts))
	for i, addr := range cfg.Hosts {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(addr, "9042")
		}
		addrs[i] = addr
	}
	// The workers' connections go round the hosts, as the other drivers spread their requests
	// over the nodes.
	for i := 0; i < cfg.Concurrency; i++ {
		fc, err := dialFloor(ctx, addrs[i%len(addrs)])
		if err != nil {
			d.close()
			return nil, err
		}
		d.conns = append(d.conns, fc)
	}
	// Each host prepares the statement, on its first connection; every node must give it the
	// same id (a node derives it from the text and the keyspace), which the frames carry.
	prep := func(stmt string) ([]byte, error) {
		var id []byte
		for i := 0; i < min(len(addrs), len(d.conns)); i++ {
			fc := d.conns[i]
			if err := fc.roundTrip(frame(opPrepare, appendLongString(nil, stmt))); err != nil {
				return nil, fmt.Errorf("floor: preparing %q on %s: %w", stmt, addrs[i], err)
			}
			b := fc.body
			if len(b) < 6 || binary.BigEndian.Uint32(b) != 4 {
				return nil, fmt.Errorf("floor: preparing %q on %s: not a PREPARED result", stmt, addrs[i])
			}
			n := int(binary.BigEndian.Uint16(b[4:]))
			if len(b) < 6+n {
				return nil, fmt.Errorf("floor: preparing %q on %s: truncated prepared id", stmt, addrs[i])
			}
			switch got := b[6 : 6+n]; {
			case id == nil:
				id = append([]byte(nil), got...)
			case !bytes.Equal(id, got):
				return nil, fmt.Errorf("floor: preparing %q: %s and %s gave different prepared ids (%x, %x)", stmt, addrs[0], addrs[i], id, got)
			}
		}
		return id, nil
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
		d.pageVals = [][]byte{int32Bytes(pagePartition)}
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

// roundTrip writes one frame (on stream 0) and reads the response into fc.buf, its message into
// fc.body; an ERROR response, or a response that is not of protocol v4 or not to stream 0, is an
// error.
func (fc *floorConn) roundTrip(req []byte) error {
	if _, err := fc.w.Write(req); err != nil {
		return err
	}
	hdr := fc.hdr[:]
	if _, err := io.ReadFull(fc.r, hdr); err != nil {
		return err
	}
	n := int(binary.BigEndian.Uint32(hdr[5:]))
	if n > 256<<20 {
		return fmt.Errorf("floor: response of %d bytes", n)
	}
	if cap(fc.buf) < n {
		fc.buf = make([]byte, n)
	}
	fc.buf = fc.buf[:n]
	if _, err := io.ReadFull(fc.r, fc.buf); err != nil {
		return err
	}
	if hdr[0] != protoV4Rsp {
		return fmt.Errorf("floor: response version byte 0x%02x, want 0x%02x", hdr[0], protoV4Rsp)
	}
	if stream := binary.BigEndian.Uint16(hdr[2:]); stream != 0 {
		return fmt.Errorf("floor: response to stream %d, want 0", int16(stream))
	}
	body, err := frameMessage(hdr[1], fc.buf)
	if err != nil {
		return err
	}
	fc.body = body
	switch hdr[4] {
	case opResult, opReady:
		return nil
	case opError:
		msg := ""
		if len(body) >= 6 {
			l := int(binary.BigEndian.Uint16(body[4:]))
			if 6+l <= len(body) {
				msg = string(body[6 : 6+l])
			}
		}
		code := uint32(0)
		if len(body) >= 4 {
			code = binary.BigEndian.Uint32(body)
		}
		return fmt.Errorf("server error 0x%04x: %s", code, msg)
	}
	return fmt.Errorf("unexpected opcode 0x%02x", hdr[4])
}

// errTruncatedSections is a response whose flags announce sections its body does not hold.
var errTruncatedSections = errors.New("floor: truncated response header sections")

// frameMessage returns a response body without what its header flags put before the message:
// a tracing id (0x02), warnings (0x08), a custom payload (0x04), in that order.
func frameMessage(flags byte, b []byte) ([]byte, error) {
	bad := errTruncatedSections
	if flags&0x01 != 0 {
		return nil, errors.New("floor: compressed response (no compression was negotiated)")
	}
	if flags&0x02 != 0 {
		if len(b) < 16 {
			return nil, bad
		}
		b = b[16:]
	}
	if flags&0x08 != 0 {
		if len(b) < 2 {
			return nil, bad
		}
		n := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		for i := 0; i < n; i++ {
			var ok bool
			if b, ok = skipString(b); !ok {
				return nil, bad
			}
		}
	}
	if flags&0x04 != 0 {
		if len(b) < 2 {
			return nil, bad
		}
		n := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		for i := 0; i < n; i++ {
			var ok bool
			if b, ok = skipString(b); !ok {
				return nil, bad
			}
			if b, ok = skipBytes(b); !ok {
				return nil, bad
			}
		}
	}
	return b, nil
}

// skipString skips a [string] (a short length and that many bytes).
func skipString(b []byte) ([]byte, bool) {
	if len(b) < 2 {
		return nil, false
	}
	l := int(binary.BigEndian.Uint16(b))
	if len(b) < 2+l {
		return nil, false
	}
	return b[2+l:], true
}

// skipBytes skips a [bytes] (an int length, negative for null, and that many bytes).
func skipBytes(b []byte) ([]byte, bool) {
	_, rest, ok := readBytes(b)
	return rest, ok
}

// readBytes reads a [bytes]; a null value is nil.
func readBytes(b []byte) (v, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	l := int(int32(binary.BigEndian.Uint32(b)))
	if l < 0 {
		return nil, b[4:], true
	}
	if len(b) < 4+l {
		return nil, nil, false
	}
	return b[4 : 4+l], b[4+l:], true
}

// skipOption skips a column type [option], recursing into collections, tuples and UDTs.
func skipOption(b []byte, depth int) ([]byte, bool) {
	if len(b) < 2 || depth > 16 {
		return nil, false
	}
	id := binary.BigEndian.Uint16(b)
	b = b[2:]
	ok := true
	switch id {
	case 0x0000: // custom: a class name
		return skipString(b)
	case 0x0020, 0x0022: // list, set
		return skipOption(b, depth+1)
	case 0x0021: // map
		if b, ok = skipOption(b, depth+1); !ok {
			return nil, false
		}
		return skipOption(b, depth+1)
	case 0x0030: // UDT: keyspace, name, fields
		if b, ok = skipString(b); ok {
			b, ok = skipString(b)
		}
		if !ok || len(b) < 2 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		for i := 0; i < n && ok; i++ {
			if b, ok = skipString(b); ok {
				b, ok = skipOption(b, depth+1)
			}
		}
		return b, ok
	case 0x0031: // tuple
		if len(b) < 2 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		for i := 0; i < n && ok; i++ {
			b, ok = skipOption(b, depth+1)
		}
		return b, ok
	}
	return b, true
}

// errBadRows is a ROWS result that does not parse.
var errBadRows = errors.New("floor: malformed ROWS result")

// rowsInfo is what the floor checks of a ROWS result.
type rowsInfo struct {
	rows      int    // rows in this page
	state     []byte // the paging state (nil: the last page); aliases the response buffer
	firstCol  []byte // the first column's name, when the result has metadata
	firstCell []byte // the first row's first value (nil: no row, or null)
}

// checkKind returns an error unless body is a RESULT of kind want.
func checkKind(body []byte, want uint32) error {
	if len(body) < 4 {
		return errors.New("floor: truncated RESULT")
	}
	if k := binary.BigEndian.Uint32(body); k != want {
		return fmt.Errorf("floor: result kind %d, want %d", k, want)
	}
	return nil
}

// parseRows reads a ROWS result's metadata, row count and first value without decoding
// anything else.
func parseRows(body []byte) (rowsInfo, error) {
	var ri rowsInfo
	if err := checkKind(body, 2); err != nil {
		return ri, err
	}
	b := body[4:]
	if len(b) < 8 {
		return ri, errBadRows
	}
	flags, cols := binary.BigEndian.Uint32(b), int(int32(binary.BigEndian.Uint32(b[4:])))
	b = b[8:]
	if cols < 0 {
		return ri, errBadRows
	}
	ok := true
	if flags&0x0002 != 0 {
		if ri.state, b, ok = readBytes(b); !ok {
			return ri, errBadRows
		}
		if ri.state == nil {
			ri.state = []byte{} // a null paging state still says more pages follow
		}
	}
	if flags&0x0004 == 0 {
		global := flags&0x0001 != 0
		if global {
			if b, ok = skipString(b); ok {
				b, ok = skipString(b)
			}
		}
		for i := 0; i < cols && ok; i++ {
			if !global {
				if b, ok = skipString(b); ok {
					b, ok = skipString(b)
				}
			}
			if !ok || len(b) < 2 {
				return ri, errBadRows
			}
			if i == 0 {
				l := int(binary.BigEndian.Uint16(b))
				if len(b) < 2+l {
					return ri, errBadRows
				}
				ri.firstCol = b[2 : 2+l]
			}
			if b, ok = skipString(b); ok {
				b, ok = skipOption(b, 0)
			}
		}
		if !ok {
			return ri, errBadRows
		}
	}
	if len(b) < 4 {
		return ri, errBadRows
	}
	ri.rows = int(int32(binary.BigEndian.Uint32(b)))
	if ri.rows < 0 {
		return ri, errBadRows
	}
	if ri.rows > 0 && cols > 0 {
		if ri.firstCell, _, ok = readBytes(b[4:]); !ok {
			return ri, errBadRows
		}
	}
	return ri, nil
}

func (d *floorDriver) close() {
	for _, c := range d.conns {
		c.c.Close()
	}
}

// abort closes the connections when the run ends, so that an operation waiting for a server
// that does not answer ends with the run (the window's end, an interruption), as the other
// drivers' operations end by their context or their request timeout; the floor has neither.
func (d *floorDriver) abort() { d.close() }

func (d *floorDriver) op(ctx context.Context, worker int, n int64) error {
	fc := d.conns[worker]
	switch d.workload {
	case wlWritePrepared, wlBatch:
		if err := fc.roundTrip(d.frames[int(n)%len(d.frames)]); err != nil {
			return err
		}
		return checkKind(fc.body, 1) // VOID
	case wlReadPrepared:
		if err := fc.roundTrip(d.frames[int(n)%len(d.frames)]); err != nil {
			return err
		}
		ri, err := parseRows(fc.body)
		if err != nil {
			return err
		}
		return checkRows(ri.rows, 1)
	case wlLWT:
		if err := fc.roundTrip(d.frames[int(n)%len(d.frames)]); err != nil {
			return err
		}
		ri, err := parseRows(fc.body)
		if err != nil {
			return err
		}
		if ri.rows < 1 || string(ri.firstCol) != "[applied]" {
			return errors.New("floor: lwt: no [applied] column in the result")
		}
		return checkApplied(len(ri.firstCell) == 1 && ri.firstCell[0] != 0)
	}
	rows := 0
	for pages := 0; ; pages++ {
		fc.req = appendFrameHeader(fc.req[:0], opExecute)
		fc.req = appendExecute(fc.req, d.pageID, 0x01|0x02|0x04|boolFlag(pages > 0, 0x08), d.pageVals, pageSize, fc.state)
		binary.BigEndian.PutUint32(fc.req[5:], uint32(len(fc.req)-9))
		if err := fc.roundTrip(fc.req); err != nil {
			return err
		}
		ri, err := parseRows(fc.body)
		if err != nil {
			return err
		}
		rows += ri.rows
		if ri.state == nil {
			return checkRows(rows, pageRows)
		}
		fc.state = append(fc.state[:0], ri.state...)
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
