// Package murmur3 computes Cassandra's Murmur3Partitioner token. The native core's token ring,
// the compat layer's token-aware policy and cqlsim's partition order all use it, so the three agree
// with each other and with a real node by construction.
package murmur3

import (
	"encoding/binary"
	"math"
	"math/bits"
)

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// Token returns the Murmur3Partitioner token of a routing key: the first 64 bits of
// MurmurHash3_x64_128 with seed 0, computed the way Cassandra does it. Cassandra's
// implementation reads the tail bytes (the last len%16) as signed Java bytes, so a tail byte
// >= 0x80 is sign-extended before being mixed in; this function reproduces that, and maps the
// one value Cassandra reserves (math.MinInt64) to math.MaxInt64, as Cassandra does.
func Token(key []byte) int64 {
	h1 := murmur3H1(key)
	if h1 == math.MinInt64 {
		return math.MaxInt64
	}
	return h1
}

func murmur3H1(key []byte) int64 {
	n := len(key)
	var h1, h2 uint64
	nblocks := n / 16
	for i := range nblocks {
		k1 := binary.LittleEndian.Uint64(key[i*16:])
		k2 := binary.LittleEndian.Uint64(key[i*16+8:])

		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := key[nblocks*16:]
	// signed widens a tail byte as Java's (long) cast of a byte does.
	signed := func(b byte) uint64 { return uint64(int64(int8(b))) }
	var k1, k2 uint64
	switch len(tail) {
	case 15:
		k2 ^= signed(tail[14]) << 48
		fallthrough
	case 14:
		k2 ^= signed(tail[13]) << 40
		fallthrough
	case 13:
		k2 ^= signed(tail[12]) << 32
		fallthrough
	case 12:
		k2 ^= signed(tail[11]) << 24
		fallthrough
	case 11:
		k2 ^= signed(tail[10]) << 16
		fallthrough
	case 10:
		k2 ^= signed(tail[9]) << 8
		fallthrough
	case 9:
		k2 ^= signed(tail[8])
		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= signed(tail[7]) << 56
		fallthrough
	case 7:
		k1 ^= signed(tail[6]) << 48
		fallthrough
	case 6:
		k1 ^= signed(tail[5]) << 40
		fallthrough
	case 5:
		k1 ^= signed(tail[4]) << 32
		fallthrough
	case 4:
		k1 ^= signed(tail[3]) << 24
		fallthrough
	case 3:
		k1 ^= signed(tail[2]) << 16
		fallthrough
	case 2:
		k1 ^= signed(tail[1]) << 8
		fallthrough
	case 1:
		k1 ^= signed(tail[0])
		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	return int64(h1)
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
