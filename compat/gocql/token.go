package gocql

import (
	"sort"
	"strconv"

	"github.com/cqlbridge/cqlbridge/internal/murmur3"
)

const murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"

// murmur3Token is the Murmur3Partitioner token of a partition key (package internal/murmur3).
func murmur3Token(data []byte) int64 { return murmur3.Token(data) }

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
