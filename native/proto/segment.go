package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"github.com/pierrec/lz4/v4"
)

// Segment framing of protocol v5.
//
// Once a v5 connection's handshake has reached READY or AUTHENTICATE, both sides wrap their
// frames (the specification calls them envelopes) in segments: a header holding the payload's
// length, a self-contained flag and a CRC24 of the header, then the payload, then a CRC32 of the
// payload. A self-contained segment carries one or more whole frames; a frame larger than a
// segment's payload travels alone, in parts, in segments that are not self-contained. With
// compression (only lz4 exists for v5) each segment's payload is an lz4 block, sent
// uncompressed when that would not make it smaller; frames themselves are then never
// compressed.

const (
	// MaxSegmentPayload is the largest payload of one segment (2^17-1 bytes).
	MaxSegmentPayload = 1<<17 - 1
	// SegmentHeaderSize is the size of an uncompressed segment's header, its CRC24 included.
	SegmentHeaderSize = 6
	// CompressedSegmentHeaderSize is the size of a compressed segment's header, its CRC24
	// included.
	CompressedSegmentHeaderSize = 8
	// SegmentTrailerSize is the size of the CRC32 that follows a segment's payload.
	SegmentTrailerSize = 4
)

// ErrSegmentChecksum is wrapped by the error of a segment whose header or payload does not
// match its checksum.
var ErrSegmentChecksum = errors.New("proto: segment checksum mismatch")

// crc24 returns the CRC24 of the first n bytes (1 to 8) of the little-endian header value v,
// as Cassandra computes it (polynomial 0x1974F0B, initial value 0x875060, bytes taken from
// the least significant).
func crc24(v uint64, n int) uint32 {
	const poly, init = 0x1974f0b, 0x875060
	crc := uint32(init)
	for i := 0; i < n; i++ {
		crc ^= uint32(v&0xff) << 16
		v >>= 8
		for range 8 {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= poly
			}
		}
	}
	return crc & 0xffffff
}

// segmentCRC32Seed is the IEEE CRC32 of the four bytes Cassandra feeds before every payload.
var segmentCRC32Seed = crc32.Update(0, crc32.IEEETable, []byte{0xfa, 0x2d, 0x55, 0xca})

// segmentCRC32 returns the CRC32 of a segment payload as Cassandra computes it.
func segmentCRC32(payload []byte) uint32 {
	return crc32.Update(segmentCRC32Seed, crc32.IEEETable, payload)
}

// frameSize returns the size of the frame at the start of b (header and body), or an error
// when b does not hold a whole frame.
func frameSize(b []byte) (int, error) {
	if len(b) < HeaderSize {
		return 0, fmt.Errorf("%w: %d bytes left, less than a frame header", ErrMalformed, len(b))
	}
	n := int64(binary.BigEndian.Uint32(b[5:9])) + HeaderSize
	if n > int64(len(b)) {
		return 0, fmt.Errorf("%w: a frame of %d bytes with only %d bytes left", ErrMalformed, n, len(b))
	}
	return int(n), nil
}

// AppendSegments appends frames (one or more whole encoded frames, back to back) to dst as v5
// segments: as many whole frames per self-contained segment as fit in MaxSegmentPayload bytes,
// and a frame larger than that split over segments that are not self-contained. With compress
// each payload is compressed with lz4 when that makes it smaller (the compressed format, for a
// connection that agreed on lz4). It fails, appending nothing, when frames does not split into
// whole frames.
func AppendSegments(dst, frames []byte, compress bool) ([]byte, error) {
	start := len(dst)
	for pos := 0; pos < len(frames); {
		end := pos
		for end < len(frames) {
			n, err := frameSize(frames[end:])
			if err != nil {
				return dst[:start], err
			}
			if end+n-pos > MaxSegmentPayload {
				break
			}
			end += n
		}
		if end > pos {
			dst = appendSegment(dst, frames[pos:end], true, compress)
			pos = end
			continue
		}
		n, _ := frameSize(frames[pos:]) // checked by the loop above
		for off := 0; off < n; off += MaxSegmentPayload {
			dst = appendSegment(dst, frames[pos+off:pos+min(off+MaxSegmentPayload, n)], false, compress)
		}
		pos += n
	}
	return dst, nil
}

var lz4SegmentCompressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

