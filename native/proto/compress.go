package proto

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/cqlbridge/cqlbridge/internal/inflate"
	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"
)

// Compressor compresses and decompresses frame bodies. Implementations must be safe for
// concurrent use.
type Compressor interface {
	// Name is the algorithm's name in STARTUP's COMPRESSION option ("lz4", "snappy").
	Name() string
	// AppendCompressed appends the compressed form of src to dst.
	AppendCompressed(dst, src []byte) ([]byte, error)
	// AppendDecompressed appends the decompressed form of src to dst. It fails, before
	// allocating, when the decompressed size would exceed max bytes or cannot result from
	// src's size.
	AppendDecompressed(dst, src []byte, max int) ([]byte, error)
}

// NewCompressor returns the compressor named name ("lz4" or "snappy").
func NewCompressor(name string) (Compressor, error) {
	switch name {
	case "lz4":
		return LZ4{}, nil
	case "snappy":
		return Snappy{}, nil
	}
	return nil, fmt.Errorf("proto: unknown compression %q (want lz4 or snappy)", name)
}

// LZ4 is Cassandra's lz4 frame compression: a 4-byte big-endian uncompressed length followed
// by an lz4 block.
type LZ4 struct{}

var lz4Compressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

// Name returns "lz4".
func (LZ4) Name() string { return "lz4" }

// AppendCompressed appends the length prefix and the lz4 block of src.
func (LZ4) AppendCompressed(dst, src []byte) ([]byte, error) {
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(src)))
	bound := lz4.CompressBlockBound(len(src))
	dst = slices.Grow(dst, bound)
	c := lz4Compressors.Get().(*lz4.Compressor)
	n, err := c.CompressBlock(src, dst[len(dst):len(dst)+bound])
	lz4Compressors.Put(c)
	if err != nil {
		return dst[:start], fmt.Errorf("lz4: compressing %d bytes: %w", len(src), err)
	}
	return dst[:len(dst)+n], nil
}

// AppendDecompressed appends the block's uncompressed bytes.
func (LZ4) AppendDecompressed(dst, src []byte, max int) ([]byte, error) {
	if len(src) < 4 {
		return dst, fmt.Errorf("%w: lz4 body of %d bytes has no length prefix", ErrMalformed, len(src))
	}
	n := int64(binary.BigEndian.Uint32(src))
	if n > int64(max) {
		return dst, fmt.Errorf("%w: lz4 body claims %d uncompressed bytes, limit %d", ErrFrameTooLarge, n, max)
	}
	if n > inflate.MaxLZ4(len(src)-4) {
		return dst, fmt.Errorf("%w: lz4 body of %d bytes cannot expand to the %d bytes it claims", ErrMalformed, len(src), n)
	}
	start := len(dst)
	dst = slices.Grow(dst, int(n))[:start+int(n)]
	if n == 0 {
		return dst, nil
	}
	got, err := lz4.UncompressBlock(src[4:], dst[start:])
	if err != nil {
		return dst[:start], fmt.Errorf("%w: %v", ErrMalformed, err) // the library's errors begin with "lz4: "
	}
	if int64(got) != n {
		return dst[:start], fmt.Errorf("%w: lz4 body decompressed to %d bytes, prefix said %d", ErrMalformed, got, n)
	}
	return dst, nil
}

// DecompressedSize returns the size that src, a body compressed by c, announces it decompresses
// to (lz4's length prefix, snappy's header), without decompressing it; false when src announces
// none or c is neither LZ4 nor Snappy. The size is a claim, checked only by decompressing.
func DecompressedSize(c Compressor, src []byte) (int64, bool) {
	switch c.(type) {
	case LZ4, *LZ4:
		if len(src) < 4 {
			return 0, false
		}
		return int64(binary.BigEndian.Uint32(src)), true
	case Snappy, *Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return 0, false
		}
		return int64(n), true
	}
	return 0, false
}

// Snappy is snappy block compression.
type Snappy struct{}

// Name returns "snappy".
func (Snappy) Name() string { return "snappy" }

// AppendCompressed appends the snappy block of src.
func (Snappy) AppendCompressed(dst, src []byte) ([]byte, error) {
	bound := snappy.MaxEncodedLen(len(src))
	if bound < 0 {
		return dst, fmt.Errorf("snappy: %d bytes are too large to compress", len(src))
	}
	start := len(dst)
	dst = slices.Grow(dst, bound)
	out := snappy.Encode(dst[start:start+bound], src)
	return dst[:start+len(out)], nil
}

// AppendDecompressed appends the block's uncompressed bytes.
func (Snappy) AppendDecompressed(dst, src []byte, max int) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, fmt.Errorf("%w: %v", ErrMalformed, err) // the library's errors begin with "snappy: "
	}
	if n > max {
		return dst, fmt.Errorf("%w: snappy body claims %d uncompressed bytes, limit %d", ErrFrameTooLarge, n, max)
	}
	if int64(n) > inflate.MaxSnappy(len(src)) {
		return dst, fmt.Errorf("%w: snappy body of %d bytes cannot expand to the %d bytes it claims", ErrMalformed, len(src), n)
	}
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	out, err := snappy.Decode(dst[start:], src)
	if err != nil {
		return dst[:start], fmt.Errorf("%w: %v", ErrMalformed, err) // the library's errors begin with "snappy: "
	}
	if len(out) != n {
		return dst[:start], fmt.Errorf("%w: snappy body decompressed to %d bytes, header said %d", ErrMalformed, len(out), n)
	}
	return dst, nil
}
