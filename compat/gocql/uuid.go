package gocql

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// UUID is an RFC 4122 universally unique identifier: the Go type of CQL uuid
// and timeuuid values.
type UUID [16]byte

// The UUID variants reported by UUID.Variant.
const (
	VariantNCSCompat = 0
	VariantIETF      = 2
	VariantMicrosoft = 6
	VariantFuture    = 7
)

// uuidGen holds what version 1 UUIDs need from the process: the node id (a
// hardware address, or a random multicast address when there is none) and a
// clock sequence that starts at a random value and advances per UUID.
type uuidGen struct {
	node  []byte
	clock atomic.Uint32
}

var timeUUIDGen = sync.OnceValue(func() *uuidGen {
	g := &uuidGen{}
	if ifaces, err := net.Interfaces(); err == nil {
		for _, i := range ifaces {
			if i.Flags&net.FlagLoopback == 0 && len(i.HardwareAddr) > 0 {
				g.node = i.HardwareAddr
				break
			}
		}
	}
	if g.node == nil {
		g.node = make([]byte, 6)
		// crypto/rand.Read never fails on supported platforms (Go 1.24+
		// crashes the program instead of returning an error).
		_, _ = rand.Read(g.node)
		g.node[0] |= 0x01 // multicast bit, as RFC 4122 recommends for random node ids
	}
	var seq [2]byte
	_, _ = rand.Read(seq[:])
	g.clock.Store(uint32(seq[1])<<8 | uint32(seq[0]))
	return g
})

// ParseUUID parses a 32 digit hexadecimal number, optionally containing
// hyphens between digit pairs, into a UUID.
func ParseUUID(input string) (UUID, error) {
	var u UUID
	digits := 0
	for _, r := range input {
		if r == '-' && digits%2 == 0 {
			continue
		}
		var nib byte
		switch {
		case r >= '0' && r <= '9':
			nib = byte(r - '0')
		case r >= 'a' && r <= 'f':
			nib = byte(r-'a') + 10
		case r >= 'A' && r <= 'F':
			nib = byte(r-'A') + 10
		default:
			return UUID{}, fmt.Errorf("invalid UUID %q", input)
		}
		if digits >= 32 {
			return UUID{}, fmt.Errorf("invalid UUID %q", input)
		}
		if digits%2 == 0 {
			u[digits/2] = nib << 4
		} else {
			u[digits/2] |= nib
		}
		digits++
	}
	if digits != 32 {
		return UUID{}, fmt.Errorf("invalid UUID %q", input)
	}
	return u, nil
}

// UUIDFromBytes converts a raw 16-byte slice to a UUID.
func UUIDFromBytes(input []byte) (UUID, error) {
	var u UUID
	if len(input) != len(u) {
		return u, errors.New("UUIDs must be exactly 16 bytes long")
	}
	copy(u[:], input)
	return u, nil
}

// MustRandomUUID is RandomUUID that panics if the system's random source fails.
func MustRandomUUID() UUID {
	u, err := RandomUUID()
	if err != nil {
		panic(err)
	}
	return u
}

// RandomUUID returns a random (version 4) UUID.
func RandomUUID() (UUID, error) {
	var u UUID
	if _, err := rand.Read(u[:]); err != nil {
		return u, fmt.Errorf("gocql: reading random bytes for a UUID: %w", err)
	}
	u[6] = u[6]&0x0F | 0x40 // version 4
	u[8] = u[8]&0x3F | 0x80 // IETF variant
	return u, nil
}

// uuidEpoch is 1582-10-15T00:00:00Z, the origin of version 1 timestamps, in
// Unix seconds.
var uuidEpoch = time.Date(1582, time.October, 15, 0, 0, 0, 0, time.UTC).Unix()

// uuidTimestamp converts t to 100-nanosecond intervals since uuidEpoch.
func uuidTimestamp(t time.Time) int64 {
	t = t.UTC()
	return (t.Unix()-uuidEpoch)*10_000_000 + int64(t.Nanosecond()/100)
}

// TimeUUID returns a new time-based (version 1) UUID for the current time.
func TimeUUID() UUID {
	return UUIDFromTime(time.Now())
}

// Clock and node values that make Cassandra's TimeUUIDType, which compares
// the low 8 bytes as signed bytes, sort a UUID first or last among those with
// the same timestamp.
const (
	minClock = 0x8080
	maxClock = 0x7f7f
)

var (
	minNode = []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80}
	maxNode = []byte{0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f}
)

// MinTimeUUID returns the smallest time-based UUID Cassandra orders at time t;
// it is not unique and meant only for range queries on timeuuid columns.
func MinTimeUUID(t time.Time) UUID {
	return TimeUUIDWith(uuidTimestamp(t), minClock, minNode)
}

