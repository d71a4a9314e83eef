package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"sort"
)

// ErrMalformed is wrapped by every error about bytes that do not form a valid frame or message:
// truncated bodies, negative or impossible counts and lengths, unknown kinds.
var ErrMalformed = errors.New("proto: malformed frame")

// ErrFrameTooLarge is wrapped by errors about a frame whose length exceeds the configured maximum.
var ErrFrameTooLarge = errors.New("proto: frame too large")

// --- encoding primitives (all append to dst) ---

// AppendShort appends a [short] (unsigned 16-bit big-endian integer).
func AppendShort(dst []byte, v uint16) []byte { return append(dst, byte(v>>8), byte(v)) }

// AppendInt appends an [int] (signed 32-bit big-endian integer).
func AppendInt(dst []byte, v int32) []byte {
	return append(dst, byte(uint32(v)>>24), byte(uint32(v)>>16), byte(uint32(v)>>8), byte(v))
}

// AppendLong appends a [long] (signed 64-bit big-endian integer).
func AppendLong(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// AppendString appends a [string]: a [short] length and the UTF-8 bytes. Strings longer than
// 65535 bytes cannot be encoded and return an error.
func AppendString(dst []byte, s string) ([]byte, error) {
	if len(s) > math.MaxUint16 {
		return dst, fmt.Errorf("proto: [string] of %d bytes exceeds 65535 bytes", len(s))
	}
	dst = AppendShort(dst, uint16(len(s)))
	return append(dst, s...), nil
}

// AppendLongString appends a [long string]: an [int] length and the UTF-8 bytes.
func AppendLongString(dst []byte, s string) ([]byte, error) {
	if int64(len(s)) > math.MaxInt32 {
		return dst, fmt.Errorf("proto: [long string] of %d bytes is too long", len(s))
	}
	dst = AppendInt(dst, int32(len(s)))
	return append(dst, s...), nil
}

// AppendShortBytes appends [short bytes]: a [short] length and the bytes.
func AppendShortBytes(dst []byte, b []byte) ([]byte, error) {
	if len(b) > math.MaxUint16 {
		return dst, fmt.Errorf("proto: [short bytes] of %d bytes exceeds 65535 bytes", len(b))
	}
	dst = AppendShort(dst, uint16(len(b)))
	return append(dst, b...), nil
}

// AppendBytes appends [bytes]: an [int] length and the bytes; a nil b is written as length -1
// (null).
func AppendBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return AppendInt(dst, -1)
	}
	dst = AppendInt(dst, int32(len(b)))
	return append(dst, b...)
}

