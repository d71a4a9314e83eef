package difftest

import (
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	"net"
	"strconv"
	"time"

	compat "github.com/cqlbridge/cqlbridge/compat/gocql"
	legacy "github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

// Named types: gocql matches predeclared types exactly and named types by
// kind, with different rules in places.
type (
	myInt     int
	myInt8    int8
	myInt16   int16
	myInt32   int32
	myInt64   int64
	myUint    uint
	myUint8   uint8
	myUint16  uint16
	myUint32  uint32
	myUint64  uint64
	myString  string
	myBytes   []byte
	myByte    uint8
	myBool    bool
	myFloat32 float32
	myFloat64 float64
)

// compatMarshaler and legacyMarshaler are the same custom Marshaler for each
// side; the encoding shows which TypeInfo they were given.
type compatMarshaler struct{ S string }

func (m compatMarshaler) MarshalCQL(info compat.TypeInfo) ([]byte, error) {
	if m.S == "fail" {
		return nil, errors.New("marshaler failed")
	}
	return []byte(m.S + "/" + info.Type().String()), nil
}

func (m compatMarshaler) legacyValue() interface{} { return legacyMarshaler(m) }

type legacyMarshaler struct{ S string }

func (m legacyMarshaler) MarshalCQL(info legacy.TypeInfo) ([]byte, error) {
	if m.S == "fail" {
		return nil, errors.New("marshaler failed")
	}
	return []byte(m.S + "/" + info.Type().String()), nil
}

// ptrMarshaler implements Marshaler on the pointer only.
type compatPtrMarshaler struct{ S string }

func (m *compatPtrMarshaler) MarshalCQL(info compat.TypeInfo) ([]byte, error) {
	return []byte("ptr:" + m.S), nil
}

func (m compatPtrMarshaler) legacyValue() interface{} { return legacyPtrMarshaler(m) }

type legacyPtrMarshaler struct{ S string }

func (m *legacyPtrMarshaler) MarshalCQL(info legacy.TypeInfo) ([]byte, error) {
	return []byte("ptr:" + m.S), nil
}

// compatUnmarshaler and legacyUnmarshaler record what they were given.
type compatUnmarshaler struct{ Got string }

func (u *compatUnmarshaler) UnmarshalCQL(info compat.TypeInfo, data []byte) error {
	if len(data) == 1 && data[0] == 0xEE {
		return errors.New("unmarshaler failed")
	}
	u.Got = info.Type().String() + ":" + hex.EncodeToString(data)
	return nil
}

func (u compatUnmarshaler) legacyValue() interface{} { return legacyUnmarshaler(u) }

type legacyUnmarshaler struct{ Got string }

func (u *legacyUnmarshaler) UnmarshalCQL(info legacy.TypeInfo, data []byte) error {
	if len(data) == 1 && data[0] == 0xEE {
		return errors.New("unmarshaler failed")
	}
	u.Got = info.Type().String() + ":" + hex.EncodeToString(data)
	return nil
}

func native(typ compat.Type) compat.NativeType { return compat.NewNativeType(4, typ, "") }

// nativeInfos is every non-parameterised TypeInfo, plus custom types.
func nativeInfos() []compat.TypeInfo {
	var infos []compat.TypeInfo
	for _, typ := range []compat.Type{
		compat.TypeAscii, compat.TypeBigInt, compat.TypeBlob, compat.TypeBoolean, compat.TypeCounter,
		compat.TypeDecimal, compat.TypeDouble, compat.TypeFloat, compat.TypeInt, compat.TypeText,
		compat.TypeTimestamp, compat.TypeUUID, compat.TypeVarchar, compat.TypeVarint, compat.TypeTimeUUID,
		compat.TypeInet, compat.TypeDate, compat.TypeTime, compat.TypeSmallInt, compat.TypeTinyInt,
		compat.TypeDuration,
	} {
		infos = append(infos, native(typ))
	}
	return append(infos,
		compat.NewNativeType(4, compat.TypeCustom, "com.example.Custom"),
		compat.NewNativeType(2, compat.TypeCustom, "org.apache.cassandra.db.marshal.UserType(ks,61)"),
		compat.NewNativeType(3, compat.TypeInt, ""),
	)
}

var (
	sampleUUID   = compat.UUID{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	sampleUUIDv4 = compat.UUID{0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x47, 0x88, 0x97, 0xa6, 0xb5, 0xc4, 0xd3, 0xe2, 0xf1, 0x00}
	five         = 5
	fiveP        = &five
	word         = "word"
)

func bigInt(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

// scalarValues are Go values of every kind gocql's Marshal looks at.
func scalarValues() []interface{} {
	values := []interface{}{
		nil, compat.UnsetValue,
		// integers at the edges of every CQL width
		0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
		math.MaxInt32, math.MinInt32,
		int8(-128), int8(127), int16(-32768), int16(32767), int32(math.MinInt32), int32(math.MaxInt32),
		int64(1 << 40), int64(math.MinInt64), int64(-1),
		uint(0), uint(255), uint(256), uint(65535), uint(65536), uint(math.MaxUint32), uint(math.MaxUint),
		uint8(255), uint16(65535), uint32(math.MaxUint32), uint32(math.MaxInt32 + 1),
		uint64(math.MaxUint64), uint64(math.MaxInt64), uint64(math.MaxInt64 + 1), uint64(1 << 32),
		myInt(300), myInt8(-5), myInt16(-300), myInt32(-70000), myInt64(-7), myUint(70000), myUint8(200),
		myUint16(65535), myUint32(math.MaxUint32), myUint32(math.MaxInt32), myUint32(math.MaxInt32 + 1),
		myUint64(math.MaxUint64),
		// strings
		"", "0", "-1", "127", "128", "-129", "32767", "40000", "2147483648", "9223372036854775807",
		"9223372036854775808", "abc", "1.5", "2024-02-29", "1969-12-31", "2024-13-01",
		"6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6ba7b810", "127.0.0.1", "::1", "::ffff:10.0.0.1",
		"1h2m3.5s", "-90m", "ms", myString("x"), myString("12"),
		// bytes
		[]byte(nil), []byte{}, []byte{1, 2, 3, 4}, sampleUUID[:], myBytes{1}, []myByte{1, 2},
		// booleans and floats
		true, false, myBool(true),
		float32(1.5), float32(math.Inf(-1)), float64(-2.25), math.MaxFloat64, myFloat32(3), myFloat64(4),
		// big numbers
		*big.NewInt(0), big.NewInt(127), big.NewInt(128), big.NewInt(-128), big.NewInt(-129), big.NewInt(255),
		big.NewInt(-256), bigInt("1180591620717411303424"), bigInt("-1180591620717411303424"),
		bigInt("-9223372036854775809"), (*big.Int)(nil),
		inf.NewDec(12345, 2), *inf.NewDec(-1, 0), inf.NewDec(0, -3), inf.NewDecBig(bigInt("-1180591620717411303424"), 40),
		(*inf.Dec)(nil),
		// times
		time.Time{}, time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.UTC),
		time.Date(1960, 1, 1, 1, 0, 0, 500_000_000, time.UTC),
		time.Date(2024, 2, 29, 23, 30, 0, 0, time.FixedZone("east", 5*3600)),
		time.Unix(-1, 999_000_000), &time.Time{},
		time.Duration(0), 90 * time.Minute, -time.Nanosecond, time.Duration(math.MaxInt64),
		compat.Duration{Months: 1, Days: -2, Nanoseconds: 3},
		compat.Duration{Months: math.MaxInt32, Days: math.MinInt32, Nanoseconds: math.MaxInt64},
		compat.Duration{},
		// identifiers and addresses
		sampleUUID, sampleUUIDv4, [16]byte(sampleUUIDv4), &sampleUUID, (*compat.UUID)(nil),
		net.ParseIP("10.1.2.3"), net.ParseIP("2001:db8::1"), net.IP{1, 2, 3}, net.IPv4(1, 2, 3, 4).To4(), net.IP(nil),
		// pointers
		fiveP, &fiveP, (*int)(nil), (**int)(nil), &word, (*string)(nil),
		// custom marshalers
		compatMarshaler{"a"}, &compatMarshaler{"b"}, compatMarshaler{"fail"}, &compatPtrMarshaler{"c"},
		compatPtrMarshaler{"d"},
		// composite values that native types reject
		struct{ A int }{1}, []int{1}, map[string]int{"a": 1}, []interface{}{1},
	}
	return append(values, wideIntValues()...)
}

// wideIntValues are the int and uint values beyond 32 bits, on platforms where int has 64
// (none where it has 32). They are converted from variables, so this compiles on both.
func wideIntValues() []interface{} {
	if strconv.IntSize < 64 {
		return nil
	}
	i32, u32, i64, u64 := int64(math.MaxInt32), uint64(math.MaxUint32), int64(math.MaxInt64), uint64(math.MaxInt64)
	return []interface{}{
		int(i32 + 1), int(-i32 - 2), int(u32), int(u32 + 1), int(i64), int(-i64 - 1),
		uint(u32 + 1), uint(u64), uint(u64 + 1),
	}
}
