package gocql

import (
	"encoding/binary"
	"math/bits"
	"sort"
	"strconv"
)

const murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"

// murmur3Token is the Murmur3Partitioner token of a partition key: the first 64 bits of
// MurmurHash3 x64_128 (seed 0) with Cassandra's sign-extended tail bytes.
func murmur3Token(data []byte) int64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	var h1, h2 uint64
	n := len(data)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
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
	tail := data[nblocks*16:]
	// Cassandra reads tail bytes as signed Java bytes, so each is sign-extended.
	b := func(i int) uint64 { return uint64(int64(int8(tail[i]))) }
	var k1, k2 uint64
	switch len(tail) & 15 {
	case 15:
		k2 ^= b(14) << 48
		fallthrough
	case 14:
		k2 ^= b(13) << 40
		fallthrough
	case 13:
		k2 ^= b(12) << 32
		fallthrough
	case 12:
		k2 ^= b(11) << 24
		fallthrough
	case 11:
		k2 ^= b(10) << 16
		fallthrough
	case 10:
		k2 ^= b(9) << 8
		fallthrough
	case 9:
		k2 ^= b(8)
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= b(7) << 56
		fallthrough
	case 7:
		k1 ^= b(6) << 48
		fallthrough
	case 6:
		k1 ^= b(5) << 40
		fallthrough
	case 5:
		k1 ^= b(4) << 32
		fallthrough
	case 4:
		k1 ^= b(3) << 24
		fallthrough
	case 3:
		k1 ^= b(2) << 16
		fallthrough
	case 2:
		k1 ^= b(1) << 8
		fallthrough
	case 1:
		k1 ^= b(0)
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

type ringEntry struct {
	token int64
	host  *HostInfo
}

// replicasFor returns up to rf distinct hosts owning token: the owner of the first ring token
// at or after it, then the following hosts on the ring (SimpleStrategy placement).
func replicasFor(hosts []*HostInfo, token int64, rf int) []*HostInfo {
	var ring []ringEntry
	for _, h := range hosts {
		for _, s := range h.Tokens() {
			t, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				continue
			}
			ring = append(ring, ringEntry{t, h})
		}
	}
	if len(ring) == 0 {
		return nil
	}
	sort.Slice(ring, func(i, j int) bool { return ring[i].token < ring[j].token })
	start := sort.Search(len(ring), func(i int) bool { return ring[i].token >= token })
	if rf < 1 {
		rf = 1
	}
	var out []*HostInfo
	for i := 0; i < len(ring) && len(out) < rf; i++ {
		h := ring[(start+i)%len(ring)].host
		seen := false
		for _, o := range out {
			if o == h {
				seen = true
				break
			}
		}
		if !seen {
			out = append(out, h)
		}
	}
	return out
}
