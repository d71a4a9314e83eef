package cqltype

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"
)

// Decode decodes the body b of a value of CQL type t into dst, which must be a
// non-nil pointer. b nil is NULL: a pointer, slice, map or interface target is
// set to nil and any other target to its zero value. For types other than text,
// ascii, blob and custom the empty value (b non-nil, length 0) is treated like
// NULL. See the package documentation for the Go types accepted for each CQL
// type. b is not retained: strings and byte slices are copied. Errors are
// *ValueError.
//
// Decoding int, bigint, smallint, tinyint, text, boolean, float, double,
// timestamp and uuid values into a pointer to the matching Go type allocates
// nothing beyond the string or byte slice itself.
func Decode(t *Type, b []byte, dst any) error {
	if t == nil {
		return &ValueError{GoType: goTypeName(dst), Decode: true, At: &Type{Kind: KindCustom, Custom: "<nil type>"},
			Err: errors.New("no CQL type given")}
	}
	if err := decodeFast(t, b, dst); err != errNoMatch {
		return finish(err, t)
	}
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return finish(decodeError(t, goTypeName(dst), fmt.Errorf("%w: the target must be a non-nil pointer", ErrUnsupportedGoType)), t)
	}
	return finish(decodeReflect(t, b, rv.Elem()), t)
}

// emptyIsNull reports whether an empty (zero-length, non-NULL) value of kind k
// means no value, as it does for every type but the string-like ones.
func emptyIsNull(k Kind) bool {
	switch k {
	case KindASCII, KindVarchar, KindBlob, KindCustom:
		return false
	}
	return true
}

// decodeInt decodes the integer kinds (and a varint that fits in 64 bits).
func decodeInt(t *Type, b []byte) (int64, error) {
	if len(b) == 0 {
		switch t.Kind {
		case KindInt, KindBigint, KindCounter, KindSmallint, KindTinyint, KindVarint:
			return 0, nil
		}
		return 0, errNoMatch
	}
	switch t.Kind {
	case KindInt:
		n, err := DecodeInt32(b)
		return int64(n), err
	case KindBigint, KindCounter:
		return DecodeInt64(b)
	case KindSmallint:
		n, err := DecodeInt16(b)
		return int64(n), err
	case KindTinyint:
		n, err := DecodeInt8(b)
		return int64(n), err
	case KindVarint:
		n, ok := varintInt64(b)
		if !ok {
			return 0, outOfRange("varint of %d bytes does not fit in 64 bits", len(b))
		}
		return n, nil
	}
	return 0, errNoMatch
}

// decodeFast handles the common pointer targets without reflection. It returns
// errNoMatch when it has no case for dst and t.
func decodeFast(t *Type, b []byte, dst any) error {
	switch d := dst.(type) {
	case *string:
		if d == nil {
			return errNoMatch
		}
		switch t.Kind {
		case KindVarchar, KindASCII, KindBlob:
			*d = string(b)
			return nil
		}
	case *[]byte:
		if d == nil {
			return errNoMatch
		}
		switch t.Kind {
		case KindVarchar, KindASCII, KindBlob, KindCustom:
			*d = DecodeBytes(b)
			return nil
		}
	case *int:
		if d == nil {
			return errNoMatch
		}
		n, err := decodeInt(t, b)
		if err == nil && (n < math.MinInt || n > math.MaxInt) {
			err = ErrOutOfRange
		}
		return setOrFail(t, "int", err, func() { *d = int(n) })
	case *int64:
		if d == nil {
			return errNoMatch
		}
		n, err := decodeInt(t, b)
		if err == errNoMatch && t.Kind == KindTimestamp {
			var ts int64
			ts, err = DecodeInt64(b)
			n = ts
		}
		return setOrFail(t, "int64", err, func() { *d = n })
	case *int32:
		if d == nil {
			return errNoMatch
		}
		n, err := decodeInt(t, b)
		if err == nil && (n < math.MinInt32 || n > math.MaxInt32) {
			err = outOfRange("%d", n)
		}
		return setOrFail(t, "int32", err, func() { *d = int32(n) })
	case *int16:
		if d == nil {
			return errNoMatch
		}
		n, err := decodeInt(t, b)
		if err == nil && (n < math.MinInt16 || n > math.MaxInt16) {
			err = outOfRange("%d", n)
		}
		return setOrFail(t, "int16", err, func() { *d = int16(n) })
	case *int8:
		if d == nil {
			return errNoMatch
		}
		n, err := decodeInt(t, b)
		if err == nil && (n < math.MinInt8 || n > math.MaxInt8) {
			err = outOfRange("%d", n)
		}
		return setOrFail(t, "int8", err, func() { *d = int8(n) })
	case *bool:
		if d == nil {
			return errNoMatch
		}
		if t.Kind == KindBoolean {
			v, err := DecodeBool(b)
			return setOrFail(t, "bool", err, func() { *d = v })
		}
	case *float64:
		if d == nil {
			return errNoMatch
		}
		switch t.Kind {
		case KindDouble:
			v, err := DecodeFloat64(b)
			return setOrFail(t, "float64", err, func() { *d = v })
		case KindFloat:
			v, err := DecodeFloat32(b)
			return setOrFail(t, "float64", err, func() { *d = float64(v) })
		}
	case *float32:
		if d == nil {
			return errNoMatch
		}
		if t.Kind == KindFloat {
			v, err := DecodeFloat32(b)
			return setOrFail(t, "float32", err, func() { *d = v })
		}
	case *time.Time:
		if d == nil {
			return errNoMatch
		}
		switch t.Kind {
		case KindTimestamp:
			v, err := DecodeTimestamp(b)
			return setOrFail(t, "time.Time", err, func() { *d = v })
		case KindDate:
			v, err := DecodeDate(b)
			return setOrFail(t, "time.Time", err, func() {
				if len(b) == 0 {
					*d = time.Time{}
				} else {
					*d = v.Time()
				}
			})
		}
	case *UUID:
		if d == nil {
			return errNoMatch
		}
		switch t.Kind {
		case KindUUID, KindTimeUUID:
			v, err := DecodeUUID(b)
			return setOrFail(t, "cqltype.UUID", err, func() { *d = v })
		}
	case *[]float32:
		if d == nil {
			return errNoMatch
		}
		if t.Kind == KindVector && t.Elem.Kind == KindFloat {
			if len(b) == 0 {
				*d = nil
				return nil
			}
			if t.Dim <= 0 || t.Dim > len(b) || len(b) != 4*t.Dim {
				return decodeError(t, "[]float32", malformed("vector<float, %d> needs 4 bytes per element, got %d bytes", t.Dim, len(b)))
			}
			s := make([]float32, t.Dim)
			for i := range s {
				s[i] = math.Float32frombits(binary.BigEndian.Uint32(b[4*i:]))
			}
			*d = s
			return nil
		}
	case Unmarshaler: // last: the concrete cases above are cheaper to test
		if rv := reflect.ValueOf(d); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return errNoMatch
		}
		if err := d.UnmarshalCQL(t, b); err != nil {
			return decodeError(t, goTypeName(dst), err)
		}
		return nil
	}
	return errNoMatch
}

// setOrFail runs set when err is nil and turns err into a *ValueError otherwise.
func setOrFail(t *Type, goType string, err error, set func()) error {
	if err == errNoMatch {
		return errNoMatch
	}
	if err != nil {
		return decodeError(t, goType, err)
	}
	set()
	return nil
}
