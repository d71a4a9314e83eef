package cqlsim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/crc"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// Protocol v5 wraps frames in checksummed segments ("modern framing", spec v5 §2) once the server
// has answered STARTUP with READY or AUTHENTICATE. A segment's payload holds one or more whole
// frames (self-contained), or one part of a frame too large for one segment.

// segmentReader presents the payloads of consecutive segments as one byte stream, so that frames
// are read from it exactly as from the legacy framing. Every payload is freshly allocated (the
// engine may keep sub-slices of frame bodies).
type segmentReader struct {
	lz4 bool // segments are LZ4-compressed
	src io.Reader
	buf []byte
}

func (r *segmentReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		payload, err := decodeSegment(r.src, r.lz4)
		if err != nil {
			return 0, fmt.Errorf("reading a v5 segment: %w", err)
		}
		r.buf = payload
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// crcMismatch is the error of a v5 segment whose header (CRC24) or payload (CRC32) does not
// match the checksum that follows it.
type crcMismatch struct {
	header         bool
	read, computed uint32
}

func (e *crcMismatch) Error() string {
	part := "body"
	if e.header {
		part = "header"
	}
	return fmt.Sprintf("CRC mismatch in segment %s: read %#x, computed %#x", part, e.read, e.computed)
}

// message is Cassandra 5.0's PROTOCOL_ERROR message for the mismatch on connection id (the
// checksums printed as Java ints).
func (e *crcMismatch) message(id string) string {
	part := "body"
	if e.header {
		part = "header"
	}
	return fmt.Sprintf("%s invalid, unrecoverable CRC mismatch detected in frame %s. Read %d, Computed %d", id, part, int32(e.read), int32(e.computed))
}

// decodeSegment reads one segment (spec v5 §2) from src and returns its uncompressed payload.
// A header or payload whose checksum does not match is a *crcMismatch.
func decodeSegment(src io.Reader, compressed bool) ([]byte, error) {
	hl := segment.UncompressedHeaderLength
	if compressed {
		hl = segment.CompressedHeaderLength
	}
	var hdr [segment.CompressedHeaderLength + segment.Crc24Length]byte
	if _, err := io.ReadFull(src, hdr[:hl+segment.Crc24Length]); err != nil {
		return nil, err
	}
	var bits uint64
	for i := hl - 1; i >= 0; i-- {
		bits = bits<<8 | uint64(hdr[i])
	}
	read := uint32(hdr[hl]) | uint32(hdr[hl+1])<<8 | uint32(hdr[hl+2])<<16
	if computed := crc.ChecksumKoopman(bits, hl); computed != read {
		return nil, &crcMismatch{header: true, read: read, computed: computed}
	}
	length := int(bits & segment.MaxPayloadLength)
	uncompressed := 0 // 0: the payload is sent as is
	if compressed {
		uncompressed = int(bits >> 17 & segment.MaxPayloadLength)
	}
	payload := make([]byte, length+4)
	if _, err := io.ReadFull(src, payload); err != nil {
		return nil, err
	}
	read = binary.LittleEndian.Uint32(payload[length:])
	payload = payload[:length]
	if computed := crc.ChecksumIEEE(payload); computed != read {
		return nil, &crcMismatch{read: read, computed: computed}
	}
	if uncompressed == 0 {
		return payload, nil
	}
	out := make([]byte, uncompressed)
	if err := (lz4.Compressor{}).DecompressSegment(payload, out); err != nil {
		return nil, fmt.Errorf("decompressing a segment payload: %w", err)
	}
	return out, nil
}

// appendSegments wraps frames (concatenated in buf, frame i ending at ends[i]) into segments
// appended to dst: as many whole frames per self-contained segment as fit in its payload, and a
// frame larger than that split over several segments that are not self-contained.
func appendSegments(dst *bytes.Buffer, codec segment.Codec, buf []byte, ends []int) error {
	emit := func(payload []byte, selfContained bool) error {
		return codec.EncodeSegment(&segment.Segment{
			Header:  &segment.Header{IsSelfContained: selfContained},
			Payload: &segment.Payload{UncompressedData: payload},
		}, dst)
	}
	start, i := 0, 0
	for i < len(ends) {
		end := start
		for i < len(ends) && ends[i]-start <= segment.MaxPayloadLength {
			end = ends[i]
			i++
		}
		if end > start {
			if err := emit(buf[start:end], true); err != nil {
				return err
			}
			start = end
			continue
		}
		// Frame i alone exceeds one segment.
		for off := start; off < ends[i]; off += segment.MaxPayloadLength {
			if err := emit(buf[off:min(off+segment.MaxPayloadLength, ends[i])], false); err != nil {
				return err
			}
		}
		start = ends[i]
		i++
	}
	return nil
}
