package cqlsim

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cqlbridge/cqlbridge/internal/inflate"
	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	golangsnappy "github.com/golang/snappy"
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

// decompress inflates a compressed request body, refusing bodies that would inflate beyond the
// frame length limit or beyond what their compressed size can hold.
func (c *conn) decompress(body []byte) ([]byte, error) {
	limit := c.node.cluster.opts.MaxFrameLength
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
