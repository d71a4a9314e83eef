package gocql

import (
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"strconv"

	"gopkg.in/inf.v0"
)

// The integer rules of gocql v1.7.0 treat the predeclared integer types
// (matched exactly) and named types based on them (matched by kind) slightly
// differently; the functions below keep those differences.

// integerOf classifies value as a signed or unsigned integer. exact reports
// whether its type is one of the predeclared integer types.
func integerOf(value interface{}) (i int64, u uint64, signed, exact, ok bool) {
	switch v := value.(type) {
	case int:
		return int64(v), 0, true, true, true
	case int8:
		return int64(v), 0, true, true, true
	case int16:
		return int64(v), 0, true, true, true
	case int32:
		return int64(v), 0, true, true, true
	case int64:
		return v, 0, true, true, true
	case uint:
		return 0, uint64(v), false, true, true
	case uint8:
		return 0, uint64(v), false, true, true
	case uint16:
		return 0, uint64(v), false, true, true
	case uint32:
		return 0, uint64(v), false, true, true
	case uint64:
		return 0, v, false, true, true
	}
	rv := reflect.ValueOf(value)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), 0, true, false, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return 0, rv.Uint(), false, false, true
	}
	return 0, 0, false, false, false
}

// marshalSmallInteger encodes tinyint (bits 8) and smallint (bits 16):
// signed values must fit the signed range, unsigned values the unsigned one
// (and are stored with the same bits), strings are parsed in base 10.
func marshalSmallInteger(info TypeInfo, value interface{}, bits int) ([]byte, error) {
	name := "tinyint"
	if bits == 16 {
		name = "smallint"
	}
	encode := func(n int64) []byte {
		if bits == 8 {
			return []byte{byte(n)}
		}
		return []byte{byte(n >> 8), byte(n)}
	}
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case string:
		n, err := strconv.ParseInt(v, 10, bits)
		if err != nil {
			return nil, marshalErrorf("can not marshal %T into %s: %v", value, info, err)
		}
		return encode(n), nil
	}
	i, u, signed, _, ok := integerOf(value)
	if !ok {
		return nil, marshalErrorf("can not marshal %T into %s", value, info)
	}
	if signed {
		min, max := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
		if i < min || i > max {
			return nil, marshalErrorf("marshal %s: value %d out of range", name, i)
		}
		return encode(i), nil
	}
	if u > uint64(1)<<bits-1 {
		return nil, marshalErrorf("marshal %s: value %d out of range", name, u)
	}
	return encode(int64(u)), nil
}

func marshalInt(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case string:
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return nil, marshalErrorf("can not marshal string to int: %s", err)
		}
		return encodeInt32(int32(n)), nil
	case uint32, uint16, uint8:
		// gocql stores these bits as they are, even above MaxInt32.
		_, u, _, _, _ := integerOf(value)
		return encodeInt32(int32(u)), nil
	}
	i, u, signed, exact, ok := integerOf(value)
	if !ok {
		return nil, marshalErrorf("can not marshal %T into %s", value, info)
	}
	if signed {
		if i < math.MinInt32 || i > math.MaxInt32 {
			return nil, marshalErrorf("marshal int: value %d out of range", i)
		}
		return encodeInt32(int32(i)), nil
	}
	limit := uint64(math.MaxUint32)
	if !exact {
		limit = math.MaxInt32 // gocql's rule for named unsigned types
	}
	if u > limit {
		return nil, marshalErrorf("marshal int: value %d out of range", u)
	}
	return encodeInt32(int32(u)), nil
}

func marshalBigInt(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case big.Int:
		return twosComplement(&v), nil
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, marshalErrorf("can not marshal string to bigint: %s", err)
		}
		return encodeInt64(n), nil
	case uint64:
		// gocql stores the bits of a uint64 as they are.
		return encodeInt64(int64(v)), nil
	}
	i, u, signed, _, ok := integerOf(value)
	if !ok {
		return nil, marshalErrorf("can not marshal %T into %s", value, info)
	}
	if signed {
		return encodeInt64(i), nil
	}
	if u > math.MaxInt64 {
		return nil, marshalErrorf("marshal bigint: value %d out of range", u)
	}
	return encodeInt64(int64(u)), nil
}