// appendSegment appends one segment carrying payload (at most MaxSegmentPayload bytes).
func appendSegment(dst, payload []byte, selfContained bool, compress bool) []byte {
	var sc uint64
	if selfContained {
		sc = 1
	}
	if !compress {
		h := uint64(len(payload)) | sc<<17
		dst = appendLittle(dst, h, 3)
		dst = appendLittle(dst, uint64(crc24(h, 3)), 3)
		dst = append(dst, payload...)
		return binary.LittleEndian.AppendUint32(dst, segmentCRC32(payload))
	}
	hdr := len(dst)
	dst = slices.Grow(dst, CompressedSegmentHeaderSize+lz4.CompressBlockBound(len(payload))+SegmentTrailerSize)
	body := dst[hdr+CompressedSegmentHeaderSize : hdr+CompressedSegmentHeaderSize+lz4.CompressBlockBound(len(payload))]
	c := lz4SegmentCompressors.Get().(*lz4.Compressor)
	n, err := c.CompressBlock(payload, body)
	lz4SegmentCompressors.Put(c)
	var h uint64
	if err != nil || n == 0 || n >= len(payload) {
		// Not smaller (or not compressible at all): sent as it is, its uncompressed length
		// 0 saying so. This is what Cassandra and the other drivers read; the text of the
		// specification (section 2.3.2) says the compressed length would be 0 instead.
		n = copy(body[:len(payload)], payload)
		h = uint64(n) | sc<<34
	} else {
		h = uint64(n) | uint64(len(payload))<<17 | sc<<34
	}
	dst = dst[:hdr]
	dst = appendLittle(dst, h, 5)
	dst = appendLittle(dst, uint64(crc24(h, 5)), 3)
	dst = dst[:len(dst)+n] // the body, already in place
	return binary.LittleEndian.AppendUint32(dst, segmentCRC32(dst[len(dst)-n:]))
}

