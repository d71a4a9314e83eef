package proto

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	reflz4 "github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/crc"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// refSegmentCodec is the independent implementation the segment codec is checked against.
func refSegmentCodec(compressed bool) segment.Codec {
	if compressed {
		return segment.NewCodecWithCompression(reflz4.Compressor{})
	}
	return segment.NewCodec()
}

// testFrames returns n request frames (v5 QUERY) whose bodies have the given sizes, back to back,
// and the end offset of each. Compressible bodies repeat a pattern; the others are random.
func testFrames(t testing.TB, rng *rand.Rand, sizes []int, compressible bool) ([]byte, []int) {
	t.Helper()
	var buf []byte
	var ends []int
	for i, n := range sizes {
		buf = AppendHeader(buf, Header{Version: Version5, Stream: int16(i), Opcode: OpQuery, Length: n})
		for j := 0; j < n; j++ {
			if compressible {
				buf = append(buf, byte('a'+j%7))
			} else {
				buf = append(buf, byte(rng.Uint32()))
			}
		}
		ends = append(ends, len(buf))
	}
	return buf, ends
}

func TestCRCsMatchCassandra(t *testing.T) {
	for _, v := range []uint64{0, 1, 0x123456, 0xffffff, 0x1_0002_0003, 0xff_ffff_ffff} {
		for _, n := range []int{3, 5} {
			if got, want := crc24(v, n), crc.ChecksumKoopman(v, n); got != want {
				t.Errorf("crc24(%x, %d) = %06x, reference %06x", v, n, got, want)
			}
		}
	}
	for _, p := range [][]byte{nil, {0}, []byte("hello, segments"), bytes.Repeat([]byte{0xab}, 5000)} {
		if got, want := segmentCRC32(p), crc.ChecksumIEEE(p); got != want {
			t.Errorf("segmentCRC32(%d bytes) = %08x, reference %08x", len(p), got, want)
		}
	}
}

// segmentCases are frame sizes that exercise packing: one small frame, many small frames
// spanning several segments, frames that fill a segment exactly, and frames larger than a
// segment among small ones.
var segmentCases = map[string][]int{
	"one":           {20},
	"empty bodies":  {0, 0, 0},
	"many small":    repeatInts(3000, 90),
	"exact fit":     {MaxSegmentPayload - HeaderSize, 10},
	"one over":      {MaxSegmentPayload - HeaderSize + 1},
	"large between": {100, 3*MaxSegmentPayload + 17, 200, 2 * MaxSegmentPayload},
}

func repeatInts(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// TestSegmentsDecodeWithReference encodes frames into segments and decodes them with the
// reference codec: the payloads must concatenate to the frames, every segment but the parts
// of a large frame must be self-contained and hold whole frames, and a large frame's parts
// must not be self-contained.
func TestSegmentsDecodeWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, sizes := range segmentCases {
		for _, compressed := range []bool{false, true} {
			for _, compressible := range []bool{false, true} {
				frames, ends := testFrames(t, rng, sizes, compressible)
				segs, err := AppendSegments([]byte("prefix"), frames, compressed)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !bytes.HasPrefix(segs, []byte("prefix")) {
					t.Fatalf("%s: dst's bytes were overwritten", name)
				}
				src := bytes.NewReader(segs[len("prefix"):])
				ref := refSegmentCodec(compressed)
				var got []byte
				var segments, compressedOnes int
				for src.Len() > 0 {
					s, err := ref.DecodeSegment(src)
					if err != nil {
						t.Fatalf("%s (compressed %v): reference decoder: %v", name, compressed, err)
					}
					segments++
					if c := s.Header.CompressedPayloadLength; c != 0 {
						compressedOnes++
						if c >= s.Header.UncompressedPayloadLength {
							t.Fatalf("%s: a segment sent compressed in %d bytes, uncompressed %d", name, c, s.Header.UncompressedPayloadLength)
						}
					}
					start := len(got)
					got = append(got, s.Payload.UncompressedData...)
					if len(s.Payload.UncompressedData) > MaxSegmentPayload {
						t.Fatalf("%s: payload of %d bytes", name, len(s.Payload.UncompressedData))
					}
					onBoundary := func(off int) bool {
						if off == 0 {
							return true
						}
						for _, e := range ends {
							if e == off {
								return true
							}
						}
						return false
					}
					whole := onBoundary(start) && onBoundary(len(got))
					if s.Header.IsSelfContained != whole {
						t.Fatalf("%s: segment %d (bytes %d-%d) self-contained %v, holds whole frames %v", name, segments, start, len(got), s.Header.IsSelfContained, whole)
					}
				}
				if !bytes.Equal(got, frames) {
					t.Fatalf("%s (compressed %v): payloads differ from the frames (%d vs %d bytes)", name, compressed, len(got), len(frames))
				}
				if compressed && compressible && compressedOnes == 0 && len(frames) > 100 {
					t.Errorf("%s: no segment of compressible frames was compressed", name)
				}
				if compressed && !compressible && name == "one over" && compressedOnes != 0 {
					t.Errorf("%s: a segment of random bytes was sent compressed", name)
				}
			}
		}
	}
}

