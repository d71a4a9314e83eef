package cqlsim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
	"github.com/cqlbridge/cqlbridge/internal/inflate"
	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	golangsnappy "github.com/golang/snappy"
	pierrec "github.com/pierrec/lz4/v4"
)

// decompressedLen reads the uncompressed length a compressed frame body announces, so that the
// caller can refuse a decompression bomb before allocating.
func decompressedLen(comp compression.Compressor, body []byte) (int, error) {
	switch comp.(type) {
	case lz4.Compressor:
		// Cassandra's LZ4 frame body: a 4-byte big-endian uncompressed length, then an LZ4 block.
		if len(body) < 4 {
			return 0, errors.New("lz4 body shorter than its 4-byte length prefix")
		}
		return int(binary.BigEndian.Uint32(body)), nil
	default:
		n, err := golangsnappy.DecodedLen(body)
		if err != nil {
			return 0, fmt.Errorf("snappy: %w", err)
		}
		return n, nil
	}
}

// maxInflated bounds the decompressed body of a request frame when Options.MaxFrameLength is
// lower: Cassandra applies its frame limit to the compressed frame only, and serves a body
// that inflates beyond it.
const maxInflated = 256 << 20

// decompress inflates a compressed request body, refusing bodies that would inflate beyond
// maxInflated (or the frame length limit, when larger) or beyond what their compressed size
// can hold.
func (c *conn) decompress(body []byte) ([]byte, error) {
	limit := max(c.node.cluster.opts.MaxFrameLength, maxInflated)
	n, err := decompressedLen(c.compressor, body)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("decompressed length %d exceeds the limit of %d bytes", n, limit)
	}
	// A few bytes must not make the server allocate up to the frame limit (internal/inflate).
	most := inflate.MaxSnappy(len(body))
	if _, ok := c.compressor.(lz4.Compressor); ok {
		most = inflate.MaxLZ4(len(body) - 4)
	}
	if int64(n) > most {
		return nil, fmt.Errorf("a compressed body of %d bytes cannot inflate to the %d bytes it announces", len(body), n)
	}
	return c.compressor.DecompressFrame(body)
}

// frameCompressor compresses the bodies of outgoing v3/v4 frames once STARTUP negotiated
// compression: like Cassandra, cqlsim then compresses every response, READY and AUTHENTICATE
// included, and the events it pushes. It belongs to the writer goroutine (not safe for
// concurrent use) and reuses its lz4 hash table between frames.
type frameCompressor struct {
	lz4  bool // lz4 (with Cassandra's 4-byte length prefix), else snappy
	lz4c pierrec.Compressor
}

// newFrameCompressor returns the frame compressor for comp, or nil for no compression.
func newFrameCompressor(comp compression.Compressor) *frameCompressor {
	if comp == nil {
		return nil
	}
	_, isLZ4 := comp.(lz4.Compressor)
	return &frameCompressor{lz4: isLZ4}
}

// appendFrame appends the encoded frame f (header and body) to dst with its body compressed,
// the COMPRESSED flag set and the length updated. Frames in the v1/v2 header layout (protocol
// errors refusing those versions) and frames already compressed are appended unchanged.
func (fc *frameCompressor) appendFrame(dst, f []byte) ([]byte, error) {
	const hl = wire.MaxHeaderLen // v3+ header
	if len(f) < hl || f[0]&0x7f < 3 || f[1]&wire.FlagCompressed != 0 {
		return append(dst, f...), nil
	}
	body := f[hl:]
	start := len(dst)
	dst = append(dst, f[:hl]...)
	bodyStart := len(dst)
	if fc.lz4 {
		bound := pierrec.CompressBlockBound(len(body))
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)))
		dst = slices.Grow(dst, bound)
		// With a destination of CompressBlockBound bytes, incompressible data is stored as
		// literals (never the 0 "incompressible" answer of a shorter destination).
		n, err := fc.lz4c.CompressBlock(body, dst[len(dst):len(dst)+bound])
		if err != nil {
			return dst[:start], fmt.Errorf("lz4: compressing a %d-byte response body: %w", len(body), err)
		}
		dst = dst[:len(dst)+n]
	} else {
		bound := golangsnappy.MaxEncodedLen(len(body))
		if bound < 0 {
			return dst[:start], fmt.Errorf("snappy: a %d-byte response body is too large to compress", len(body))
		}
		dst = slices.Grow(dst, bound)
		out := golangsnappy.Encode(dst[bodyStart:bodyStart+bound], body)
		dst = dst[:bodyStart+len(out)]
	}
	dst[start+1] |= wire.FlagCompressed
	binary.BigEndian.PutUint32(dst[start+5:start+hl], uint32(len(dst)-bodyStart))
	return dst, nil
}
