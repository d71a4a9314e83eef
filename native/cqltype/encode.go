package cqltype

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strconv"
	"time"

	"gopkg.in/inf.v0"
)

// Append appends v, encoded as CQL type t, to dst as one protocol [value]: a
// 4-byte length and the body, length -1 for NULL (a nil v, nil pointer, nil
// slice or map...) and -2 for Unset. See the package documentation for the Go
// types accepted for each CQL type. On error dst is returned unchanged (same
// length) and the error is a *ValueError.
//
// For the common scalar Go types Append allocates nothing.
func Append(dst []byte, t *Type, v any) ([]byte, error) {
	switch v.(type) {
	case nil:
		return AppendNull(dst), nil
	case UnsetValue:
		return AppendUnset(dst), nil
	}
	if t == nil {
		return dst, nilTypeError(v)
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	out, null, err := appendBody(dst, t, v)
	if err != nil {
		return dst[:start], finish(err, t)
	}
	if null {
		return AppendNull(out[:start]), nil
	}
	n := len(out) - start - 4
	if n > math.MaxInt32 {
		return out[:start], finish(encodeError(t, v, invalid("encoded value is %d bytes, over the protocol limit", n)), t)
	}
	binary.BigEndian.PutUint32(out[start:], uint32(n))
	return out, nil
}

// Marshal encodes v as CQL type t and returns the body of the value (without the
// length prefix), nil for NULL. It is Append for callers that need the body on
// its own, such as routing-key computation.
func Marshal(t *Type, v any) ([]byte, error) {
	if _, ok := v.(UnsetValue); ok {
		return nil, finish(encodeError(t, v, invalid("unset has no body")), t)
	}
	if v == nil {
		return nil, nil
	}
	if t == nil {
		return nil, nilTypeError(v)
	}
	out, null, err := appendBody(nil, t, v)
	if err != nil {
		return nil, finish(err, t)
	}
	if null {
		return nil, nil
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// nilTypeError is the error of encoding v without a CQL type.
func nilTypeError(v any) error {
	return &ValueError{GoType: goTypeName(v), At: &Type{Kind: KindCustom, Custom: "<nil type>"},
		Err: errors.New("no CQL type given")}
}

// errNoMatch tells that appendScalar has no case for the Go type.
var errNoMatch = errors.New("no match")

var (
	marshalerType = reflect.TypeFor[Marshaler]()
	unsetType     = reflect.TypeFor[UnsetValue]()
)

// appendBody appends the body of v. null reports a NULL value (nothing appended).
func appendBody(dst []byte, t *Type, v any) (out []byte, null bool, err error) {
	switch v.(type) {
	case nil:
		return dst, true, nil
	case UnsetValue:
		return dst, false, encodeError(t, v, invalid("unset is only allowed as a whole bound value"))
	}
	// appendScalar only matches predeclared types and this package's, none of
	// which is a Marshaler; appendReflect looks for Marshalers.
	out, null, err = appendScalar(dst, t, v)
	if err != errNoMatch {
		return out, null, err
	}
	return appendReflect(dst, t, reflect.ValueOf(v))
}

func appendMarshaler(dst []byte, t *Type, m Marshaler) ([]byte, bool, error) {
	if rv := reflect.ValueOf(m); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return dst, true, nil
	}
	b, err := m.MarshalCQL(t)
	if err != nil {
		return dst, false, encodeError(t, m, err)
	}
	if b == nil {
		return dst, true, nil
	}
	return append(dst, b...), false, nil
}

// intOf extracts a Go integer. ok is false when v is no integer type; big is
// true for a uint64 above math.MaxInt64.
func intOf(v any) (n int64, big, ok bool) {
	switch x := v.(type) {
	case int:
		return int64(x), false, true
	case int64:
		return x, false, true
	case int32:
		return int64(x), false, true
	case int16:
		return int64(x), false, true
	case int8:
		return int64(x), false, true
	case uint:
		return int64(x), uint64(x) > math.MaxInt64, true
	case uint64:
		return int64(x), x > math.MaxInt64, true
	case uint32:
		return int64(x), false, true
	case uint16:
		return int64(x), false, true
	case uint8:
		return int64(x), false, true
	}
	return 0, false, false
}

func intRange(k Kind) (lo, hi int64) {
	switch k {
	case KindInt:
		return math.MinInt32, math.MaxInt32
	case KindSmallint:
		return math.MinInt16, math.MaxInt16
	case KindTinyint:
		return math.MinInt8, math.MaxInt8
	}
	return math.MinInt64, math.MaxInt64
}

func appendFixedInt(dst []byte, k Kind, n int64) []byte {
	switch k {
	case KindInt:
		return binary.BigEndian.AppendUint32(dst, uint32(n))
	case KindSmallint:
		return binary.BigEndian.AppendUint16(dst, uint16(n))
	case KindTinyint:
		return append(dst, byte(n))
	}
	return binary.BigEndian.AppendUint64(dst, uint64(n))
}

// appendScalar encodes the Go types accepted directly for each kind. It returns
// errNoMatch when it has no case for v, leaving reflection to appendReflect.
func appendScalar(dst []byte, t *Type, v any) ([]byte, bool, error) {
	switch t.Kind {
	case KindInt, KindBigint, KindCounter, KindSmallint, KindTinyint:
		n, tooBig, ok := intOf(v)
		if !ok {
			return dst, false, errNoMatch
		}
		lo, hi := intRange(t.Kind)
		if tooBig || n < lo || n > hi {
			return dst, false, encodeError(t, v, ErrOutOfRange)
		}
		return appendFixedInt(dst, t.Kind, n), false, nil

	case KindVarint:
		switch x := v.(type) {
		case *big.Int:
			if x == nil {
				return dst, true, nil
			}
			return appendVarintBig(dst, x), false, nil
		case big.Int:
			return appendVarintBig(dst, &x), false, nil
		}
		n, tooBig, ok := intOf(v)
		if !ok {
			return dst, false, errNoMatch
		}
		if tooBig {
			return appendVarintBig(dst, new(big.Int).SetUint64(uint64(n))), false, nil
		}
		return appendVarintInt64(dst, n), false, nil

	case KindFloat:
		switch x := v.(type) {
		case float32:
			return binary.BigEndian.AppendUint32(dst, math.Float32bits(x)), false, nil
		case float64:
			f := float32(x)
			if float64(f) != x && !math.IsNaN(x) {
				return dst, false, encodeError(t, v, outOfRange("not exactly representable as a 32-bit float"))
			}
			return binary.BigEndian.AppendUint32(dst, math.Float32bits(f)), false, nil
		}

	case KindDouble:
		switch x := v.(type) {
		case float64:
			return binary.BigEndian.AppendUint64(dst, math.Float64bits(x)), false, nil
		case float32:
			return binary.BigEndian.AppendUint64(dst, math.Float64bits(float64(x))), false, nil
		}

	case KindBoolean:
		if x, ok := v.(bool); ok {
			if x {
				return append(dst, 1), false, nil
			}
			return append(dst, 0), false, nil
		}

	case KindVarchar, KindASCII:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			if x == nil {
				return dst, true, nil
			}
			if t.Kind == KindASCII {
				if i := nonASCII(string(x)); i >= 0 {
					return dst, false, encodeError(t, v, invalid("byte 0x%02x at offset %d is not ASCII", x[i], i))
				}
			}
			return append(dst, x...), false, nil
		default:
			return dst, false, errNoMatch
		}
		if t.Kind == KindASCII {
			if i := nonASCII(s); i >= 0 {
				return dst, false, encodeError(t, v, invalid("byte 0x%02x at offset %d is not ASCII", s[i], i))
			}
		}
		return append(dst, s...), false, nil

	case KindBlob, KindCustom:
		switch x := v.(type) {
		case []byte:
			if x == nil {
				return dst, true, nil
			}
			return append(dst, x...), false, nil
		case string:
			if t.Kind == KindBlob {
				return append(dst, x...), false, nil
			}
		}

	case KindTimestamp:
		switch x := v.(type) {
		case time.Time:
			ms, ok := unixMilli(x)
			if !ok {
				return dst, false, encodeError(t, v, ErrOutOfRange)
			}
			return binary.BigEndian.AppendUint64(dst, uint64(ms)), false, nil
		case int64:
			return binary.BigEndian.AppendUint64(dst, uint64(x)), false, nil
		}

	case KindDate:
		switch x := v.(type) {
		case Date:
			return appendDateBody(dst, x), false, nil
		case time.Time:
			d, err := DateOf(x)
			if err != nil {
				return dst, false, encodeError(t, v, err)
			}
			return appendDateBody(dst, d), false, nil
		}

	case KindTime:
		var n int64
		switch x := v.(type) {
		case time.Duration:
			n = int64(x)
		case int64:
			n = x
		default:
			return dst, false, errNoMatch
		}
		if err := checkTimeOfDay(n); err != nil {
			return dst, false, encodeError(t, v, err)
		}
		return binary.BigEndian.AppendUint64(dst, uint64(n)), false, nil

	case KindUUID, KindTimeUUID:
		var u UUID
		switch x := v.(type) {
		case UUID:
			u = x
		case [16]byte:
			u = x
		case []byte:
			if x == nil {
				return dst, true, nil
			}
			if len(x) != 16 {
				return dst, false, encodeError(t, v, invalid("a UUID has 16 bytes, got %d", len(x)))
			}
			u = UUID(x)
		case string:
			var err error
			if u, err = ParseUUID(x); err != nil {
				return dst, false, encodeError(t, v, fmt.Errorf("%w: %w", ErrInvalidValue, err))
			}
		default:
			return dst, false, errNoMatch
		}
		if t.Kind == KindTimeUUID && u.Version() != 1 {
			return dst, false, encodeError(t, v, invalid("UUID %s is version %d, timeuuid needs version 1", u, u.Version()))
		}
		return append(dst, u[:]...), false, nil

	case KindInet:
		switch x := v.(type) {
		case net.IP:
			if x == nil {
				return dst, true, nil
			}
			if ip4 := x.To4(); ip4 != nil {
				return append(dst, ip4...), false, nil
			}
			if len(x) != net.IPv6len {
				return dst, false, encodeError(t, v, invalid("an IP address has 4 or 16 bytes, got %d", len(x)))
			}
			return append(dst, x...), false, nil
		case netip.Addr:
			if !x.IsValid() {
				return dst, true, nil
			}
			return appendAddr(dst, x), false, nil
		case string:
			a, err := netip.ParseAddr(x)
			if err != nil {
				return dst, false, encodeError(t, v, fmt.Errorf("%w: %w", ErrInvalidValue, err))
			}
			return appendAddr(dst, a), false, nil
		}

	case KindDuration:
		switch x := v.(type) {
		case Duration:
			if !x.valid() {
				return dst, false, encodeError(t, v, invalid("months, days and nanoseconds must not mix signs in %+v", x))
			}
			return appendDurationBody(dst, x), false, nil
		case time.Duration:
			return appendDurationBody(dst, Duration{Nanoseconds: int64(x)}), false, nil
		}

	case KindDecimal:
		switch x := v.(type) {
		case Decimal:
			return appendDecimal(dst, x.Scale, x.Unscaled), false, nil
		case *Decimal:
			if x == nil {
				return dst, true, nil
			}
			return appendDecimal(dst, x.Scale, x.Unscaled), false, nil
		case *inf.Dec:
			if x == nil {
				return dst, true, nil
			}
			return appendDecimal(dst, int32(x.Scale()), x.UnscaledBig()), false, nil
		case inf.Dec:
			return appendDecimal(dst, int32(x.Scale()), x.UnscaledBig()), false, nil
		}

	case KindList, KindSet:
		switch x := v.(type) {
		case []string:
			return appendStringList(dst, t, x)
		case []int:
			return appendIntList(dst, t, x)
		case []int32:
			return appendIntList(dst, t, x)
		case []int64:
			return appendIntList(dst, t, x)
		}

	case KindVector:
		switch x := v.(type) {
		case []float32:
			if t.Elem.Kind != KindFloat {
				break
			}
			if x == nil {
				return dst, true, nil
			}
			if len(x) != t.Dim {
				return dst, false, encodeError(t, v, invalid("vector needs %d elements, got %d", t.Dim, len(x)))
			}
			for _, f := range x {
				dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(f))
			}
			return dst, false, nil
		case []float64:
			if t.Elem.Kind != KindDouble {
				break
			}
			if x == nil {
				return dst, true, nil
			}
			if len(x) != t.Dim {
				return dst, false, encodeError(t, v, invalid("vector needs %d elements, got %d", t.Dim, len(x)))
			}
			for _, f := range x {
				dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(f))
			}
			return dst, false, nil
		}
	}
	return dst, false, errNoMatch
}