// TestSegmentReaderReadsReference decodes segments encoded by the reference codec: self-contained
// segments of one or two whole frames, and frames split over segments that are not
// self-contained at arbitrary points (inside the frame header too); then this package's own
// segments.
func TestSegmentReaderReadsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, compressed := range []bool{false, true} {
		var wire bytes.Buffer
		var want []byte
		ref := refSegmentCodec(compressed)
		send := func(p []byte, selfContained bool) {
			if err := ref.EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: selfContained}, Payload: &segment.Payload{UncompressedData: p}}, &wire); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 40; i++ {
			n := rng.IntN(3000)
			if i%10 == 9 {
				n = MaxSegmentPayload - HeaderSize
			}
			f, _ := testFrames(t, rng, []int{n}, i%2 == 1)
			want = append(want, f...)
			switch i % 3 {
			case 0: // split at random points, the first inside the header
				for cut := 1 + rng.IntN(HeaderSize-1); len(f) > 0; cut = 1 + rng.IntN(1000) {
					cut = min(cut, len(f))
					send(f[:cut], false)
					f = f[cut:]
				}
			case 1: // alone in its segment
				send(f, true)
			case 2: // with a small frame after it, when they fit
				g, _ := testFrames(t, rng, []int{rng.IntN(50)}, false)
				if len(f)+len(g) > MaxSegmentPayload {
					g = nil
				}
				want = append(want, g...)
				send(append(f, g...), true)
			}
		}
		sr := &SegmentReader{R: &wire, Compressed: compressed}
		got, err := io.ReadAll(sr)
		if err != nil {
			t.Fatalf("compressed %v: %v", compressed, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("compressed %v: read %d bytes, want %d (or they differ)", compressed, len(got), len(want))
		}

		frames, _ := testFrames(t, rng, []int{10, 2 * MaxSegmentPayload, 5, 70000, 70000}, false)
		segs, err := AppendSegments(nil, frames, compressed)
		if err != nil {
			t.Fatal(err)
		}
		got, err = io.ReadAll(&SegmentReader{R: bytes.NewReader(segs), Compressed: compressed})
		if err != nil || !bytes.Equal(got, frames) {
			t.Fatalf("compressed %v: own segments read back: %v (%d of %d bytes)", compressed, err, len(got), len(frames))
		}
	}
}

// timeoutReader returns at most step bytes per read and, every other read, a timeout error.
type timeoutReader struct {
	r    io.Reader
	step int
	odd  bool
}

func (t *timeoutReader) Read(p []byte) (int, error) {
	t.odd = !t.odd
	if t.odd {
		return 0, os.ErrDeadlineExceeded
	}
	return t.r.Read(p[:min(len(p), t.step)])
}

// TestSegmentReaderResumesAfterTimeouts reads segments a few bytes at a time with a timeout
// between every read: nothing is lost or repeated.
func TestSegmentReaderResumesAfterTimeouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	frames, _ := testFrames(t, rng, []int{3, 400, MaxSegmentPayload + 9, 12}, true)
	for _, compressed := range []bool{false, true} {
		segs, err := AppendSegments(nil, frames, compressed)
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range []int{1, 3, 7, 4096} {
			sr := &SegmentReader{R: &timeoutReader{r: bytes.NewReader(segs), step: step}, Compressed: compressed}
			var got []byte
			buf := make([]byte, 1000)
			for {
				n, err := sr.Read(buf)
				got = append(got, buf[:n]...)
				if errors.Is(err, os.ErrDeadlineExceeded) {
					continue
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
			}
			if !bytes.Equal(got, frames) {
				t.Fatalf("compressed %v, step %d: read %d bytes, want the %d of the frames", compressed, step, len(got), len(frames))
			}
		}
	}
}

// TestSegmentReaderRejectsCorruption flips bits in the header, the payload and the trailer, and
// cuts the stream short: each fails the read with the matching error, and the reader stays
// failed.
func TestSegmentReaderRejectsCorruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	frames, _ := testFrames(t, rng, []int{50, 60}, true)
	for _, compressed := range []bool{false, true} {
		segs, err := AppendSegments(nil, frames, compressed)
		if err != nil {
			t.Fatal(err)
		}
		hs := SegmentHeaderSize
		if compressed {
			hs = CompressedSegmentHeaderSize
		}
		for _, at := range []int{0, hs - 1, hs, len(segs) - 5, len(segs) - 1} {
			bad := bytes.Clone(segs)
			bad[at] ^= 0x10
			sr := &SegmentReader{R: bytes.NewReader(bad), Compressed: compressed}
			_, err := io.ReadAll(sr)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("compressed %v, bit flipped at %d: error %v, want ErrMalformed", compressed, at, err)
			}
			if at != hs && !errors.Is(err, ErrSegmentChecksum) {
				t.Fatalf("compressed %v, bit flipped at %d: error %v, want ErrSegmentChecksum", compressed, at, err)
			}
			if _, again := sr.Read(make([]byte, 10)); again == nil {
				t.Fatalf("compressed %v: a failed reader read again", compressed)
			}
		}
		for _, cut := range []int{1, hs, hs + 3, len(segs) - 1} {
			_, err := io.ReadAll(&SegmentReader{R: bytes.NewReader(segs[:cut]), Compressed: compressed})
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("compressed %v, cut at %d: error %v, want io.ErrUnexpectedEOF", compressed, cut, err)
			}
		}
	}
}

