package proto

import (
	"encoding/binary"
	"fmt"
	"math"
)

// ScyllaDB's tablets routing extension. A ScyllaDB node offers StartupTabletsRouting in
// SUPPORTED; a driver that echoes it in STARTUP gets, with the RESULT of a request for one
// partition of a table that uses tablets and that reached a node or shard holding no replica of
// it, a custom payload entry TabletsRoutingPayload describing the partition's tablet (see
// DecodeTablet), so that it can send the next requests for the tablet to a replica.
const (
	StartupTabletsRouting = "TABLETS_ROUTING_V1"
	TabletsRoutingPayload = "tablets-routing-v1"
)

// TabletReplica is one replica of a tablet: the node's host id and the shard on it that holds
// the tablet.
type TabletReplica struct {
	HostID [16]byte
	Shard  int
}

// Tablet is a tablet as a tablets-routing-v1 payload describes it: the tokens in
// (FirstToken, LastToken], and its replicas in the order the node gave.
type Tablet struct {
	FirstToken int64
	LastToken  int64
	Replicas   []TabletReplica
}

// Contains reports whether token falls in the tablet's range (FirstToken, LastToken]. The
// ring's lowest token, math.MinInt64, which the Murmur3 partitioner never produces, belongs
// to the tablet starting there.
func (t *Tablet) Contains(token int64) bool {
	return (token > t.FirstToken || token == math.MinInt64 && t.FirstToken == math.MinInt64) && token <= t.LastToken
}

// maxTabletReplicas bounds the replicas DecodeTablet accepts: far above any replication factor
// (each replica takes 32 bytes of the payload, so the bound costs nothing on valid input).
const maxTabletReplicas = 1024

// DecodeTablet decodes the value of a tablets-routing-v1 custom payload entry: the CQL
// serialization of tuple<bigint, bigint, list<tuple<uuid, int>>>, the first and last token of
// the tablet's range and its replicas (host id, shard). The result does not alias b. The
// error, wrapping ErrMalformed, names what is wrong: a short or null element, a size that is
// not the type's, an empty or inverted range, a negative shard, no replicas, or bytes left over.
func DecodeTablet(b []byte) (Tablet, error) {
	d := decoder{b: b}
	var t Tablet
	t.FirstToken = tabletBigint(&d, "tablet first token")
	t.LastToken = tabletBigint(&d, "tablet last token")
	list := tabletElement(&d, "tablet replica list")
	if d.err != nil {
		return Tablet{}, fmt.Errorf("proto: %s payload: %w", TabletsRoutingPayload, d.err)
	}
	if d.remaining() != 0 {
		return Tablet{}, fmt.Errorf("proto: %s payload: %w: %d bytes after the tuple", TabletsRoutingPayload, ErrMalformed, d.remaining())
	}
	if t.FirstToken >= t.LastToken {
		return Tablet{}, fmt.Errorf("proto: %s payload: %w: empty token range (%d, %d]", TabletsRoutingPayload, ErrMalformed, t.FirstToken, t.LastToken)
	}
	ld := decoder{b: list}
	n := ld.count("tablet replica count", 4+4+16+4+4)
	if ld.err == nil && (n == 0 || n > maxTabletReplicas) {
		ld.failf("tablet replica count %d is not in [1, %d]", n, maxTabletReplicas)
	}
	if ld.err == nil {
		t.Replicas = make([]TabletReplica, n)
	}
	for i := 0; i < n && ld.err == nil; i++ {
		rd := decoder{b: tabletElement(&ld, "tablet replica")}
		id := tabletElement(&rd, "replica host id")
		shard := tabletElement(&rd, "replica shard")
		switch {
		case rd.err != nil:
			ld.failf("replica %d: %v", i, rd.err)
		case len(id) != 16 || len(shard) != 4 || rd.remaining() != 0:
			ld.failf("replica %d: a (uuid, int) tuple has elements of 16 and 4 bytes and nothing after, not %d, %d and %d", i, len(id), len(shard), rd.remaining())
		default:
			copy(t.Replicas[i].HostID[:], id)
			t.Replicas[i].Shard = int(int32(binary.BigEndian.Uint32(shard)))
			if t.Replicas[i].Shard < 0 {
				ld.failf("replica %d: negative shard %d", i, t.Replicas[i].Shard)
			}
		}
	}
	if ld.err == nil && ld.remaining() != 0 {
		ld.failf("%d bytes after the replica list", ld.remaining())
	}
	if ld.err != nil {
		return Tablet{}, fmt.Errorf("proto: %s payload: %w", TabletsRoutingPayload, ld.err)
	}
	return t, nil
}

// tabletElement reads one element of a serialized tuple or list: [bytes], not null.
func tabletElement(d *decoder, what string) []byte {
	n := d.int_(what + " length")
	if d.err == nil && n < 0 {
		d.failf("%s is null", what)
	}
	return d.take(int(n), what)
}

// tabletBigint reads a tuple element holding a bigint.
func tabletBigint(d *decoder, what string) int64 {
	b := tabletElement(d, what)
	if d.err == nil && len(b) != 8 {
		d.failf("%s has %d bytes, not 8", what, len(b))
	}
	if d.err != nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// AppendTablet appends the tablets-routing-v1 serialization of t (see DecodeTablet), as a
// ScyllaDB node sends it.
func AppendTablet(dst []byte, t Tablet) []byte {
	dst = AppendLong(AppendInt(dst, 8), t.FirstToken)
	dst = AppendLong(AppendInt(dst, 8), t.LastToken)
	dst = AppendInt(dst, int32(4+len(t.Replicas)*(4+4+16+4+4)))
	dst = AppendInt(dst, int32(len(t.Replicas)))
	for _, r := range t.Replicas {
		dst = AppendInt(dst, 4+16+4+4)
		dst = AppendInt(dst, 16)
		dst = append(dst, r.HostID[:]...)
		dst = AppendInt(dst, 4)
		dst = AppendInt(dst, int32(r.Shard))
	}
	return dst
}