func marshalVarint(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn:
		return nil, nil
	case uint64:
		return minimalTwosComplement(new(big.Int).SetUint64(v).FillBytes(make([]byte, 9))), nil
	}
	b, err := marshalBigInt(info, value)
	if err != nil || b == nil {
		return b, err
	}
	return minimalTwosComplement(b), nil
}

// minimalTwosComplement drops leading bytes of a big-endian two's complement
// number that only repeat the sign.
func minimalTwosComplement(b []byte) []byte {
	for len(b) > 1 {
		if !(b[0] == 0 && b[1]&0x80 == 0) && !(b[0] == 0xFF && b[1]&0x80 != 0) {
			break
		}
		b = b[1:]
	}
	return b
}

// twosComplement returns the shortest big-endian two's complement encoding
// of n (one byte for zero).
func twosComplement(n *big.Int) []byte {
	switch n.Sign() {
	case 0:
		return []byte{0}
	case 1:
		b := n.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 has the bits of n inverted.
	b := new(big.Int).Sub(new(big.Int).Neg(n), big.NewInt(1)).Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xFF}, b...)
	}
	return b
}

// fromTwosComplement decodes a big-endian two's complement number into n;
// empty data is zero.
func fromTwosComplement(data []byte, n *big.Int) *big.Int {
	if n == nil {
		n = new(big.Int)
	}
	n.SetBytes(data)
	if len(data) > 0 && data[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(data))*8))
	}
	return n
}

func encodeInt32(n int32) []byte {
	return binary.BigEndian.AppendUint32(make([]byte, 0, 4), uint32(n))
}

func encodeInt64(n int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n))
}

// The fixed-width decoders return 0 for data of the wrong length, as gocql
// does.

func decodeInt8(p []byte) int8 {
	if len(p) != 1 {
		return 0
	}
	return int8(p[0])
}

func decodeInt16(p []byte) int16 {
	if len(p) != 2 {
		return 0
	}
	return int16(binary.BigEndian.Uint16(p))
}