// TestSegmentedPrefix checks which frames a cut-short write delivered in whole segments.
func TestSegmentedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	frames, _ := testFrames(t, rng, append(repeatInts(2000, 100), 2*MaxSegmentPayload, 10), false)
	for _, compressed := range []bool{false, true} {
		segs, err := AppendSegments(nil, frames, compressed)
		if err != nil {
			t.Fatal(err)
		}
		if got := SegmentedPrefix(segs, len(segs), compressed); got != len(frames) {
			t.Fatalf("whole write: %d bytes carried, want %d", got, len(frames))
		}
		if got := SegmentedPrefix(segs, len(segs)-1, compressed); got >= len(frames) {
			t.Fatalf("write one byte short: %d bytes carried, want fewer than %d", got, len(frames))
		}
		if got := SegmentedPrefix(segs, 0, compressed); got != 0 {
			t.Fatalf("nothing written: %d bytes carried", got)
		}
		// Walk the segments with the reference: the prefix at every segment's end is the
		// payload read so far, and one byte before it the payload before that segment.
		src := bytes.NewReader(segs)
		ref := refSegmentCodec(compressed)
		carried := 0
		for src.Len() > 0 {
			s, err := ref.DecodeSegment(src)
			if err != nil {
				t.Fatal(err)
			}
			end := len(segs) - src.Len()
			if got := SegmentedPrefix(segs, end-1, compressed); got != carried {
				t.Fatalf("cut one byte before the segment ending at %d: %d carried, want %d", end, got, carried)
			}
			carried += len(s.Payload.UncompressedData)
			if got := SegmentedPrefix(segs, end, compressed); got != carried {
				t.Fatalf("cut at the segment end %d: %d carried, want %d", end, got, carried)
			}
		}
	}
}

func TestAppendSegmentsRejectsPartialFrames(t *testing.T) {
	frames, _ := testFrames(t, rand.New(rand.NewPCG(1, 1)), []int{30, 40}, true)
	for _, cut := range []int{5, HeaderSize + 3, len(frames) - 1} {
		out, err := AppendSegments([]byte("x"), frames[:cut], false)
		if !errors.Is(err, ErrMalformed) || string(out) != "x" {
			t.Fatalf("frames cut at %d: %q, %v; want dst unchanged and ErrMalformed", cut, out, err)
		}
	}
}

// FuzzSegmentReader feeds arbitrary bytes to the segment reader: it must not panic, must not
// return more bytes than the input could carry, and must stop at the first bad segment.
func FuzzSegmentReader(f *testing.F) {
	frames, _ := testFrames(f, rand.New(rand.NewPCG(1, 1)), []int{10, 300}, true)
	for _, c := range []bool{false, true} {
		segs, _ := AppendSegments(nil, frames, c)
		f.Add(segs, c)
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0, 0, 0, 1, 2, 3}, true)
	f.Fuzz(func(t *testing.T, data []byte, compressed bool) {
		sr := &SegmentReader{R: bytes.NewReader(data), Compressed: compressed}
		got, err := io.ReadAll(sr)
		if err == nil && !compressed && len(got) > len(data) {
			t.Fatalf("%d payload bytes out of %d input bytes", len(got), len(data))
		}
		if err == nil && compressed && len(got) > MaxSegmentPayload*(len(data)/CompressedSegmentHeaderSize+1) {
			t.Fatalf("%d payload bytes out of %d input bytes", len(got), len(data))
		}
	})
}

// Partial is called for every read that brings part of a segment, and never when each segment
// arrives whole.
func TestSegmentReaderPartial(t *testing.T) {
	frames, _ := testFrames(t, rand.New(rand.NewPCG(11, 12)), []int{100}, true)
	segs, err := AppendSegments(nil, frames, false)
	if err != nil {
		t.Fatal(err)
	}
	partial := 0
	sr := &SegmentReader{R: &timeoutReader{r: bytes.NewReader(segs), step: 10}, Partial: func() { partial++ }}
	buf := make([]byte, 1000)
	for {
		_, err := sr.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal(err)
		}
	}
	// 10 bytes a read: the 6-byte header in one, then the payload and trailer in 10-byte
	// reads, of which the last completes the segment.
	if want := (len(segs)-SegmentHeaderSize+9)/10 - 1; partial != want {
		t.Errorf("Partial called %d times for a %d-byte segment read 10 bytes at a time, want %d", partial, len(segs), want)
	}
	partial = 0
	sr = &SegmentReader{R: bytes.NewReader(segs), Partial: func() { partial++ }}
	if _, err := io.ReadAll(sr); err != nil || partial != 0 {
		t.Errorf("a segment read whole: Partial called %d times (%v)", partial, err)
	}
}
