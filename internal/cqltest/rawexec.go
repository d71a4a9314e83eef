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
	query := binary.BigEndian.AppendUint32(nil, uint32(len(cql)))
	query = append(query, cql...)
	query = binary.BigEndian.AppendUint16(query, 0x0001) // consistency ONE
	query = append(query, 0)                             // no flags
	_, err = roundTrip(c, 0x07, query)
	return err
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
