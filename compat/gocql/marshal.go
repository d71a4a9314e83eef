package gocql

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
)

// userTypeClass is the class-name prefix of user-defined types sent as custom
// types by protocol versions before 3.
const userTypeClass = "org.apache.cassandra.db.marshal.UserType"

// Marshal returns the CQL encoding of value for the type described by info,
// following gocql v1.7.0's rules for which Go types each CQL type accepts.
//
// nil, and nil pointers, encode as CQL null. A value implementing Marshaler
// encodes itself; any other pointer is dereferenced. The accepted Go types
// are, per CQL type:
//
//	varchar, ascii, blob, text  | string, []byte (and types based on them)
//	boolean                     | bool
//	tinyint, smallint, int      | integer types, string (base 10)
//	bigint, counter             | integer types, big.Int, string (base 10)
//	varint                      | integer types, big.Int, string (base 10)
//	float, double               | float32, float64
//	decimal                     | inf.Dec
//	time                        | int64 (nanoseconds since midnight), time.Duration
//	timestamp                   | int64 (milliseconds since the Unix epoch), time.Time
//	date                        | int64 (milliseconds since the epoch), time.Time, string ("2006-01-02")
//	duration                    | int64 (nanoseconds), time.Duration, Duration, string (time.ParseDuration)
//	uuid, timeuuid              | UUID, [16]byte, []byte (16 bytes), string
//	inet                        | net.IP, string
//	list, set                   | slice, array, map[X]struct{} (set members)
//	map                         | map[X]Y
//	tuple                       | []interface{}, slice, array, struct (fields in order)
//	user-defined type           | UDTMarshaler, map[string]interface{}, struct (cql tags, else field names)
//
// Where gocql v1.7.0 panics (a TypeInfo without a protocol version, a tuple
// given nil or a struct with unexported fields, ...), Marshal returns an
// error instead.
func Marshal(info TypeInfo, value interface{}) ([]byte, error) {
	if info == nil {
		return nil, marshalErrorf("can not marshal %T: nil TypeInfo", value)
	}
	if info.Version() < 1 {
		return nil, marshalErrorf("can not marshal %T into %s: protocol version not set in TypeInfo", value, info)
	}

	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Ptr {
		if rv.IsNil() {
			return nil, nil
		}
		if m, ok := value.(Marshaler); ok {
			return m.MarshalCQL(info)
		}
		return Marshal(info, rv.Elem().Interface())
	}
	if m, ok := value.(Marshaler); ok {
		return m.MarshalCQL(info)
	}

	switch info.Type() {
	case TypeVarchar, TypeAscii, TypeBlob, TypeText:
		return marshalText(info, value)
	case TypeBoolean:
		return marshalBool(info, value)
	case TypeTinyInt:
		return marshalSmallInteger(info, value, 8)
	case TypeSmallInt:
		return marshalSmallInteger(info, value, 16)
	case TypeInt:
		return marshalInt(info, value)
	case TypeBigInt, TypeCounter:
		return marshalBigInt(info, value)
	case TypeVarint:
		return marshalVarint(info, value)
	case TypeFloat:
		return marshalFloat(info, value)
	case TypeDouble:
		return marshalDouble(info, value)
	case TypeDecimal:
		return marshalDecimal(info, value)
	case TypeTime:
		return marshalTime(info, value)
	case TypeTimestamp:
		return marshalTimestamp(info, value)
	case TypeDate:
		return marshalDate(info, value)
	case TypeDuration:
		return marshalDuration(info, value)
	case TypeUUID, TypeTimeUUID:
		return marshalUUID(info, value)
	case TypeInet:
		return marshalInet(info, value)
	case TypeList, TypeSet:
		return marshalList(info, value)
	case TypeMap:
		return marshalMap(info, value)
	case TypeTuple:
		return marshalTuple(info, value)
	case TypeUDT:
		return marshalUDT(info, value)
	}

	if strings.HasPrefix(info.Custom(), userTypeClass) && info.Version() < 3 {
		return nil, ErrorUDTUnavailable
	}
	// A plain error, not a MarshalError, for a type without rules (a custom
	// type such as a vector), as gocql returns.
	return nil, fmt.Errorf("can not marshal %T into %s", value, info)
}

