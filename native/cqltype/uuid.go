package cqltype

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// UUID is a CQL uuid or timeuuid value: 16 bytes in network order.
type UUID [16]byte

// ErrBadUUID reports text that is not a UUID; errors from ParseUUID wrap it.
var ErrBadUUID = errors.New("cqltype: malformed UUID")

// ParseUUID parses the canonical form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (case
// insensitive), also accepted with braces or without hyphens.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	in := s
	if len(in) == 38 && in[0] == '{' && in[37] == '}' {
		in = in[1:37]
	}
	var digits [32]byte
	n := 0
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c == '-' {
			if len(in) != 36 || (i != 8 && i != 13 && i != 18 && i != 23) {
				return u, fmt.Errorf("%w: %q: misplaced '-'", ErrBadUUID, s)
			}
			continue
		}
		if n == 32 {
			return u, fmt.Errorf("%w: %q: too long", ErrBadUUID, s)
		}
		digits[n] = c
		n++
	}
	if n != 32 || (len(in) != 32 && len(in) != 36) {
		return u, fmt.Errorf("%w: %q: want 32 hex digits", ErrBadUUID, s)
	}
	if _, err := hex.Decode(u[:], digits[:]); err != nil {
		return UUID{}, fmt.Errorf("%w: %q: %w", ErrBadUUID, s, err)
	}
	return u, nil
}

// String returns the canonical lower-case form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
func (u UUID) String() string {
	var buf [36]byte
	u.appendText(buf[:0])
	return string(buf[:])
}

func (u UUID) appendText(dst []byte) []byte {
	dst = hex.AppendEncode(dst, u[0:4])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[4:6])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[6:8])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[8:10])
	dst = append(dst, '-')
	return hex.AppendEncode(dst, u[10:16])
}

// MarshalText implements encoding.TextMarshaler with the canonical form.
func (u UUID) MarshalText() ([]byte, error) { return u.appendText(make([]byte, 0, 36)), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseUUID.
func (u *UUID) UnmarshalText(b []byte) error {
	v, err := ParseUUID(string(b))
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// Version returns the UUID version (1 for a time UUID, 4 for a random one).
func (u UUID) Version() int { return int(u[6] >> 4) }

// uuidEpochOffset is the number of 100 ns intervals between the UUID epoch
// (1582-10-15 00:00 UTC) and the Unix epoch.
const uuidEpochOffset = 0x01B21DD213814000

// Timestamp returns the 60-bit timestamp of a version 1 UUID (100 ns intervals
// since 1582-10-15); ok is false for other versions.
func (u UUID) Timestamp() (ts int64, ok bool) {
	if u.Version() != 1 {
		return 0, false
	}
	low := uint64(binary.BigEndian.Uint32(u[0:4]))
	mid := uint64(binary.BigEndian.Uint16(u[4:6]))
	hi := uint64(binary.BigEndian.Uint16(u[6:8]) & 0x0FFF)
	return int64(hi<<48 | mid<<32 | low), true
}

// Time returns the time of a version 1 (time) UUID in UTC, with 100 ns
// resolution; it returns the zero time for other versions.
func (u UUID) Time() time.Time {
	ts, ok := u.Timestamp()
	if !ok {
		return time.Time{}
	}
	d := ts - uuidEpochOffset
	return time.Unix(d/1e7, (d%1e7)*100).UTC()
}

// ClockSequence returns the 14-bit clock sequence of a version 1 UUID.
func (u UUID) ClockSequence() uint16 { return binary.BigEndian.Uint16(u[8:10]) & 0x3FFF }

// Node returns the 48-bit node field of a version 1 UUID.
func (u UUID) Node() [6]byte { return [6]byte(u[10:16]) }

// TimeUUIDAt builds the version 1 UUID of time t (truncated to 100 ns) with the
// given clock sequence (14 bits used) and node. Use it for deterministic ids and
// range bounds; NewTimeUUID picks a random clock sequence and node. A version 1
// UUID's 60-bit clock counts from 1582-10-15 to about the year 5236: a time
// outside that range (the zero time.Time, say) takes the nearest end, so that it
// still bounds a range on the side it lies.
func TimeUUIDAt(t time.Time, clockSeq uint16, node [6]byte) UUID {
	var ts uint64
	switch sec := t.Unix(); {
	case sec < -uuidEpochOffset/10_000_000:
		ts = 0
	case sec > (1<<60-1-uuidEpochOffset)/10_000_000-1:
		ts = 1<<60 - 1
	default:
		ts = uint64(sec*1e7 + int64(t.Nanosecond())/100 + uuidEpochOffset)
	}
	var u UUID
	binary.BigEndian.PutUint32(u[0:4], uint32(ts))
	binary.BigEndian.PutUint16(u[4:6], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:8], uint16(ts>>48)&0x0FFF|0x1000)
	binary.BigEndian.PutUint16(u[8:10], clockSeq&0x3FFF|0x8000)
	copy(u[10:], node[:])
	return u
}

// NewTimeUUID returns a version 1 UUID for the current time with a random clock
// sequence and a random node (multicast bit set, as RFC 4122 asks for nodes that
// are not MAC addresses), so ids made in the same 100 ns interval still differ.
func NewTimeUUID() (UUID, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return UUID{}, fmt.Errorf("cqltype: reading randomness for a time UUID: %w", err)
	}
	node := [6]byte(r[2:8])
	node[0] |= 0x01
	return TimeUUIDAt(time.Now(), binary.BigEndian.Uint16(r[0:2]), node), nil
}

// NewRandomUUID returns a random (version 4) UUID.
func NewRandomUUID() (UUID, error) {
	var u UUID
	if _, err := rand.Read(u[:]); err != nil {
		return UUID{}, fmt.Errorf("cqltype: reading randomness for a UUID: %w", err)
	}
	u[6] = u[6]&0x0F | 0x40
	u[8] = u[8]&0x3F | 0x80
	return u, nil
}
