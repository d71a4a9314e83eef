// Package inflate bounds how far a compressed CQL frame body can expand, so that a length
// announced by a few bytes (an lz4 length prefix, a snappy header) cannot make a reader allocate
// up to its frame limit before decompression proves the length false. The client (native/proto)
// and the embedded server (cqlsim) both check announced lengths against these bounds.
package inflate

// In an LZ4 block every byte of a match length's continuation adds at most 255 bytes of output;
// in a snappy block a 3-byte copy emits at most 64 bytes. slack covers the shortest blocks.
const (
	lz4Ratio    = 255
	snappyRatio = 32
	slack       = 16
)

// MaxLZ4 returns the most bytes an lz4 block of blockLen bytes (without the 4-byte length
// prefix of the CQL framing) can decompress to.
func MaxLZ4(blockLen int) int64 { return int64(max(blockLen, 0))*lz4Ratio + slack }

// MaxSnappy returns the most bytes a snappy block of blockLen bytes can decompress to.
func MaxSnappy(blockLen int) int64 { return int64(max(blockLen, 0))*snappyRatio + slack }
