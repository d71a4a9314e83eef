package cqltype

import "reflect"

// decodeNatural decodes a non-NULL value into its natural Go type (see the
// package documentation); it returns nil for an empty value of a type where
// empty means no value.
func decodeNatural(t *Type, b []byte) (any, error) {
	if len(b) == 0 && emptyIsNull(t.Kind) {
		return nil, nil
	}
	fail := func(err error) (any, error) { return nil, decodeError(t, "interface {}", err) }
	var (
		x   any
		err error
	)
	switch t.Kind {
	case KindASCII, KindVarchar:
		return string(b), nil
	case KindBlob, KindCustom:
		return DecodeBytes(b), nil
	case KindBigint, KindCounter:
		x, err = DecodeInt64(b)
	case KindInt:
		x, err = DecodeInt32(b)
	case KindSmallint:
		x, err = DecodeInt16(b)
	case KindTinyint:
		x, err = DecodeInt8(b)
	case KindBoolean:
		x, err = DecodeBool(b)
	case KindFloat:
		x, err = DecodeFloat32(b)
	case KindDouble:
		x, err = DecodeFloat64(b)
	case KindTimestamp:
		x, err = DecodeTimestamp(b)
	case KindDate:
		x, err = DecodeDate(b)
	case KindTime:
		x, err = DecodeTime(b)
	case KindUUID, KindTimeUUID:
		x, err = DecodeUUID(b)
	case KindDuration:
		x, err = DecodeDuration(b)
	case KindVarint:
		return decodeVarintBig(b), nil
	case KindDecimal:
		x, err = decodeDecimal(b)
	case KindInet:
		x, err = decodeAddr(b)
	case KindList, KindSet, KindTuple:
		var s []any
		if err := decodeReflect(t, b, reflect.ValueOf(&s).Elem()); err != nil {
			return nil, err
		}
		return s, nil
	case KindVector:
		switch t.Elem.Kind {
		case KindFloat:
			var s []float32
			err := decodeReflect(t, b, reflect.ValueOf(&s).Elem())
			return s, err
		case KindDouble:
			var s []float64
			err := decodeReflect(t, b, reflect.ValueOf(&s).Elem())
			return s, err
		}
		var s []any
		err := decodeReflect(t, b, reflect.ValueOf(&s).Elem())
		return s, err
	case KindMap:
		var m map[any]any
		if err := decodeReflect(t, b, reflect.ValueOf(&m).Elem()); err != nil {
			return nil, err
		}
		return m, nil
	case KindUDT:
		var m map[string]any
		if err := decodeReflect(t, b, reflect.ValueOf(&m).Elem()); err != nil {
			return nil, err
		}
		return m, nil
	default:
		return fail(ErrUnsupportedGoType)
	}
	if err != nil {
		return fail(err)
	}
	return x, nil
}
