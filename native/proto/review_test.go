package proto

import (
	"errors"
	"runtime"
	"testing"
)

// A compressed body announcing more than the limit is refused before any buffer of the
// announced (or a guessed) size is allocated: the decoder used to allocate twice the compressed
// size up front, so an 8 MiB frame cost 16 MiB more before being refused.
func TestDecodeRefusesAnOversizedCompressedBodyBeforeAllocating(t *testing.T) {
	const compressed = 8 << 20
	body := make([]byte, compressed)
	// lz4: a 4-byte uncompressed length (64 MiB, within lz4's ratio for 8 MiB but above the
	// 16 MiB limit) followed by the block.
	body[0], body[1], body[2], body[3] = 0x04, 0, 0, 0
	h := Header{Version: Version4, Response: true, Flags: FlagCompression, Opcode: OpResult, Length: compressed}
	opts := &DecodeOptions{Compressor: LZ4{}, MaxBodySize: 16 << 20}
	decode := func() error {
		r := AcquireResponse()
		defer r.Release()
		return r.Decode(h, body, nil, opts)
	}
	_ = decode() // warm the pools
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := decode()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("err = %v, want ErrFrameTooLarge", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got >= compressed {
		t.Errorf("refusing the body allocated %d bytes, more than the %d-byte compressed body", got, compressed)
	}
}

// A compressed body decompressing beyond the largest pooled buffer decodes whole.
func TestDecodeCompressedBodyLargerThanThePooledBuffers(t *testing.T) {
	cell := make([]byte, 3<<maxPoolShift/2)
	for i := range cell {
		cell[i] = byte(i * 7 / 5)
	}
	b := AppendInt(nil, int32(ResultRows))
	b = AppendInt(b, int32(MetaNoMetadata))
	b = AppendInt(b, 1) // columns
	b = AppendInt(b, 1) // rows
	b = AppendBytes(b, cell)
	for _, comp := range []Compressor{LZ4{}, Snappy{}} {
		body, err := comp.AppendCompressed(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		h := Header{Version: Version4, Response: true, Flags: FlagCompression, Opcode: OpResult, Length: len(body)}
		r := AcquireResponse()
		if err := r.Decode(h, body, nil, &DecodeOptions{Compressor: comp}); err != nil {
			t.Fatalf("%s: %v", comp.Name(), err)
		}
		rows := r.Msg.(*RowsResult)
		if !rows.Next() || string(rows.Cell(0)) != string(cell) {
			t.Errorf("%s: the decoded cell differs from the one sent", comp.Name())
		}
		r.Release()
	}
}

func TestParseLWTMark(t *testing.T) {
	for v, want := range map[string]uint32{
		"LWT_OPTIMIZATION_META_BIT_MASK=2147483648": 0x80000000,
		"LWT_OPTIMIZATION_META_BIT_MASK=4":          0, // the protocol's own metadata flag
		"LWT_OPTIMIZATION_META_BIT_MASK=1024":       1024,
		"LWT_OPTIMIZATION_META_BIT_MASK=3072":       0, // two bits
		"LWT_OPTIMIZATION_META_BIT_MASK=":           0,
		"LWT_OPTIMIZATION_META_BIT_MASK=4294967296": 0, // beyond 32 bits
		"LWT_OPTIMIZATION_META_BIT_MASK=-1":         0,
		"OTHER=4":                                   0,
		"2147483648":                                0,
	} {
		if got := ParseLWTMark(v); got != want {
			t.Errorf("ParseLWTMark(%q) = %#x, want %#x", v, got, want)
		}
	}
}

func TestRateLimitCode(t *testing.T) {
	for _, tc := range []struct {
		sup  map[string][]string
		code ErrorCode
		ok   bool
	}{
		{map[string][]string{StartupRateLimitError: {"ERROR_CODE=61440"}}, 0xF000, true},
		{map[string][]string{StartupRateLimitError: {"OTHER=1", "ERROR_CODE=4096"}}, 0x1000, true},
		{map[string][]string{StartupRateLimitError: {"ERROR_CODE=x"}}, 0, false},
		{map[string][]string{}, 0, false},
	} {
		if code, ok := RateLimitCode(tc.sup); code != tc.code || ok != tc.ok {
			t.Errorf("RateLimitCode(%v) = %#x, %v; want %#x, %v", tc.sup, code, ok, tc.code, tc.ok)
		}
	}
}
