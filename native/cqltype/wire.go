package cqltype

import (
	"encoding/binary"
	"math/big"
	"math/bits"
)

// appendVarintInt64 appends the minimal two's complement big-endian encoding of n
// (the CQL varint body).
func appendVarintInt64(dst []byte, n int64) []byte {
	size := 8
	for size > 1 {
		// The top byte is redundant when it only repeats the sign of the next one.
		top := byte(n >> (8*size - 8))
		next := byte(n >> (8*size - 16))
		if (top == 0 && next&0x80 == 0) || (top == 0xFF && next&0x80 != 0) {
			size--
			continue
		}
		break
	}
	for i := size - 1; i >= 0; i-- {
		dst = append(dst, byte(n>>(8*i)))
	}
	return dst
}

// appendVarintBig appends the minimal two's complement encoding of x.
func appendVarintBig(dst []byte, x *big.Int) []byte {
	if x.IsInt64() {
		return appendVarintInt64(dst, x.Int64())
	}
	if x.Sign() > 0 {
		b := x.Bytes()
		if b[0]&0x80 != 0 {
			dst = append(dst, 0)
		}
		return append(dst, b...)
	}
	// Negative: the bytes of -x-1, inverted, with a sign byte when needed.
	m := new(big.Int).Neg(x)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		dst = append(dst, 0xFF)
	}
	return append(dst, b...)
}

// decodeVarintInt64 decodes a varint body of at most 8 bytes.
func decodeVarintInt64(b []byte) int64 {
	var n int64
	if b[0]&0x80 != 0 {
		n = -1
	}
	for _, c := range b {
		n = n<<8 | int64(c)
	}
	return n
}

// decodeVarintBig decodes a varint body of any length (at least one byte).
func decodeVarintBig(b []byte) *big.Int {
	if len(b) <= 8 {
		return big.NewInt(decodeVarintInt64(b))
	}
	x := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		// x - 2^(8*len)
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

// varintInt64 decodes a varint body into an int64 when it fits.
// varintUint64 decodes a varint that is not negative and fits in 64 bits unsigned; ok is
// false for any other (and for an empty one).
func varintUint64(b []byte) (u uint64, ok bool) {
	if len(b) == 0 || b[0]&0x80 != 0 {
		return 0, false
	}
	for len(b) > 1 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) > 8 {
		return 0, false
	}
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	return u, true
}

func varintInt64(b []byte) (int64, bool) {
	if len(b) <= 8 {
		return decodeVarintInt64(b), true
	}
	x := decodeVarintBig(b)
	if !x.IsInt64() {
		return 0, false
	}
	return x.Int64(), true
}

// appendUvint appends v as a protocol [unsigned vint]: the number of leading one
// bits of the first byte tells how many bytes follow.
func appendUvint(dst []byte, v uint64) []byte {
	used := 64 - bits.LeadingZeros64(v|1)
	extra := (used - 1) / 7
	if extra > 8 {
		extra = 8
	}
	if extra == 0 {
		return append(dst, byte(v))
	}
	first := byte(0xFF << (8 - extra))
	if extra < 8 {
		first |= byte(v >> (8 * extra))
	}
	dst = append(dst, first)
	for i := extra - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// readUvint decodes an [unsigned vint] from the start of b and returns it and
// the number of bytes used (0 when b is truncated or empty).
func readUvint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	extra := bits.LeadingZeros8(^b[0])
	if len(b) < 1+extra {
		return 0, 0
	}
	var v uint64
	if extra < 8 {
		v = uint64(b[0] & (0xFF >> (extra + 1)))
	}
	for _, c := range b[1 : 1+extra] {
		v = v<<8 | uint64(c)
	}
	return v, 1 + extra
}

// appendVint appends v zig-zag encoded as a protocol [vint].
func appendVint(dst []byte, v int64) []byte {
	return appendUvint(dst, uint64(v<<1)^uint64(v>>63))
}

// readVint decodes a zig-zag [vint] from the start of b.
func readVint(b []byte) (int64, int) {
	u, n := readUvint(b)
	return int64(u>>1) ^ -int64(u&1), n
}

// reserveLen appends a 4-byte placeholder for a [bytes] length and returns its
// offset, to be completed by patchLen.
func reserveLen(dst []byte) ([]byte, int) {
	return append(dst, 0, 0, 0, 0), len(dst)
}

// patchLen writes the length of everything after the placeholder at off.
func patchLen(dst []byte, off int) {
	binary.BigEndian.PutUint32(dst[off:], uint32(len(dst)-off-4))
}
