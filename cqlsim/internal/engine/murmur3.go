package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// murmur3Token computes the Murmur3Partitioner token of a serialized partition key: the first
// 64 bits of Cassandra's MurmurHash3 x64_128 with seed 0. Cassandra reads the tail bytes as
// signed Java bytes (sign-extended before shifting); this implementation reproduces that quirk,
// so keys whose length is not a multiple of 16 and whose tail has bytes >= 0x80 get the same
// tokens as on a real node.
func murmur3Token(key []byte) int64 {
	const (
		c1 = 0x87c37b91114253d5
		c2 = 0x4cf5ad432745937f
	)
	var h1, h2 uint64
	n := len(key)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(key[i*16:])
		k2 := binary.LittleEndian.Uint64(key[i*16+8:])
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := key[nblocks*16:]
	// signed reads: Java's (long) of a byte sign-extends
	sb := func(i int) uint64 { return uint64(int64(int8(tail[i]))) }
	var k1, k2 uint64
	switch len(tail) {
	case 15:
		k2 ^= sb(14) << 48
		fallthrough
	case 14:
		k2 ^= sb(13) << 40
		fallthrough
	case 13:
		k2 ^= sb(12) << 32
		fallthrough
	case 12:
		k2 ^= sb(11) << 24
		fallthrough
	case 11:
		k2 ^= sb(10) << 16
		fallthrough
	case 10:
		k2 ^= sb(9) << 8
		fallthrough
	case 9:
		k2 ^= sb(8)
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= sb(7) << 56
		fallthrough
	case 7:
		k1 ^= sb(6) << 48
		fallthrough
	case 6:
		k1 ^= sb(5) << 40
		fallthrough
	case 5:
		k1 ^= sb(4) << 32
		fallthrough
	case 4:
		k1 ^= sb(3) << 24
		fallthrough
	case 3:
		k1 ^= sb(2) << 16
		fallthrough
	case 2:
		k1 ^= sb(1) << 8
		fallthrough
	case 1:
		k1 ^= sb(0)
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	t := int64(h1)
	if t == math.MinInt64 {
		return math.MaxInt64
	}
	return t
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// serializePartitionKey builds the partition key bytes that are hashed: the value itself for a
// single-column key, else each component as [2-byte length][bytes][0x00].
func serializePartitionKey(parts [][]byte) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	var out []byte
	for _, p := range parts {
		out = binary.BigEndian.AppendUint16(out, uint16(len(p)))
		out = append(out, p...)
		out = append(out, 0)
	}
	return out
}