// MaxTimeUUID returns the largest time-based UUID Cassandra orders at time t;
// it is not unique and meant only for range queries on timeuuid columns.
func MaxTimeUUID(t time.Time) UUID {
	return TimeUUIDWith(uuidTimestamp(t), maxClock, maxNode)
}

// UUIDFromTime returns a new time-based (version 1) UUID for t, with this
// host's node id and the next value of the process's clock sequence.
func UUIDFromTime(t time.Time) UUID {
	g := timeUUIDGen()
	return TimeUUIDWith(uuidTimestamp(t), g.clock.Add(1), g.node)
}

// TimeUUIDWith builds a version 1 UUID from t (100-nanosecond intervals since
// 1582-10-15, 60 bits), clock (the clock sequence, 14 bits) and node (up to 6
// bytes). It does not advance the process's clock sequence.
func TimeUUIDWith(t int64, clock uint32, node []byte) UUID {
	var u UUID
	u[0], u[1], u[2], u[3] = byte(t>>24), byte(t>>16), byte(t>>8), byte(t)
	u[4], u[5] = byte(t>>40), byte(t>>32)
	u[6], u[7] = byte(t>>56)&0x0F|0x10, byte(t>>48) // version 1
	u[8] = byte(clock>>8)&0x3F | 0x80               // IETF variant
	u[9] = byte(clock)
	copy(u[10:], node)
	return u
}

const hexDigits = "0123456789abcdef"

// String returns the canonical form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
func (u UUID) String() string {
	buf := make([]byte, 0, 36)
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, hexDigits[b>>4], hexDigits[b&0x0F])
	}
	return string(buf)
}

// Bytes returns the 16 raw bytes of the UUID.
func (u UUID) Bytes() []byte {
	return u[:]
}

// Variant returns the UUID's variant (VariantIETF for the UUIDs this package
// generates).
func (u UUID) Variant() int {
	switch b := u[8]; {
	case b&0x80 == 0:
		return VariantNCSCompat
	case b&0x40 == 0:
		return VariantIETF
	case b&0x20 == 0:
		return VariantMicrosoft
	}
	return VariantFuture
}

// Version returns the UUID's version (1 for time-based, 4 for random).
func (u UUID) Version() int {
	return int(u[6] >> 4)
}

// Node returns the node id of a time-based UUID, or nil for other versions.
func (u UUID) Node() []byte {
	if u.Version() != 1 {
		return nil
	}
	return u[10:]
}

// Clock returns the 14-bit clock sequence of a time-based UUID, or 0 for
// other versions.
func (u UUID) Clock() uint32 {
	if u.Version() != 1 {
		return 0
	}
	return uint32(u[8]&0x3F)<<8 | uint32(u[9])
}

// Timestamp returns the 60-bit timestamp (100-nanosecond intervals since
// 1582-10-15) of a time-based UUID, or 0 for other versions.
func (u UUID) Timestamp() int64 {
	if u.Version() != 1 {
		return 0
	}
	low := uint64(u[0])<<24 | uint64(u[1])<<16 | uint64(u[2])<<8 | uint64(u[3])
	mid := uint64(u[4])<<40 | uint64(u[5])<<32
	high := uint64(u[6]&0x0F)<<56 | uint64(u[7])<<48
	return int64(low | mid | high)
}

// Time returns the timestamp of a time-based UUID as a UTC time.Time, or the
// zero time for other versions.
func (u UUID) Time() time.Time {
	if u.Version() != 1 {
		return time.Time{}
	}
	ts := u.Timestamp()
	return time.Unix(ts/10_000_000+uuidEpoch, ts%10_000_000*100).UTC()
}

// MarshalJSON encodes the UUID as a JSON string in canonical form.
func (u UUID) MarshalJSON() ([]byte, error) {
	return []byte(`"` + u.String() + `"`), nil
}

// UnmarshalJSON decodes a JSON string holding a UUID; u is unchanged on error.
func (u *UUID) UnmarshalJSON(data []byte) error {
	s := strings.Trim(string(data), `"`)
	if len(s) > 36 {
		return fmt.Errorf("invalid JSON UUID %s", s)
	}
	parsed, err := ParseUUID(s)
	if err != nil {
		return err
	}
	*u = parsed
	return nil
}

// MarshalText encodes the UUID in canonical form.
func (u UUID) MarshalText() ([]byte, error) {
	return []byte(u.String()), nil
}

// UnmarshalText parses text with ParseUUID; on error u becomes the zero UUID.
func (u *UUID) UnmarshalText(text []byte) error {
	var err error
	*u, err = ParseUUID(string(text))
	return err
}