// Unmarshal decodes data, the CQL encoding of a value of the type described
// by info, into the value value points to, following gocql v1.7.0's rules.
//
// A value implementing Unmarshaler decodes itself. A pointer to a pointer is
// set to nil for a CQL null and to a newly allocated value otherwise; other
// destinations receive their zero value for null. The accepted destinations
// are, per CQL type:
//
//	varchar, ascii, blob, text              | *string, *[]byte (and types based on them)
//	boolean                                 | *bool
//	tinyint, smallint, int, bigint, counter | *integer types, *big.Int, *string
//	varint                                  | *integer types, *big.Int, *string
//	float, double                           | *float32, *float64
//	decimal                                 | *inf.Dec
//	time                                    | *int64, *time.Duration
//	timestamp                               | *int64, *time.Time
//	date                                    | *time.Time, *string ("2006-01-02")
//	duration                                | *Duration
//	uuid, timeuuid                          | *UUID, *[16]byte, *[]byte, *string; timeuuid also *time.Time
//	inet                                    | *net.IP, *string
//	list, set                               | *slice, *array
//	map                                     | *map[X]Y
//	tuple                                   | []interface{} of pointers, *slice, *array, *struct
//	user-defined type                       | UDTUnmarshaler, *map[string]interface{}, *struct
//
// Where gocql v1.7.0 panics (a nil destination pointer, truncated tuple or
// date data, a struct field of the wrong type, ...), Unmarshal returns an
// error instead. As in gocql, an integer decoded into a nil *big.Int is
// discarded without error, a user-defined type is decoded into a nil
// UDTUnmarshaler by calling its methods on the nil receiver, and a null with
// a nil TypeInfo sets a pointer to pointer to nil.
func Unmarshal(info TypeInfo, data []byte, value interface{}) error {
	if u, ok := value.(Unmarshaler); ok {
		if nilValueReceiver(reflect.ValueOf(value), unmarshalerType) {
			return unmarshalErrorf("can not unmarshal %v into nil pointer %T", info, value)
		}
		return u.UnmarshalCQL(info, data)
	}
	if info == nil {
		// Like gocql, a null sets a pointer to pointer to nil before the
		// TypeInfo is looked at (a tuple component or UDT field without a
		// type can still be null).
		rv := reflect.ValueOf(value)
		if rv.Kind() == reflect.Ptr && rv.Type().Elem().Kind() == reflect.Ptr && data == nil && !rv.IsNil() {
			rv.Elem().Set(reflect.Zero(rv.Type().Elem()))
			return nil
		}
		return unmarshalErrorf("can not unmarshal into %T: nil TypeInfo", value)
	}
	if unmarshalFast(info, data, value) {
		return nil
	}
	rv := reflect.ValueOf(value)
	if rv.Kind() == reflect.Ptr {
		if rv.Type().Elem().Kind() == reflect.Ptr {
			if rv.IsNil() {
				return unmarshalErrorf("can not unmarshal %s into nil pointer %T", info, value)
			}
			return unmarshalNullable(info, data, rv)
		}
		if rv.IsNil() {
			return unmarshalIntoNil(info, data, value, rv)
		}
	}
	return unmarshalByType(info, data, value)
}

// unmarshalIntoNil handles a nil destination pointer. gocql v1.7.0 mostly
// writes through it and panics; the cases where it does not are kept: a
// user-defined type given to a UDTUnmarshaler, whose methods are called on
// the nil receiver; a user-defined type given to any other pointer but a
// *map[string]interface{}, which is an error; and an integer given to a
// *big.Int, which is decoded into a throwaway big.Int without error.
func unmarshalIntoNil(info TypeInfo, data []byte, value interface{}, rv reflect.Value) error {
	if info.Type() == TypeUDT {
		if _, custom := value.(UDTUnmarshaler); custom {
			return unmarshalByType(info, data, value)
		}
		if _, isMap := value.(*map[string]interface{}); !isMap {
			// gocql finds no struct behind the nil pointer.
			return unmarshalErrorf("cannot unmarshal %s into %T", info, value)
		}
	}
	if _, ok := value.(*big.Int); ok && isIntegerType(info.Type()) {
		return unmarshalByType(info, data, new(big.Int))
	}
	// gocql fails with its usual message when the destination's type is
	// wrong and panics writing through the nil pointer otherwise: decode
	// into a scratch value to tell the two apart.
	if err := unmarshalByType(info, data, reflect.New(rv.Type().Elem()).Interface()); err != nil {
		return err
	}
	return unmarshalErrorf("can not unmarshal %s into nil pointer %T", info, value)
}

// isIntegerType reports whether t is one of the CQL integer types.
func isIntegerType(t Type) bool {
	switch t {
	case TypeInt, TypeBigInt, TypeCounter, TypeSmallInt, TypeTinyInt, TypeVarint:
		return true
	}
	return false
}

var (
	unmarshalerType    = reflect.TypeOf((*Unmarshaler)(nil)).Elem()
	udtUnmarshalerType = reflect.TypeOf((*UDTUnmarshaler)(nil)).Elem()
)

