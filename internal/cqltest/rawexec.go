package cqltest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// rawExec runs one statement over a fresh protocol v4 connection: STARTUP, then QUERY at
// consistency ONE. It is deliberately independent of the code under test (no cqlbridge package),
// so set-up does not depend on what is being tested.
func rawExec(ctx context.Context, host, cql string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	} else {
		_ = c.SetDeadline(time.Now().Add(time.Minute))
	}
	startup := binary.BigEndian.AppendUint16(nil, 1)
	startup = appendShortString(startup, "CQL_VERSION")
	startup = appendShortString(startup, "3.0.0")
	if _, err := roundTrip(c, 0x01, startup); err != nil {
		return fmt.Errorf("STARTUP: %w", err)
	}
	resp, err := roundTrip(c, 0x07, queryBody(cql))
	if err != nil {
		return err
	}
	if len(resp) >= 4 && binary.BigEndian.Uint32(resp) == resultSchemaChange {
		return awaitAgreement(ctx, c)
	}
	return nil
}

// queryBody is the body of a QUERY of cql at consistency ONE, without values.
func queryBody(cql string) []byte {
	body := binary.BigEndian.AppendUint32(nil, uint32(len(cql)))
	body = append(body, cql...)
	body = binary.BigEndian.AppendUint16(body, 0x0001) // consistency ONE
	return append(body, 0)                             // no flags
}

// RESULT kinds.
const (
	resultRows         = 0x0002
	resultSchemaChange = 0x0005
)

// awaitAgreement polls, on c, the schema version of the node and those it lists for its
// peers until they are all the same, as drivers do after DDL: on a multi-node cluster the
// next statement may go to another coordinator, which must know the change. It gives up when
// ctx ends.
func awaitAgreement(ctx context.Context, c io.ReadWriter) error {
	for {
		versions := map[string]bool{}
		for _, q := range []string{"SELECT schema_version FROM system.local", "SELECT schema_version FROM system.peers"} {
			resp, err := roundTrip(c, 0x07, queryBody(q))
			if err != nil {
				return fmt.Errorf("awaiting schema agreement: %s: %w", q, err)
			}
			cells, err := firstColumn(resp)
			if err != nil {
				return fmt.Errorf("awaiting schema agreement: %s: %w", q, err)
			}
			for _, v := range cells {
				if v != "" {
					versions[v] = true
				}
			}
		}
		if len(versions) <= 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("awaiting schema agreement: %w (versions %v)", ctx.Err(), versions)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// firstColumn decodes a ROWS result whose columns are all of types without parameters and
// returns the first column's cells (as strings of bytes; "" for null).
func firstColumn(b []byte) ([]string, error) {
	r := reader{b: b}
	if kind := r.int(); kind != resultRows {
		return nil, fmt.Errorf("RESULT of kind %d, want rows", kind)
	}
	flags, cols := r.int(), int(r.int())
	if flags&0x0002 != 0 {
		r.bytes() // paging state
	}
	if flags&0x0004 == 0 {
		if flags&0x0001 != 0 {
			r.string()
			r.string()
		}
		for range cols {
			if flags&0x0001 == 0 {
				r.string()
				r.string()
			}
			r.string()
			if id := r.short(); id == 0 || id >= 0x0020 {
				return nil, fmt.Errorf("column type 0x%04x has parameters", id)
			}
		}
	}
	rows := int(r.int())
	var out []string
	for range rows {
		for i := range cols {
			v := r.bytes()
			if i == 0 {
				out = append(out, string(v))
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// reader decodes protocol values; the first overrun is kept in err.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		if r.err == nil {
			r.err = errors.New("truncated RESULT")
		}
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) int() uint32 {
	if v := r.take(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

func (r *reader) short() uint16 {
	if v := r.take(2); v != nil {
		return binary.BigEndian.Uint16(v)
	}
	return 0
}

func (r *reader) string() string { return string(r.take(int(r.short()))) }

func (r *reader) bytes() []byte {
	n := int32(r.int())
	if n < 0 {
		return nil
	}
	return r.take(int(n))
}

func appendShortString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// roundTrip sends one frame on stream 1 and reads the answer; an ERROR frame becomes an error.
func roundTrip(rw io.ReadWriter, opcode byte, body []byte) ([]byte, error) {
	frame := []byte{0x04, 0, 0, 1, opcode, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(frame[5:], uint32(len(body)))
	if _, err := rw.Write(append(frame, body...)); err != nil {
		return nil, err
	}
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(rw, hdr[:]); err != nil {
			return nil, err
		}
		n := binary.BigEndian.Uint32(hdr[5:])
		if n > 256<<20 {
			return nil, fmt.Errorf("response frame of %d bytes", n)
		}
		resp := make([]byte, n)
		if _, err := io.ReadFull(rw, resp); err != nil {
			return nil, err
		}
		if int16(binary.BigEndian.Uint16(hdr[2:])) != 1 {
			continue // an event or a stray frame: not our answer
		}
		if hdr[1]&0x01 != 0 {
			return nil, errors.New("compressed response without compression negotiated")
		}
		if hdr[4] != 0x00 {
			return resp, nil
		}
		if len(resp) < 6 {
			return nil, errors.New("truncated ERROR frame")
		}
		code := binary.BigEndian.Uint32(resp)
		l := int(binary.BigEndian.Uint16(resp[4:]))
		msg := ""
		if 6+l <= len(resp) {
			msg = string(resp[6 : 6+l])
		}
		return nil, fmt.Errorf("server error 0x%04x: %s", code, msg)
	}
}