// appendStringList encodes a list or set of text, varchar, ascii or blob from a
// []string without reflection.
func appendStringList(dst []byte, t *Type, xs []string) ([]byte, bool, error) {
	switch t.Elem.Kind {
	case KindVarchar, KindASCII, KindBlob:
	default:
		return dst, false, errNoMatch
	}
	if xs == nil {
		return dst, true, nil
	}
	if len(xs) > math.MaxInt32 {
		return dst, false, encodeError(t, xs, invalid("%d elements, over the protocol limit", len(xs)))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(xs)))
	for i, x := range xs {
		if t.Elem.Kind == KindASCII {
			if j := nonASCII(x); j >= 0 {
				err := encodeError(t.Elem, x, invalid("byte 0x%02x at offset %d is not ASCII", x[j], j))
				return dst, false, withPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		if len(x) > math.MaxInt32 {
			return dst, false, withPath(encodeError(t.Elem, x, invalid("over the protocol size limit")), "["+strconv.Itoa(i)+"]")
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(x)))
		dst = append(dst, x...)
	}
	return dst, false, nil
}

// appendIntList encodes a list or set of a fixed-size integer type from a slice
// of Go integers without reflection.
func appendIntList[T int | int32 | int64](dst []byte, t *Type, xs []T) ([]byte, bool, error) {
	size := 0
	switch t.Elem.Kind {
	case KindInt:
		size = 4
	case KindBigint, KindCounter:
		size = 8
	case KindSmallint:
		size = 2
	case KindTinyint:
		size = 1
	default:
		return dst, false, errNoMatch
	}
	if xs == nil {
		return dst, true, nil
	}
	if len(xs) > math.MaxInt32 {
		return dst, false, encodeError(t, xs, invalid("%d elements, over the protocol limit", len(xs)))
	}
	lo, hi := intRange(t.Elem.Kind)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(xs)))
	for i, x := range xs {
		n := int64(x)
		if n < lo || n > hi {
			return dst, false, withPath(encodeError(t.Elem, x, ErrOutOfRange), "["+strconv.Itoa(i)+"]")
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(size))
		dst = appendFixedInt(dst, t.Elem.Kind, n)
	}
	return dst, false, nil
}

func appendAddr(dst []byte, a netip.Addr) []byte {
	if a.Is4() {
		b := a.As4()
		return append(dst, b[:]...)
	}
	b := a.As16()
	return append(dst, b[:]...)
}

func appendDecimal(dst []byte, scale int32, unscaled *big.Int) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(scale))
	if unscaled == nil {
		return append(dst, 0)
	}
	return appendVarintBig(dst, unscaled)
}

func nonASCII(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return -1
}

// unixMilli returns t as milliseconds since the Unix epoch (rounding toward the past), and
// false when that does not fit in an int64 (about 292 million years from 1970).
func unixMilli(t time.Time) (int64, bool) {
	sec, frac := t.Unix(), int64(t.Nanosecond()/1e6)
	const minSec = math.MinInt64 / 1000 // rounded toward zero
	switch {
	case sec > (math.MaxInt64-frac)/1000 || sec < minSec-1:
		return 0, false
	case sec == minSec-1:
		// sec*1000 alone is below MinInt64; with frac it may not be.
		rest := (sec + 1) * 1000
		if frac-1000 < math.MinInt64-rest {
			return 0, false
		}
		return rest + frac - 1000, true
	}
	return sec*1000 + frac, true
}