// AppendStringList appends a [string list].
func AppendStringList(dst []byte, list []string) ([]byte, error) {
	if len(list) > math.MaxUint16 {
		return dst, fmt.Errorf("proto: [string list] of %d entries exceeds 65535", len(list))
	}
	dst = AppendShort(dst, uint16(len(list)))
	var err error
	for _, s := range list {
		if dst, err = AppendString(dst, s); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// AppendStringMap appends a [string map]. Keys are written in sorted order so the encoding is
// deterministic.
func AppendStringMap(dst []byte, m map[string]string) ([]byte, error) {
	if len(m) > math.MaxUint16 {
		return dst, fmt.Errorf("proto: [string map] of %d entries exceeds 65535", len(m))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = AppendShort(dst, uint16(len(m)))
	var err error
	for _, k := range keys {
		if dst, err = AppendString(dst, k); err != nil {
			return dst, err
		}
		if dst, err = AppendString(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func appendBytesMap(dst []byte, m map[string][]byte) ([]byte, error) {
	if len(m) > math.MaxUint16 {
		return dst, fmt.Errorf("proto: custom payload of %d entries exceeds 65535", len(m))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = AppendShort(dst, uint16(len(m)))
	var err error
	for _, k := range keys {
		if dst, err = AppendString(dst, k); err != nil {
			return dst, err
		}
		dst = AppendBytes(dst, m[k])
	}
	return dst, nil
}

// --- decoding ---

// decoder reads protocol primitives from a byte slice. Its error is sticky: after the first
// failure every read returns a zero value, and err names what was being read.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) remaining() int { return len(d.b) - d.off }

func (d *decoder) fail(what string, need int) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: reading %s at offset %d: need %d bytes, %d left", ErrMalformed, what, d.off, need, d.remaining())
	}
}

func (d *decoder) failf(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
	}
}

func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > d.remaining() {
		d.fail(what, n)
		return nil
	}
	b := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

func (d *decoder) byte_(what string) byte {
	b := d.take(1, what)
	if b == nil {
		return 0
	}
	return b[0]
}

func (d *decoder) short(what string) uint16 {
	b := d.take(2, what)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint16(b)
}

func (d *decoder) int_(what string) int32 {
	b := d.take(4, what)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// count reads an [int] element count and checks it against the bytes left, given that every
// element takes at least minSize bytes, so a lying count never drives a large allocation.
func (d *decoder) count(what string, minSize int) int {
	n := d.int_(what)
	if d.err != nil {
		return 0
	}
	if n < 0 {
		d.failf("%s is negative (%d) at offset %d", what, n, d.off-4)
		return 0
	}
	if minSize > 0 && int64(n)*int64(minSize) > int64(d.remaining()) {
		d.failf("%s %d cannot fit in the %d bytes left at offset %d", what, n, d.remaining(), d.off)
		return 0
	}
	return int(n)
}

// shortCount is count for [short] counts.
func (d *decoder) shortCount(what string, minSize int) int {
	n := int(d.short(what))
	if d.err != nil {
		return 0
	}
	if minSize > 0 && n*minSize > d.remaining() {
		d.failf("%s %d cannot fit in the %d bytes left at offset %d", what, n, d.remaining(), d.off)
		return 0
	}
	return n
}

// stringBytes reads a [string] and returns its bytes (a sub-slice of the input).
func (d *decoder) stringBytes(what string) []byte {
	n := d.short(what)
	return d.take(int(n), what)
}

// string_ reads a [string] into a new Go string.
func (d *decoder) string_(what string) string {
	return string(d.stringBytes(what))
}

// shortBytes reads [short bytes] as a sub-slice.
func (d *decoder) shortBytes(what string) []byte {
	n := d.short(what)
	return d.take(int(n), what)
}

// bytes reads [bytes] as a sub-slice; a negative length gives nil.
func (d *decoder) bytes(what string) []byte {
	n := d.int_(what)
	if d.err != nil || n < 0 {
		return nil
	}
	b := d.take(int(n), what)
	if b == nil && d.err == nil {
		return []byte{}
	}
	return b
}

func (d *decoder) stringList(what string) []string {
	n := d.shortCount(what, 2)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.string_(what))
	}
	return out
}

func (d *decoder) stringMultimap(what string) map[string][]string {
	n := d.shortCount(what, 4)
	m := make(map[string][]string, n)
	for i := 0; i < n && d.err == nil; i++ {
		k := d.string_(what)
		m[k] = d.stringList(what)
	}
	return m
}

func (d *decoder) bytesMap(what string) map[string][]byte {
	n := d.shortCount(what, 6)
	m := make(map[string][]byte, n)
	for i := 0; i < n && d.err == nil; i++ {
		k := d.string_(what)
		m[k] = d.bytes(what)
	}
	return m
}

func (d *decoder) consistency(what string) Consistency {
	return Consistency(d.short(what))
}

// inet reads an [inet]: a one-byte address size (4 or 16), the address and an [int] port.
func (d *decoder) inet(what string) netip.AddrPort {
	n := d.byte_(what)
	if d.err != nil {
		return netip.AddrPort{}
	}
	if n != 4 && n != 16 {
		d.failf("%s has address size %d, want 4 or 16", what, n)
		return netip.AddrPort{}
	}
	b := d.take(int(n), what)
	port := d.int_(what)
	if d.err != nil {
		return netip.AddrPort{}
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port))
}

// uuid reads a 16-byte [uuid].
func (d *decoder) uuid(what string) (u [16]byte) {
	copy(u[:], d.take(16, what))
	return u
}
