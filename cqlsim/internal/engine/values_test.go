package engine

import (
	"encoding/binary"
	"math"
	"math/big"
	"testing"
)

// TestCompareDecimalsHugeScales orders decimals whose scales are far apart. The comparison
// used to compute 10^|scale| exactly, so a 5-byte value with scale 2^31-1 (in a clustering
// column, a set, a WHERE or an IF) made the engine build a number of gigabytes.
func TestCompareDecimalsHugeScales(t *testing.T) {
	dec := func(unscaled int64, scale int32) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(scale)), encodeVarint(big.NewInt(unscaled))...)
	}
	for _, c := range []struct {
		name string
		a, b []byte
		want int
	}{
		{"1 vs 1e-2147483647", dec(1, 0), dec(1, math.MaxInt32), 1},
		{"1e2147483648 vs 1", dec(1, math.MinInt32), dec(1, 0), 1},
		{"-1e2147483648 vs -1", dec(-1, math.MinInt32), dec(-1, 0), -1},
		{"1e-2147483647 vs 2e-2147483647", dec(1, math.MaxInt32), dec(2, math.MaxInt32), -1},
		{"1e2147483648 vs 1e-2147483647", dec(1, math.MinInt32), dec(1, math.MaxInt32), 1},
		{"-1e-2147483647 vs 1e-2147483647", dec(-1, math.MaxInt32), dec(1, math.MaxInt32), -1},
		{"0 scale 2^31-1 vs 0", dec(0, math.MaxInt32), dec(0, math.MinInt32), 0},
		{"1.0 vs 1", dec(10, 1), dec(1, 0), 0},
		{"1.23 vs 1.229", dec(123, 2), dec(1229, 3), 1},
		{"-1.23 vs -1.229", dec(-123, 2), dec(-1229, 3), -1},
		{"99 vs 1E+2", dec(99, 0), dec(1, -2), -1},
		{"short vs 0", []byte{1}, dec(0, 0), 0},
	} {
		if got := compareDecimals(c.a, c.b); sign(got) != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
		if got := compareDecimals(c.b, c.a); sign(got) != -c.want {
			t.Errorf("%s reversed: %d, want %d", c.name, got, -c.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// TestDecimalClusteringHugeScales stores decimals of extreme scales in a clustering column,
// which sorts them on insert, and refuses an exponent whose scale does not fit in 32 bits
// (it used to wrap around, storing 1e3000000000 as 1E-1294967296).
func TestDecimalClusteringHugeScales(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE t (k int, c decimal, PRIMARY KEY (k, c))")
	for _, v := range []string{"1e-2147483647", "-1e2147483647", "1", "1e2147483647", "0"} {
		te.mustExec("INSERT INTO t (k, c) VALUES (1, " + v + ")")
	}
	r := te.mustExec("SELECT c FROM t WHERE k = 1")
	var got []string
	for _, row := range r.Rows {
		got = append(got, javaBigDecimal(row[0]))
	}
	eq(t, "order", got, []string{"-1E+2147483647", "0", "1E-2147483647", "1", "1E+2147483647"})
	if _, msg := te.errCode("INSERT INTO t (k, c) VALUES (1, 1e3000000000)"); msg != "Unable to make decimal from '1e3000000000'" {
		t.Errorf("exponent beyond 32 bits: %q", msg)
	}
}