func decodeInt32(p []byte) int32 {
	if len(p) != 4 {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

func decodeInt64(p []byte) int64 {
	if len(p) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

func unmarshalVarint(info TypeInfo, data []byte, value interface{}) error {
	switch v := value.(type) {
	case *big.Int:
		fromTwosComplement(data, v)
		return nil
	case *uint64:
		if len(data) == 9 && data[0] == 0 {
			*v = binary.BigEndian.Uint64(data[1:])
			return nil
		}
	}
	if len(data) > 8 {
		return unmarshalErrorf("unmarshal int: varint value %v out of range for %T (use big.Int)", data, value)
	}
	var n int64
	if len(data) > 0 {
		n = fromTwosComplement(data, nil).Int64()
		if len(data) == 8 {
			n = int64(binary.BigEndian.Uint64(data))
		}
	}
	return unmarshalIntLike(info, n, data, value)
}

// unsignedMask returns the mask gocql applies when it stores a fixed-width
// CQL integer in an unsigned Go integer of at least that width, and false
// when the value must instead be range-checked.
func unsignedMask(typ Type, goBits int) (uint64, bool) {
	var cqlBits int
	switch typ {
	case TypeTinyInt:
		cqlBits = 8
	case TypeSmallInt:
		cqlBits = 16
	case TypeInt:
		cqlBits = 32
	default:
		return 0, false
	}
	if cqlBits > goBits {
		return 0, false
	}
	return uint64(1)<<cqlBits - 1, true
}

// unmarshalIntLike stores n (decoded from data, which *big.Int destinations
// decode again in full) in an integer, *big.Int or *string destination.
func unmarshalIntLike(info TypeInfo, n int64, data []byte, value interface{}) error {
	switch v := value.(type) {
	case *big.Int:
		fromTwosComplement(data, v)
		return nil
	case *string:
		*v = strconv.FormatInt(n, 10)
		return nil
	}
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	exact := rv.Type().PkgPath() == ""
	switch rv.Kind() {
	case reflect.Int64:
		rv.SetInt(n)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		// int is range-checked where it has 32 bits, as gocql does.
		bits := rv.Type().Bits()
		if n < int64(-1)<<(bits-1) || n > int64(1)<<(bits-1)-1 {
			if exact {
				return unmarshalErrorf("unmarshal int: value %d out of range for %s", n, rv.Type())
			}
			return unmarshalErrorf("unmarshal int: value %d out of range", n)
		}
		rv.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		bits := rv.Type().Bits()
		if mask, ok := unsignedMask(info.Type(), bits); ok {
			rv.SetUint(uint64(n) & mask)
			return nil
		}
		if bits < 64 && (n < 0 || n > int64(1)<<bits-1) {
			if rv.Kind() == reflect.Uint {
				// A 32-bit uint: gocql shows the value as unsigned.
				return unmarshalErrorf("unmarshal int: value %d out of range for %s", uint64(n), rv.Type())
			}
			return unmarshalErrorf("unmarshal int: value %d out of range for %s", n, rv.Type())
		}
		rv.SetUint(uint64(n))
		return nil
	}
	return unmarshalErrorf("can not unmarshal %s into %T", info, value)
}

func marshalBool(info TypeInfo, value interface{}) ([]byte, error) {
	switch value.(type) {
	case unsetColumn, nil:
		return nil, nil
	}
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Bool {
		if rv.Bool() {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalBool(info TypeInfo, data []byte, value interface{}) error {
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	if rv.Kind() != reflect.Bool {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	rv.SetBool(len(data) > 0 && data[0] != 0)
	return nil
}

func marshalFloat(info TypeInfo, value interface{}) ([]byte, error) {
	switch value.(type) {
	case unsetColumn, nil:
		return nil, nil
	}
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Float32 {
		return encodeInt32(int32(math.Float32bits(float32(rv.Float())))), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalFloat(info TypeInfo, data []byte, value interface{}) error {
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	if rv.Kind() != reflect.Float32 {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	rv.SetFloat(float64(math.Float32frombits(uint32(decodeInt32(data)))))
	return nil
}

func marshalDouble(info TypeInfo, value interface{}) ([]byte, error) {
	switch value.(type) {
	case unsetColumn, nil:
		return nil, nil
	}
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Float64 {
		return encodeInt64(int64(math.Float64bits(rv.Float()))), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalDouble(info TypeInfo, data []byte, value interface{}) error {
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	if rv.Kind() != reflect.Float64 {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	rv.SetFloat(math.Float64frombits(uint64(decodeInt64(data))))
	return nil
}

func marshalDecimal(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case inf.Dec:
		unscaled := twosComplement(v.UnscaledBig())
		buf := make([]byte, 0, 4+len(unscaled))
		buf = appendInt32(buf, int32(v.Scale()))
		return append(buf, unscaled...), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalDecimal(info TypeInfo, data []byte, value interface{}) error {
	v, ok := value.(*inf.Dec)
	if !ok {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	if len(data) < 4 {
		return unmarshalErrorf("inf.Dec needs at least 4 bytes, while value has only %d", len(data))
	}
	// A new Dec replaces *v rather than v's digits being overwritten: a
	// copy of *v taken before (a scanned row appended to a slice) shares
	// those digits and keeps its value, as with gocql.
	var dec inf.Dec
	if u := fromTwosComplement(data[4:], dec.UnscaledBig()); u.Sign() == 0 {
		// Zero without digits (SetBytes leaves an empty slice of them), as gocql's and
		// inf.NewDec's zero: reflect.DeepEqual then finds them equal.
		*u = big.Int{}
	}
	dec.SetScale(inf.Scale(int32(binary.BigEndian.Uint32(data))))
	*v = dec
	return nil
}
