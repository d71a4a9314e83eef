package proto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

func reviewCompressors() []Compressor { return []Compressor{LZ4{}, Snappy{}} }

// Bodies of every awkward size, compressible or not, survive a round trip; incompressible
// ones come out larger than they went in, and that is fine.
func TestReviewCompressRoundTripAwkwardSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range reviewCompressors() {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 12, 13, 15, 16, 17, 64, 65, 255, 256, 4095, 65535, 65536, 65537, 1 << 20, 3<<20 + 7} {
			for _, random := range []bool{false, true} {
				src := make([]byte, n)
				if random {
					for i := range src {
						src[i] = byte(r.Uint32())
					}
				}
				prefix := []byte("keep")
				comp, err := c.AppendCompressed(append([]byte(nil), prefix...), src)
				if err != nil {
					t.Fatalf("%s %d: %v", c.Name(), n, err)
				}
				if !bytes.HasPrefix(comp, prefix) {
					t.Fatalf("%s %d: AppendCompressed overwrote dst", c.Name(), n)
				}
				body := comp[len(prefix):]
				if random && n >= 64 && len(body) <= n {
					t.Errorf("%s %d random bytes compressed to %d", c.Name(), n, len(body))
				}
				out, err := c.AppendDecompressed([]byte("x"), body, n)
				if err != nil {
					t.Fatalf("%s %d (random %v): %v", c.Name(), n, random, err)
				}
				if out[0] != 'x' || !bytes.Equal(out[1:], src) {
					t.Fatalf("%s %d (random %v): round trip differs", c.Name(), n, random)
				}
				if n > 0 {
					if _, err := c.AppendDecompressed(nil, body, n-1); !errors.Is(err, ErrFrameTooLarge) {
						t.Fatalf("%s %d: a limit one byte short gave %v", c.Name(), n, err)
					}
				}
			}
		}
	}
}

// Bodies whose announced length lies: larger or smaller than the data, far beyond what a body
// of their size can hold, or the largest 32-bit value. Each fails with ErrMalformed or
// ErrFrameTooLarge (whose message names the codec once), and none allocates anything near what it announces.
func TestReviewCompressLyingLengths(t *testing.T) {
	src := bytes.Repeat([]byte("lying lengths "), 500) // 7000 bytes
	lz, _ := LZ4{}.AppendCompressed(nil, src)
	sn, _ := Snappy{}.AppendCompressed(nil, src)
	withLZ4Len := func(n uint32) []byte {
		b := append([]byte(nil), lz...)
		binary.BigEndian.PutUint32(b, n)
		return b
	}
	withSnappyLen := func(n uint64) []byte {
		_, k := binary.Uvarint(sn)
		return append(binary.AppendUvarint(nil, n), sn[k:]...)
	}
	for _, tc := range []struct {
		name string
		c    Compressor
		body []byte
	}{
		{"lz4 longer", LZ4{}, withLZ4Len(uint32(len(src) + 1))},
		{"lz4 shorter", LZ4{}, withLZ4Len(uint32(len(src) - 1))},
		{"lz4 one", LZ4{}, withLZ4Len(1)},
		{"lz4 200MiB", LZ4{}, withLZ4Len(200 << 20)},
		{"lz4 max", LZ4{}, withLZ4Len(^uint32(0))},
		{"lz4 negative as int32", LZ4{}, withLZ4Len(1 << 31)},
		{"lz4 bomb", LZ4{}, append(binary.BigEndian.AppendUint32(nil, 200<<20), 0xf0, 0xff, 0xff)},
		{"lz4 truncated block", LZ4{}, lz[:len(lz)/2]},
		{"lz4 prefix only cut", LZ4{}, lz[:3]},
		{"snappy longer", Snappy{}, withSnappyLen(uint64(len(src) + 1))},
		{"snappy shorter", Snappy{}, withSnappyLen(uint64(len(src) - 1))},
		{"snappy 200MiB", Snappy{}, withSnappyLen(200 << 20)},
		{"snappy 2^32-1", Snappy{}, withSnappyLen(1<<32 - 1)},
		{"snappy 2^63", Snappy{}, withSnappyLen(1 << 63)},
		{"snappy truncated", Snappy{}, sn[:len(sn)/2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := tc.c.AppendDecompressed(nil, tc.body, DefaultMaxFrameSize)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("got %v, want ErrMalformed or ErrFrameTooLarge", err)
			}
			if name := tc.c.Name() + ": "; strings.Count(err.Error(), name) > 1 {
				t.Errorf("the error names the codec more than once: %v", err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("refusing it allocated %d bytes", n)
			}

			// Through Response.Decode, as the connection reads it.
			h := Header{Version: Version4, Response: true, Flags: FlagCompression, Opcode: OpResult, Length: len(tc.body)}
			r := AcquireResponse()
			defer r.Release()
			if err := r.Decode(h, tc.body, nil, &DecodeOptions{Compressor: tc.c}); err == nil {
				t.Fatal("Decode accepted it")
			}
		})
	}
}

// A compressed frame on a connection without compression, and compressed empty bodies (READY
// as Cassandra sends it: lz4 "00000000 00", snappy "00").
func TestReviewCompressDecodeEdges(t *testing.T) {
	h := Header{Version: Version4, Response: true, Flags: FlagCompression, Opcode: OpReady}
	r := AcquireResponse()
	if err := r.Decode(h, []byte{0, 0, 0, 0, 0}, nil, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("compressed frame without a compressor: got %v", err)
	}
	r.Release()
	for _, tc := range []struct {
		c    Compressor
		body []byte
	}{{LZ4{}, []byte{0, 0, 0, 0, 0}}, {Snappy{}, []byte{0}}} {
		r := AcquireResponse()
		if err := r.Decode(h, tc.body, nil, &DecodeOptions{Compressor: tc.c}); err != nil {
			t.Errorf("%s compressed READY: %v", tc.c.Name(), err)
		} else if _, ok := r.Msg.(*Ready); !ok {
			t.Errorf("%s compressed READY decoded as %T", tc.c.Name(), r.Msg)
		}
		r.Release()
	}
}
