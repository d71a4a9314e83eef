package ring

import (
	"encoding/binary"
	"math"

	"github.com/cqlbridge/cqlbridge/internal/murmur3"
)

// Token returns the Murmur3Partitioner token of a routing key, as Cassandra computes it (see
// package internal/murmur3).
func Token(key []byte) int64 { return murmur3.Token(key) }

// AppendRoutingKey appends the routing key of a partition key made of components (the
// encoded values of the partition key columns, in order) to dst. A single component is its
// own routing key; a composite key is, for each component, a 2-byte big-endian length, the
// bytes and a 0 byte. ok is false when a component is too long for the composite form.
func AppendRoutingKey(dst []byte, components ...[]byte) (out []byte, ok bool) {
	if len(components) == 1 {
		return append(dst, components[0]...), true
	}
	for _, c := range components {
		if len(c) > math.MaxUint16 {
			return dst, false
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(c)))
		dst = append(dst, c...)
		dst = append(dst, 0)
	}
	return dst, true
}
