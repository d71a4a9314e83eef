package cqltype

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"time"
)

// The Append* functions below append a complete protocol [value] (a 4-byte
// length and the body) for one Go value, without looking at a Type: use them when
// the column type is known to match (int for AppendInt32, bigint or counter for
// AppendInt64, text, varchar or ascii for AppendString...). Append checks the
// type and accepts every Go mapping; these are its allocation-free shortcuts.

// AppendNull appends a NULL [value] (length -1).
func AppendNull(dst []byte) []byte { return append(dst, 0xFF, 0xFF, 0xFF, 0xFF) }

// AppendUnset appends an unset [value] (length -2), which leaves the column untouched.
func AppendUnset(dst []byte) []byte { return append(dst, 0xFF, 0xFF, 0xFF, 0xFE) }

// AppendInt32 appends an int value.
func AppendInt32(dst []byte, v int32) []byte {
	dst = append(dst, 0, 0, 0, 4)
	return binary.BigEndian.AppendUint32(dst, uint32(v))
}

// AppendInt64 appends a bigint or counter value.
func AppendInt64(dst []byte, v int64) []byte {
	dst = append(dst, 0, 0, 0, 8)
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// AppendInt16 appends a smallint value.
func AppendInt16(dst []byte, v int16) []byte {
	dst = append(dst, 0, 0, 0, 2)
	return binary.BigEndian.AppendUint16(dst, uint16(v))
}

// AppendInt8 appends a tinyint value.
func AppendInt8(dst []byte, v int8) []byte { return append(dst, 0, 0, 0, 1, byte(v)) }

// AppendBool appends a boolean value.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 0, 0, 0, 1, 1)
	}
	return append(dst, 0, 0, 0, 1, 0)
}

// AppendFloat32 appends a float value.
func AppendFloat32(dst []byte, v float32) []byte {
	dst = append(dst, 0, 0, 0, 4)
	return binary.BigEndian.AppendUint32(dst, math.Float32bits(v))
}

// AppendFloat64 appends a double value.
func AppendFloat64(dst []byte, v float64) []byte {
	dst = append(dst, 0, 0, 0, 8)
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendString appends a text, varchar or ascii value (the bytes of s unchecked).
func AppendString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

// AppendBytes appends a blob value; a nil b appends NULL, an empty non-nil b an
// empty value.
func AppendBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return AppendNull(dst)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// AppendUUID appends a uuid or timeuuid value.
func AppendUUID(dst []byte, u UUID) []byte {
	dst = append(dst, 0, 0, 0, 16)
	return append(dst, u[:]...)
}

// AppendTimestamp appends a timestamp value: t as milliseconds since the Unix
// epoch (sub-millisecond precision is dropped, rounding toward the past). Like the other
// shortcuts it does not check its input: t must lie within about 292 million years of 1970,
// the range of an int64 of milliseconds (Append, which Bind uses, fails with ErrOutOfRange
// outside it).
func AppendTimestamp(dst []byte, t time.Time) []byte {
	return AppendInt64(dst, t.UnixMilli())
}

// The Decode* functions below decode the body of one value of a known type
// without reflection. b is the body (nil for NULL). NULL and the empty value
// decode to the zero value; any other length than the type's fixed size is an
// error wrapping ErrMalformedValue.

func fixedLen(b []byte, n int, what string) error {
	if len(b) != n {
		return malformed("%s needs %d bytes, got %d", what, n, len(b))
	}
	return nil
}

// DecodeInt32 decodes an int.
func DecodeInt32(b []byte) (int32, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 4, "int"); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

// DecodeInt64 decodes a bigint or counter.
func DecodeInt64(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 8, "bigint"); err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// DecodeInt16 decodes a smallint.
func DecodeInt16(b []byte) (int16, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 2, "smallint"); err != nil {
		return 0, err
	}
	return int16(binary.BigEndian.Uint16(b)), nil
}

// DecodeInt8 decodes a tinyint.
func DecodeInt8(b []byte) (int8, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 1, "tinyint"); err != nil {
		return 0, err
	}
	return int8(b[0]), nil
}

// DecodeBool decodes a boolean (any non-zero byte is true).
func DecodeBool(b []byte) (bool, error) {
	if len(b) == 0 {
		return false, nil
	}
	if err := fixedLen(b, 1, "boolean"); err != nil {
		return false, err
	}
	return b[0] != 0, nil
}

