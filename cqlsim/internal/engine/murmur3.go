package engine

import (
	"encoding/binary"

	"github.com/cqlbridge/cqlbridge/internal/murmur3"
)

// murmur3Token is the Murmur3Partitioner token of a serialized partition key, computed as
// Cassandra does (package internal/murmur3).
func murmur3Token(key []byte) int64 { return murmur3.Token(key) }

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
