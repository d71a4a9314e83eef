package inflate

import (
	"bytes"
	"testing"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"
)

// TestBoundsHoldForHighlyCompressibleData compresses runs of zeros, the best case of both
// formats, and checks that the real output never exceeds the bound of its block.
func TestBoundsHoldForHighlyCompressibleData(t *testing.T) {
	for _, n := range []int{0, 1, 100, 4096, 1 << 20, 8 << 20} {
		src := bytes.Repeat([]byte{0}, n)
		block := make([]byte, lz4.CompressBlockBound(n))
		var c lz4.Compressor
		m, err := c.CompressBlock(src, block)
		if err != nil {
			t.Fatal(err)
		}
		if int64(n) > MaxLZ4(m) {
			t.Errorf("lz4: %d zero bytes compress to %d, above the bound %d", n, m, MaxLZ4(m))
		}
		sb := snappy.Encode(nil, src)
		if int64(n) > MaxSnappy(len(sb)) {
			t.Errorf("snappy: %d zero bytes compress to %d, above the bound %d", n, len(sb), MaxSnappy(len(sb)))
		}
	}
}

func TestBoundsRejectBombs(t *testing.T) {
	if MaxLZ4(1) >= 200<<20 || MaxSnappy(5) >= 200<<20 {
		t.Fatal("a few bytes may announce 200 MiB")
	}
	if MaxLZ4(-4) != slack || MaxSnappy(-1) != slack {
		t.Fatal("a negative length must count as empty")
	}
}