// readLittle returns the value of b (at most 8 bytes), least significant byte first.
func readLittle(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// segmentLengths decodes a segment header's value h (without its CRC24): the payload's length
// on the wire and, for a compressed segment whose payload is compressed, its uncompressed
// length (0 otherwise).
func segmentLengths(h uint64, compressed bool) (wire, plain int) {
	wire = int(h & MaxSegmentPayload)
	if compressed {
		plain = int(h >> 17 & MaxSegmentPayload)
	}
	return wire, plain
}

// appendLittle appends the n low bytes of v, least significant first.
func appendLittle(dst []byte, v uint64, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// SegmentedPrefix returns how many bytes of the frames given to AppendSegments are carried by
// the segments that lie wholly within the first n bytes of segs, its output: after a write that
// stopped at n, the frames that start at that offset or later did not reach the peer in a
// segment it can read. compressed must be what was given to AppendSegments.
func SegmentedPrefix(segs []byte, n int, compressed bool) int {
	hs := SegmentHeaderSize
	if compressed {
		hs = CompressedSegmentHeaderSize
	}
	carried, pos := 0, 0
	for pos+hs <= len(segs) {
		wire, plain := segmentLengths(readLittle(segs[pos:pos+hs-3]), compressed)
		if plain == 0 {
			plain = wire
		}
		end := pos + hs + wire + SegmentTrailerSize
		if end > n {
			break
		}
		carried += plain
		pos = end
	}
	return carried
}

// SegmentReader reads the payloads of consecutive v5 segments from R as one stream of bytes,
// checking each segment's checksums (and decompressing it, for Compressed) before any of its
// bytes is returned. It also checks that the payloads carry frames as the specification says:
// whole frames in a self-contained segment, and a frame split over segments alone in segments
// that are not self-contained, which follow each other with nothing in between. A segment
// breaking this fails the read with an error wrapping ErrMalformed, so that a frame cut short
// fails at once instead of waiting for bytes that never come, and a frame is never made of
// bytes from two places. A read of R that fails with a timeout leaves a partly read segment in
// place for the next Read, so R may carry read deadlines. A checksum mismatch fails the read
// with an error wrapping ErrSegmentChecksum and ErrMalformed; the stream cannot be read past
// it. A SegmentReader is not safe for concurrent use.
type SegmentReader struct {
	R          io.Reader // the connection, after the handshake
	Compressed bool      // the segments use the lz4 (compressed) format
	// Partial, when set, is called after a read of R that brought part of a segment without
	// completing it: progress a caller watching for a dead peer can count, as no payload
	// byte is returned before its whole segment has arrived.
	Partial func()

	hdr    [CompressedSegmentHeaderSize]byte
	hn     int    // header bytes read
	parsed bool   // hdr is complete and checked; wire, plain and raw are set
	wire   int    // payload bytes on the wire
	plain  int    // payload bytes once decompressed (0: not compressed)
	raw    []byte // payload and trailer as read
	rn     int    // bytes of raw read
	dec    []byte // decompressed payload
	out    []byte // the checked payload being returned
	broken error  // a failure that ends the stream

	selfContained bool             // the segment being read is self-contained
	inFrame       bool             // segments that are not self-contained have begun a frame
	fh            [HeaderSize]byte // that frame's header, as far as it has come
	fhn           int              // bytes of fh received
	left          int64            // bytes of that frame's body still to come, once fh is whole
}

// Read reads payload bytes. It returns io.EOF only when R ended between two segments, and
// io.ErrUnexpectedEOF when R ended inside one.
func (s *SegmentReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(s.out) == 0 {
		if err := s.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// Buffered returns the number of payload bytes that can be read without reading R.
func (s *SegmentReader) Buffered() int { return len(s.out) }

// next reads the next segment (or the rest of it) into out.
func (s *SegmentReader) next() error {
	if s.broken != nil {
		return s.broken
	}
	hs := SegmentHeaderSize
	if s.Compressed {
		hs = CompressedSegmentHeaderSize
	}
	if err := s.fill(s.hdr[:hs], &s.hn, false); err != nil {
		return err
	}
	if !s.parsed {
		if err := s.parseHeader(hs); err != nil {
			s.broken = err
			return err
		}
	}
	need := s.wire + SegmentTrailerSize
	if err := s.fill(s.raw[:need], &s.rn, true); err != nil {
		return err
	}
	payload := s.raw[:s.wire]
	if got, want := segmentCRC32(payload), binary.LittleEndian.Uint32(s.raw[s.wire:need]); got != want {
		s.broken = fmt.Errorf("%w (%w): payload of %d bytes has CRC32 %08x, its trailer says %08x", ErrSegmentChecksum, ErrMalformed, s.wire, got, want)
		return s.broken
	}
	s.out = payload
	if s.plain != 0 {
		if cap(s.dec) < s.plain {
			s.dec = make([]byte, growTo(cap(s.dec), s.plain))
		}
		s.dec = s.dec[:s.plain]
		n, err := lz4.UncompressBlock(payload, s.dec)
		if err != nil || n != s.plain {
			s.broken = fmt.Errorf("%w: lz4 segment of %d bytes does not decompress to the %d bytes its header says (%d, %v)", ErrMalformed, s.wire, s.plain, n, err)
			return s.broken
		}
		s.out = s.dec
	}
	if err := s.checkFrames(s.out); err != nil {
		s.out = nil
		s.broken = err
		return err
	}
	s.hn, s.parsed, s.rn = 0, false, 0
	return nil
}

// checkFrames checks that p, the payload of the segment just read, carries frames as the
// specification says (see SegmentReader), and follows the frame split over segments.
func (s *SegmentReader) checkFrames(p []byte) error {
	if s.selfContained {
		if s.inFrame {
			return fmt.Errorf("%w: a self-contained segment arrived in the middle of a frame split over segments", ErrMalformed)
		}
		for pos := 0; pos < len(p); {
			if len(p)-pos < HeaderSize {
				return fmt.Errorf("%w: self-contained segment of %d bytes ends inside a frame header at byte %d", ErrMalformed, len(p), pos)
			}
			n := HeaderSize + int64(binary.BigEndian.Uint32(p[pos+5:pos+HeaderSize]))
			if n > int64(len(p)-pos) {
				return fmt.Errorf("%w: self-contained segment of %d bytes holds only %d bytes of the %d-byte frame at byte %d", ErrMalformed, len(p), len(p)-pos, n, pos)
			}
			pos += int(n)
		}
		return nil
	}
	if !s.inFrame {
		s.inFrame, s.fhn = true, 0
	}
	if s.fhn < HeaderSize {
		k := copy(s.fh[s.fhn:], p)
		s.fhn += k
		p = p[k:]
		if s.fhn < HeaderSize {
			return nil
		}
		s.left = int64(binary.BigEndian.Uint32(s.fh[5:HeaderSize]))
	}
	if int64(len(p)) > s.left {
		return fmt.Errorf("%w: a segment that is not self-contained carries %d bytes past the end of its frame", ErrMalformed, int64(len(p))-s.left)
	}
	s.left -= int64(len(p))
	if s.left == 0 {
		s.inFrame = false
	}
	return nil
}

// fill reads from R into b[*n:] until b is full, adding what each read brings to *n, so that
// a read failing with a timeout keeps it for the next call. An end of R inside the segment
// (after the header has begun, or anywhere in the payload when inPayload) is
// io.ErrUnexpectedEOF.
func (s *SegmentReader) fill(b []byte, n *int, inPayload bool) error {
	for *n < len(b) {
		m, err := s.R.Read(b[*n:])
		*n += m
		if *n == len(b) {
			return nil
		}
		if m > 0 && s.Partial != nil {
			s.Partial()
		}
		if err != nil {
			if err == io.EOF && (inPayload || *n > 0) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// growTo returns the capacity for a segment buffer of capacity had that must hold need bytes:
// at least double, so that segments growing a little at a time do not reallocate each time,
// and at most what the largest segment needs.
func growTo(had, need int) int {
	return max(need, min(2*had, MaxSegmentPayload+SegmentTrailerSize))
}

// parseHeader checks and decodes the hs header bytes read.
func (s *SegmentReader) parseHeader(hs int) error {
	h := readLittle(s.hdr[:hs-3])
	want := uint32(readLittle(s.hdr[hs-3 : hs]))
	if got := crc24(h, hs-3); got != want {
		return fmt.Errorf("%w (%w): segment header % x has CRC24 %06x, it says %06x", ErrSegmentChecksum, ErrMalformed, s.hdr[:hs-3], got, want)
	}
	s.wire, s.plain = segmentLengths(h, s.Compressed)
	if s.Compressed {
		s.selfContained = h>>34&1 != 0
	} else {
		s.selfContained = h>>17&1 != 0
	}
	if cap(s.raw) < s.wire+SegmentTrailerSize {
		s.raw = make([]byte, growTo(cap(s.raw), s.wire+SegmentTrailerSize))
	}
	s.raw = s.raw[:s.wire+SegmentTrailerSize]
	s.parsed = true
	return nil
}
