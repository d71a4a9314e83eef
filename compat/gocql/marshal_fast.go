package gocql

import "math"

// bindAsIs reports whether every value can be handed to the native core as it is (see
// bindableAsIs), so that binding them allocates nothing.
func bindAsIs(args []ColumnInfo, values []interface{}) bool {
	if len(values) > len(args) {
		return false
	}
	for i, v := range values {
		if !bindableAsIs(args[i].TypeInfo, v) {
			return false
		}
	}
	return true
}

// bindableAsIs reports whether v, bound to a marker of type info, can be passed to the native
// core unencoded: v is a plain Go value for which the native encoder produces exactly the
// bytes gocql's Marshal produces, and cannot fail. Every other value (named types, pointers,
// marshalers, out-of-range integers, named or unset values) goes through Marshal, which keeps
// gocql's conversion rules and errors.
func bindableAsIs(info TypeInfo, v interface{}) bool {
	switch info.Type() {
	case TypeInt:
		switch x := v.(type) {
		case int:
			return x >= math.MinInt32 && x <= math.MaxInt32
		case int32:
			return true
		case int64:
			return x >= math.MinInt32 && x <= math.MaxInt32
		}
	case TypeBigInt:
		switch v.(type) {
		case int, int64, int32:
			return true
		}
	case TypeVarchar, TypeText:
		_, ok := v.(string)
		return ok
	case TypeBoolean:
		_, ok := v.(bool)
		return ok
	case TypeDouble:
		_, ok := v.(float64)
		return ok
	case TypeFloat:
		_, ok := v.(float32)
		return ok
	}
	return false
}

// unmarshalFast decodes the most common column and destination pairs without reflection,
// exactly as the general rules of Unmarshal do; it reports false, having done nothing, for
// every other pair (nil pointers included).
func unmarshalFast(info TypeInfo, data []byte, value interface{}) bool {
	switch v := value.(type) {
	case *int:
		if v == nil {
			return false
		}
		switch info.Type() {
		case TypeInt:
			*v = int(decodeInt32(data))
			return true
		case TypeBigInt, TypeCounter:
			n := decodeInt64(data)
			if int64(int(n)) != n {
				return false // a 32-bit int: the general rules report the range error
			}
			*v = int(n)
			return true
		}
	case *int64:
		if v == nil {
			return false
		}
		switch info.Type() {
		case TypeInt:
			*v = int64(decodeInt32(data))
			return true
		case TypeBigInt, TypeCounter:
			*v = decodeInt64(data)
			return true
		}
	case *string:
		if v == nil {
			return false
		}
		switch info.Type() {
		case TypeVarchar, TypeAscii, TypeBlob, TypeText:
			*v = string(data)
			return true
		}
	}
	return false
}
