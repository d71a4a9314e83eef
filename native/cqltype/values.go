package cqltype

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// UnsetValue is the type of Unset.
type UnsetValue struct{}

// Unset leaves the column untouched when passed as a bound value: it is written as
// the protocol's "not set" value (length -2) instead of a NULL that would delete
// the cell. It is only valid as a whole bound value, not inside a collection,
// tuple or UDT.
var Unset UnsetValue

// Marshaler is implemented by Go types that encode themselves. MarshalCQL returns
// the body of the value for CQL type t; a nil slice means NULL.
type Marshaler interface {
	MarshalCQL(t *Type) ([]byte, error)
}

// Unmarshaler is implemented by Go types that decode themselves. b is the body of
// the value of CQL type t, nil for NULL. b is only valid during the call: copy
// what must be kept.
type Unmarshaler interface {
	UnmarshalCQL(t *Type, b []byte) error
}

// Date is a CQL date: a day count relative to 1970-01-01 (negative before). Every
// int32 is a valid date, from -5877641-06-23 to +5881580-07-11.
type Date int32

// DateOf returns the calendar day of t in t's location. It fails when the day is
// outside the CQL date range.
func DateOf(t time.Time) (Date, error) {
	y, m, d := t.Date()
	days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	if days < math.MinInt32 || days > math.MaxInt32 {
		return 0, fmt.Errorf("%w: %d-%02d-%02d is outside the CQL date range", ErrOutOfRange, y, m, d)
	}
	return Date(days), nil
}

// Time returns midnight UTC of the day.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String returns the day as YYYY-MM-DD, with a sign before years before 0
// ("-0001-06-01") and after 9999 ("+10000-01-01"), as Cassandra prints them and reads
// them back as date literals.
func (d Date) String() string {
	y, m, day := d.Time().Date()
	switch {
	case y < 0:
		return fmt.Sprintf("-%04d-%02d-%02d", -y, int(m), day)
	case y > 9999:
		return fmt.Sprintf("+%d-%02d-%02d", y, int(m), day)
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, int(m), day)
}

// Duration is a CQL duration: months, days and nanoseconds kept apart because
// their length in absolute time varies. All three are non-negative or all
// non-positive.
type Duration struct {
	Months      int32
	Days        int32
	Nanoseconds int64
}

// valid reports whether the components have consistent signs.
func (d Duration) valid() bool {
	neg := d.Months < 0 || d.Days < 0 || d.Nanoseconds < 0
	pos := d.Months > 0 || d.Days > 0 || d.Nanoseconds > 0
	return !(neg && pos)
}

// String returns the duration in CQL's format, for example "1y2mo3d4h5m6s7ms8us9ns",
// "-2d" or "0s".
func (d Duration) String() string {
	if d.Months == 0 && d.Days == 0 && d.Nanoseconds == 0 {
		return "0s"
	}
	var sb strings.Builder
	months, days, nanos := int64(d.Months), int64(d.Days), d.Nanoseconds
	neg := months < 0 || days < 0 || nanos < 0
	if neg {
		sb.WriteByte('-')
	}
	abs := func(v int64) uint64 {
		if v < 0 {
			return uint64(-(v + 1)) + 1
		}
		return uint64(v)
	}
	part := func(v uint64, unit string) {
		if v != 0 {
			sb.WriteString(strconv.FormatUint(v, 10))
			sb.WriteString(unit)
		}
	}
	m := abs(months)
	part(m/12, "y")
	part(m%12, "mo")
	part(abs(days), "d")
	n := abs(nanos)
	part(n/uint64(time.Hour), "h")
	n %= uint64(time.Hour)
	part(n/uint64(time.Minute), "m")
	n %= uint64(time.Minute)
	part(n/uint64(time.Second), "s")
	n %= uint64(time.Second)
	part(n/uint64(time.Millisecond), "ms")
	n %= uint64(time.Millisecond)
	part(n/uint64(time.Microsecond), "us")
	part(n%uint64(time.Microsecond), "ns")
	return sb.String()
}

// Decimal is a CQL decimal: Unscaled × 10^-Scale. A nil Unscaled is zero.
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// NewDecimal returns unscaled × 10^-scale.
func NewDecimal(unscaled int64, scale int32) Decimal {
	return Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}

// Cmp compares the numeric values of d and e: -1, 0 or +1. 1.0 (10, scale 1)
// equals 1 (1, scale 0). Scales far apart cost no more than close ones.
func (d Decimal) Cmp(e Decimal) int {
	a, b := d.unscaled(), e.unscaled()
	if a.Sign() != b.Sign() || a.Sign() == 0 {
		return cmpInt(a.Sign(), b.Sign())
	}
	if d.Scale == e.Scale {
		return a.Cmp(b)
	}
	// Compare the decimal exponents of the leading digits first; only when they
	// are equal is the scale difference bounded by the digit counts, and cheap
	// to apply.
	da, db := len(new(big.Int).Abs(a).String()), len(new(big.Int).Abs(b).String())
	ea, eb := int64(da)-int64(d.Scale), int64(db)-int64(e.Scale)
	if ea != eb {
		if a.Sign() > 0 {
			return cmpInt64(ea, eb)
		}
		return cmpInt64(eb, ea)
	}
	diff := int64(d.Scale) - int64(e.Scale)
	if diff > 0 {
		b = new(big.Int).Mul(b, new(big.Int).Exp(big.NewInt(10), big.NewInt(diff), nil))
	} else {
		a = new(big.Int).Mul(a, new(big.Int).Exp(big.NewInt(10), big.NewInt(-diff), nil))
	}
	return a.Cmp(b)
}

func cmpInt(a, b int) int { return cmpInt64(int64(a), int64(b)) }

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (d Decimal) unscaled() *big.Int {
	if d.Unscaled == nil {
		return new(big.Int)
	}
	return d.Unscaled
}

// String returns the value in plain decimal notation ("-12.345", "1200"), or in
// scientific notation ("12E+40", "1.2E-45") when plain notation would need more
// than 32 padding zeros.
func (d Decimal) String() string {
	u := d.unscaled()
	digits := new(big.Int).Abs(u).String()
	sign := ""
	if u.Sign() < 0 {
		sign = "-"
	}
	scale := int64(d.Scale)
	switch {
	case scale == 0, u.Sign() == 0 && scale < 0:
		// A zero with a negative scale has no significant digit to pad: "0", not "000000".
		return sign + digits
	case scale < 0 && -scale <= 32:
		return sign + digits + strings.Repeat("0", int(-scale))
	case scale > 0 && scale < int64(len(digits)):
		p := len(digits) - int(scale)
		return sign + digits[:p] + "." + digits[p:]
	case scale > 0 && scale-int64(len(digits)) <= 32:
		return sign + "0." + strings.Repeat("0", int(scale)-len(digits)) + digits
	}
	// Scientific: d.ddd E exp, exp = len(digits)-1-scale.
	exp := int64(len(digits)) - 1 - scale
	mant := digits[:1]
	if len(digits) > 1 {
		mant += "." + digits[1:]
	}
	es := strconv.FormatInt(exp, 10)
	if exp >= 0 {
		es = "+" + es
	}
	return sign + mant + "E" + es
}