// DecodeFloat32 decodes a float.
func DecodeFloat32(b []byte) (float32, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 4, "float"); err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.BigEndian.Uint32(b)), nil
}

// DecodeFloat64 decodes a double.
func DecodeFloat64(b []byte) (float64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 8, "double"); err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
}

// DecodeString decodes text, varchar or ascii into a new string (NULL gives "").
func DecodeString(b []byte) string { return string(b) }

// DecodeBytes decodes a blob into a copy of b: nil for NULL, an empty non-nil
// slice for the empty value.
func DecodeBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// DecodeUUID decodes a uuid or timeuuid.
func DecodeUUID(b []byte) (UUID, error) {
	if len(b) == 0 {
		return UUID{}, nil
	}
	if err := fixedLen(b, 16, "uuid"); err != nil {
		return UUID{}, err
	}
	return UUID(b), nil
}

// DecodeTimestamp decodes a timestamp into a UTC time (NULL gives the zero time).
func DecodeTimestamp(b []byte) (time.Time, error) {
	if len(b) == 0 {
		return time.Time{}, nil
	}
	if err := fixedLen(b, 8, "timestamp"); err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC(), nil
}

// DecodeDate decodes a date.
func DecodeDate(b []byte) (Date, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 4, "date"); err != nil {
		return 0, err
	}
	return Date(int64(binary.BigEndian.Uint32(b)) - 1<<31), nil
}

// maxTimeOfDay is the largest CQL time: 23:59:59.999999999 in nanoseconds.
const maxTimeOfDay = 86399999999999

// DecodeTime decodes a time of day (nanoseconds since midnight).
func DecodeTime(b []byte) (time.Duration, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := fixedLen(b, 8, "time"); err != nil {
		return 0, err
	}
	n := int64(binary.BigEndian.Uint64(b))
	if n < 0 || n > maxTimeOfDay {
		return 0, malformed("time %d is outside 0..%d", n, int64(maxTimeOfDay))
	}
	return time.Duration(n), nil
}

// DecodeDuration decodes a duration.
func DecodeDuration(b []byte) (Duration, error) {
	if len(b) == 0 {
		return Duration{}, nil
	}
	var v [3]int64
	rest := b
	for i := range v {
		n, used := readVint(rest)
		if used == 0 {
			return Duration{}, malformed("duration truncated after %d of 3 components", i)
		}
		v[i] = n
		rest = rest[used:]
	}
	if len(rest) != 0 {
		return Duration{}, malformed("%d extra bytes after duration", len(rest))
	}
	if v[0] < math.MinInt32 || v[0] > math.MaxInt32 || v[1] < math.MinInt32 || v[1] > math.MaxInt32 {
		return Duration{}, malformed("duration months %d or days %d exceed 32 bits", v[0], v[1])
	}
	d := Duration{Months: int32(v[0]), Days: int32(v[1]), Nanoseconds: v[2]}
	if !d.valid() {
		return Duration{}, malformed("duration %+v mixes signs", d)
	}
	return d, nil
}

// DecodeVarint decodes a varint (NULL and the empty value give nil).
func DecodeVarint(b []byte) *big.Int {
	if len(b) == 0 {
		return nil
	}
	return decodeVarintBig(b)
}

// DecodeDecimal decodes a decimal (NULL and the empty value give the zero Decimal).
func DecodeDecimal(b []byte) (Decimal, error) {
	if len(b) == 0 {
		return Decimal{}, nil
	}
	return decodeDecimal(b)
}

// DecodeInet decodes an inet address (NULL and the empty value give the zero,
// invalid netip.Addr).
func DecodeInet(b []byte) (netip.Addr, error) {
	if len(b) == 0 {
		return netip.Addr{}, nil
	}
	return decodeAddr(b)
}

func appendDurationBody(dst []byte, d Duration) []byte {
	dst = appendVint(dst, int64(d.Months))
	dst = appendVint(dst, int64(d.Days))
	return appendVint(dst, d.Nanoseconds)
}

// appendDateBody appends the body of a date.
func appendDateBody(dst []byte, d Date) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(int64(d)+1<<31))
}

// checkTimeOfDay validates nanoseconds since midnight.
func checkTimeOfDay(n int64) error {
	if n < 0 || n > maxTimeOfDay {
		return fmt.Errorf("%w: time of day must be within 0..%d ns", ErrOutOfRange, int64(maxTimeOfDay))
	}
	return nil
}