// nilValueReceiver reports whether rv is a nil pointer to a type that
// implements iface with value receivers: calling the methods through the
// pointer would panic.
func nilValueReceiver(rv reflect.Value, iface reflect.Type) bool {
	return rv.Kind() == reflect.Ptr && rv.IsNil() && rv.Type().Elem().Implements(iface)
}

// unmarshalByType applies the rules of info's CQL type.
func unmarshalByType(info TypeInfo, data []byte, value interface{}) error {
	switch info.Type() {
	case TypeVarchar, TypeAscii, TypeBlob, TypeText:
		return unmarshalText(info, data, value)
	case TypeBoolean:
		return unmarshalBool(info, data, value)
	case TypeInt:
		return unmarshalIntLike(info, int64(decodeInt32(data)), data, value)
	case TypeBigInt, TypeCounter:
		return unmarshalIntLike(info, decodeInt64(data), data, value)
	case TypeSmallInt:
		return unmarshalIntLike(info, int64(decodeInt16(data)), data, value)
	case TypeTinyInt:
		return unmarshalIntLike(info, int64(decodeInt8(data)), data, value)
	case TypeVarint:
		return unmarshalVarint(info, data, value)
	case TypeFloat:
		return unmarshalFloat(info, data, value)
	case TypeDouble:
		return unmarshalDouble(info, data, value)
	case TypeDecimal:
		return unmarshalDecimal(info, data, value)
	case TypeTime:
		return unmarshalTime(info, data, value)
	case TypeTimestamp:
		return unmarshalTimestamp(info, data, value)
	case TypeDate:
		return unmarshalDate(info, data, value)
	case TypeDuration:
		return unmarshalDuration(info, data, value)
	case TypeTimeUUID:
		return unmarshalTimeUUID(info, data, value)
	case TypeUUID:
		return unmarshalUUID(info, data, value)
	case TypeInet:
		return unmarshalInet(info, data, value)
	case TypeList, TypeSet:
		return unmarshalList(info, data, value)
	case TypeMap:
		return unmarshalMap(info, data, value)
	case TypeTuple:
		return unmarshalTuple(info, data, value)
	case TypeUDT:
		return unmarshalUDT(info, data, value)
	}

	if strings.HasPrefix(info.Custom(), userTypeClass) && info.Version() < 3 {
		return ErrorUDTUnavailable
	}
	// A plain error, not an UnmarshalError, for a type without rules (a
	// custom type such as a vector), as gocql returns.
	return fmt.Errorf("can not unmarshal %s into %T", info, value)
}

// unmarshalNullable handles a pointer-to-pointer destination: null sets the
// outer pointer's target to nil, anything else allocates and decodes.
func unmarshalNullable(info TypeInfo, data []byte, ptr reflect.Value) error {
	if data == nil {
		ptr.Elem().Set(reflect.Zero(ptr.Type().Elem()))
		return nil
	}
	fresh := reflect.New(ptr.Type().Elem().Elem())
	ptr.Elem().Set(fresh)
	return Unmarshal(info, data, fresh.Interface())
}

// pointerTarget returns the value a destination pointer points to, or the
// error gocql reports for a destination that is not a pointer (and an error
// for a nil pointer, through which gocql panics).
func pointerTarget(value interface{}) (reflect.Value, error) {
	rv := reflect.ValueOf(value)
	if rv.Kind() != reflect.Ptr {
		return reflect.Value{}, unmarshalErrorf("can not unmarshal into non-pointer %T", value)
	}
	if rv.IsNil() {
		return reflect.Value{}, unmarshalErrorf("can not unmarshal into nil pointer %T", value)
	}
	return rv.Elem(), nil
}

// appendCQLBytes appends a protocol [bytes] value: a 4-byte length, -1 for
// nil, followed by the data.
func appendCQLBytes(dst, data []byte) []byte {
	if data == nil {
		return appendInt32(dst, -1)
	}
	dst = appendInt32(dst, int32(len(data)))
	return append(dst, data...)
}

func appendInt32(dst []byte, n int32) []byte {
	return append(dst, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// readCQLBytes splits a protocol [bytes] value off the front of p. A
// negative length is null (nil). what names the enclosing value in errors.
func readCQLBytes(p []byte, what string) (value, rest []byte, err error) {
	if len(p) < 4 {
		return nil, nil, unmarshalErrorf("unmarshal %s: unexpected eof", what)
	}
	size := int(int32(uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3])))
	p = p[4:]
	if size < 0 {
		return nil, p, nil
	}
	if size > len(p) {
		return nil, nil, unmarshalErrorf("unmarshal %s: value of %d bytes but only %d remain", what, size, len(p))
	}
	return p[:size], p[size:], nil
}
