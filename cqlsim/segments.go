package cqlsim

import (
	"bytes"
	"fmt"
	"io"

	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// Protocol v5 wraps frames in checksummed segments ("modern framing", spec v5 §2) once the server
// has answered STARTUP with READY or AUTHENTICATE. A segment's payload holds one or more whole
// frames (self-contained), or one part of a frame too large for one segment.

// segmentReader presents the payloads of consecutive segments as one byte stream, so that frames
// are read from it exactly as from the legacy framing. Every payload is freshly allocated by the
// segment codec (the engine may keep sub-slices of frame bodies).
type segmentReader struct {
	codec segment.Codec
	src   io.Reader
	buf   []byte
}

func (r *segmentReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		s, err := r.codec.DecodeSegment(r.src)
		if err != nil {
			return 0, fmt.Errorf("reading a v5 segment: %w", err)
		}
		r.buf = s.Payload.UncompressedData
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
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
