package engine

import (
	"encoding/binary"
	"math/big"

	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Signature lists of Cassandra 5.0's sum and avg, in the order a Cassandra 5.0.9 node listed
// them in "none of its type signatures match" (a hash order, which another Cassandra process
// may give differently).
const (
	sumSignatures = "system.sum : (bigint) -> bigint, system.sum : (smallint) -> smallint, system.sum : (counter) -> counter, system.sum : (tinyint) -> tinyint, system.sum : (int) -> int, system.sum : (double) -> double, system.sum : (varint) -> varint, system.sum : (decimal) -> decimal, system.sum : (float) -> float"
	avgSignatures = "system.avg : (varint) -> varint, system.avg : (float) -> float, system.avg : (double) -> double, system.avg : (decimal) -> decimal, system.avg : (bigint) -> bigint, system.avg : (counter) -> counter, system.avg : (smallint) -> smallint, system.avg : (tinyint) -> tinyint, system.avg : (int) -> int"
)

// numericAggregateError is Cassandra's refusal of sum or avg of a column of type t, or nil for
// the numeric types they take.
func numericAggregateError(fn string, t *ctype) error {
	switch t.code {
	case primitive.DataTypeCodeInt, primitive.DataTypeCodeBigint, primitive.DataTypeCodeSmallint,
		primitive.DataTypeCodeTinyint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeFloat,
		primitive.DataTypeCodeDouble, primitive.DataTypeCodeDecimal, primitive.DataTypeCodeVarint:
		return nil
	}
	sigs := sumSignatures
	if fn == "avg" {
		sigs = avgSignatures
	}
	return invalid("Invalid call to function %s, none of its type signatures match (known type signatures: %s)", fn, sigs)
}

// bigAggregate is sum() or avg() of an integer, varint or decimal column, computed as
// Cassandra 5.0 computes them: integers summed exactly and wrapped to the column's size for
// sum, averaged exactly (truncated towards zero) for avg; varint likewise without wrapping;
// decimal summed exactly, and averaged incrementally, avg += (x - avg) / n, each division
// rounded half-even to the scale of its dividend. Nulls are skipped; no value gives 0.
func bigAggregate(it *selItem, rows []outRow) []byte {
	code := it.col.typ.code
	if code == primitive.DataTypeCodeDecimal {
		return decimalAggregate(it.kind == selAvg, it.col.idx, rows)
	}
	sum := new(big.Int)
	var n int64
	for _, r := range rows {
		v := r.vals[it.col.idx]
		if len(v) == 0 {
			continue
		}
		if code == primitive.DataTypeCodeVarint {
			sum.Add(sum, decodeVarint(v))
		} else {
			sum.Add(sum, big.NewInt(signedInt(v)))
		}
		n++
	}
	if it.kind == selAvg && n > 0 {
		sum.Quo(sum, big.NewInt(n))
	}
	if code == primitive.DataTypeCodeVarint {
		return encodeVarint(sum)
	}
	// the low 64 bits, two's complement, as Java's long arithmetic wraps
	low := new(big.Int).And(sum, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return encodeIntOfSize(int64(low), it.col.typ.fixedSize())
}

// decimal is a decimal value as Java's BigDecimal holds it: unscaled × 10^-scale.
type decimal struct {
	unscaled *big.Int
	scale    int64
}

// rescaled returns d's unscaled value at a scale not below d's.
func (d decimal) rescaled(scale int64) *big.Int {
	return new(big.Int).Mul(d.unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(scale-d.scale), nil))
}

// add returns d + e (or d - e with neg) at the larger of their scales, as BigDecimal does.
func (d decimal) add(e decimal, neg bool) decimal {
	scale := max(d.scale, e.scale)
	x, y := d.rescaled(scale), e.rescaled(scale)
	if neg {
		return decimal{x.Sub(x, y), scale}
	}
	return decimal{x.Add(x, y), scale}
}

// quoHalfEven returns d / n at d's scale, rounded half to even.
func (d decimal) quoHalfEven(n int64) decimal {
	div := big.NewInt(n)
	q, r := new(big.Int).QuoRem(d.unscaled, div, new(big.Int))
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	if c := twice.Cmp(new(big.Int).Abs(div)); c > 0 || (c == 0 && q.Bit(0) == 1) {
		if d.unscaled.Sign()*div.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return decimal{q, d.scale}
}

func (d decimal) encode() []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(int32(d.scale))), encodeVarint(d.unscaled)...)
}

func decimalAggregate(avg bool, idx int, rows []outRow) []byte {
	acc := decimal{new(big.Int), 0}
	var n int64
	for _, r := range rows {
		v := r.vals[idx]
		if len(v) < 4 {
			continue
		}
		u, scale := decimalParts(v)
		x := decimal{u, scale}
		n++
		if !avg {
			acc = acc.add(x, false)
			continue
		}
		acc = acc.add(x.add(acc, true).quoHalfEven(n), false)
	}
	return acc.encode()
}
