package gocql

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"time"

	"gopkg.in/inf.v0"
)

// Type is the identifier of a Cassandra internal data type, valued as the
// protocol's [option] id.
type Type int

// The CQL data types, valued as the native protocol's [option] ids.
const (
	TypeCustom    Type = 0x0000
	TypeAscii     Type = 0x0001
	TypeBigInt    Type = 0x0002
	TypeBlob      Type = 0x0003
	TypeBoolean   Type = 0x0004
	TypeCounter   Type = 0x0005
	TypeDecimal   Type = 0x0006
	TypeDouble    Type = 0x0007
	TypeFloat     Type = 0x0008
	TypeInt       Type = 0x0009
	TypeText      Type = 0x000A
	TypeTimestamp Type = 0x000B
	TypeUUID      Type = 0x000C
	TypeVarchar   Type = 0x000D
	TypeVarint    Type = 0x000E
	TypeTimeUUID  Type = 0x000F
	TypeInet      Type = 0x0010
	TypeDate      Type = 0x0011
	TypeTime      Type = 0x0012
	TypeSmallInt  Type = 0x0013
	TypeTinyInt   Type = 0x0014
	TypeDuration  Type = 0x0015
	TypeList      Type = 0x0020
	TypeMap       Type = 0x0021
	TypeSet       Type = 0x0022
	TypeUDT       Type = 0x0030
	TypeTuple     Type = 0x0031
)

// typeNames maps each known Type to its CQL name.
var typeNames = map[Type]string{
	TypeCustom:    "custom",
	TypeAscii:     "ascii",
	TypeBigInt:    "bigint",
	TypeBlob:      "blob",
	TypeBoolean:   "boolean",
	TypeCounter:   "counter",
	TypeDecimal:   "decimal",
	TypeDouble:    "double",
	TypeFloat:     "float",
	TypeInt:       "int",
	TypeText:      "text",
	TypeTimestamp: "timestamp",
	TypeUUID:      "uuid",
	TypeVarchar:   "varchar",
	TypeVarint:    "varint",
	TypeTimeUUID:  "timeuuid",
	TypeInet:      "inet",
	TypeDate:      "date",
	TypeTime:      "time",
	TypeSmallInt:  "smallint",
	TypeTinyInt:   "tinyint",
	TypeDuration:  "duration",
	TypeList:      "list",
	TypeMap:       "map",
	TypeSet:       "set",
	TypeTuple:     "tuple",
}

// String returns the CQL name of the type ("int", "varchar", "list", ...), or
// "unknown_type_N" for an identifier gocql has no name for (this includes
// TypeUDT, exactly as in gocql v1.7.0).
func (t Type) String() string {
	if name, ok := typeNames[t]; ok {
		return name
	}
	return fmt.Sprintf("unknown_type_%d", int(t))
}

// TypeInfo describes a Cassandra data type: its identifier, the protocol
// version values are encoded for, and for custom types the Java class name.
type TypeInfo interface {
	Type() Type
	Version() byte
	Custom() string

	// New creates a pointer to an empty version of whatever type
	// is referenced by the TypeInfo receiver.
	//
	// If there is no corresponding Go type for the CQL type, New panics.
	//
	// Deprecated: Use NewWithError instead.
	New() interface{}

	// NewWithError creates a pointer to an empty version of whatever type
	// is referenced by the TypeInfo receiver.
	//
	// If there is no corresponding Go type for the CQL type, NewWithError returns an error.
	NewWithError() (interface{}, error)
}

// NativeType is the TypeInfo of a non-parameterised CQL type (int, text,
// uuid, ...) and the common part of the parameterised ones.
type NativeType struct {
	proto  byte
	typ    Type
	custom string // only used for TypeCustom
}

// NewNativeType returns the TypeInfo of typ for protocol version proto;
// custom is the Java class name of a TypeCustom and empty otherwise.
func NewNativeType(proto byte, typ Type, custom string) NativeType {
	return NativeType{proto: proto, typ: typ, custom: custom}
}

// Type returns the CQL type identifier.
func (s NativeType) Type() Type { return s.typ }

// Version returns the protocol version the type is encoded for.
func (s NativeType) Version() byte { return s.proto }

// Custom returns the Java class name of a custom type.
func (s NativeType) Custom() string { return s.custom }

// String returns the CQL name of the type; custom types include their class.
func (s NativeType) String() string {
	if s.typ == TypeCustom {
		return fmt.Sprintf("%s(%s)", s.typ, s.custom)
	}
	return s.typ.String()
}

// NewWithError returns a pointer to a new zero value of the Go type gocql
// uses for this CQL type, or an error when there is none.
func (s NativeType) NewWithError() (interface{}, error) { return newOfType(s) }

// New is NewWithError that panics on error.
//
// Deprecated: Use NewWithError instead.
func (s NativeType) New() interface{} { return mustNew(s) }

// CollectionType is the TypeInfo of list, set and map types.
type CollectionType struct {
	NativeType
	Key  TypeInfo // only used for TypeMap
	Elem TypeInfo // only used for TypeMap, TypeList and TypeSet
}

// String returns the CQL type with its parameters, e.g. "map(varchar, int)".
func (c CollectionType) String() string {
	switch c.typ {
	case TypeMap:
		return fmt.Sprintf("%s(%s, %s)", c.typ, c.Key, c.Elem)
	case TypeList, TypeSet:
		return fmt.Sprintf("%s(%s)", c.typ, c.Elem)
	case TypeCustom:
		return fmt.Sprintf("%s(%s)", c.typ, c.custom)
	}
	return c.typ.String()
}

// NewWithError returns a pointer to a new zero slice or map of the Go
// types gocql uses for the elements.
func (c CollectionType) NewWithError() (interface{}, error) { return newOfType(c) }

// New is NewWithError that panics on error.
//
// Deprecated: Use NewWithError instead.
func (c CollectionType) New() interface{} { return mustNew(c) }

// TupleTypeInfo is the TypeInfo of a tuple type.
type TupleTypeInfo struct {
	NativeType
	Elems []TypeInfo
}

// String returns the tuple with its element types, e.g. "tuple(int, varchar)".
func (t TupleTypeInfo) String() string {
	var sb strings.Builder
	sb.WriteString(t.typ.String())
	sb.WriteByte('(')
	for i, e := range t.Elems {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%s", e)
	}
	sb.WriteByte(')')
	return sb.String()
}

// NewWithError returns a pointer to a new []interface{} with one element
// per tuple component.
func (t TupleTypeInfo) NewWithError() (interface{}, error) { return newOfType(t) }

// New is NewWithError that panics on error.
//
// Deprecated: Use NewWithError instead.
func (t TupleTypeInfo) New() interface{} { return mustNew(t) }

// UDTField is one field of a user-defined type.
type UDTField struct {
	Name string
	Type TypeInfo
}

// UDTTypeInfo is the TypeInfo of a user-defined type.
type UDTTypeInfo struct {
	NativeType
	KeySpace string
	Name     string
	Elements []UDTField
}

// String returns "keyspace.name{field=type,...}".
func (u UDTTypeInfo) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s.%s{", u.KeySpace, u.Name)
	for i, e := range u.Elements {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%s=%v", e.Name, e.Type)
	}
	sb.WriteByte('}')
	return sb.String()
}

// NewWithError returns a pointer to a new map[string]interface{}.
func (u UDTTypeInfo) NewWithError() (interface{}, error) { return newOfType(u) }

// New is NewWithError that panics on error.
//
// Deprecated: Use NewWithError instead.
func (u UDTTypeInfo) New() interface{} { return mustNew(u) }

func newOfType(t TypeInfo) (interface{}, error) {
	typ, err := goType(t)
	if err != nil {
		return nil, err
	}
	return reflect.New(typ).Interface(), nil
}

func mustNew(t TypeInfo) interface{} {
	v, err := t.NewWithError()
	if err != nil {
		// gocql v1.7.0 documents that New panics when the CQL type has no Go
		// counterpart; NewWithError is the non-panicking form.
		panic(err.Error())
	}
	return v
}

var (
	typeString   = reflect.TypeOf("")
	typeInt64    = reflect.TypeOf(int64(0))
	typeInt      = reflect.TypeOf(0)
	typeInt16    = reflect.TypeOf(int16(0))
	typeInt8     = reflect.TypeOf(int8(0))
	typeBool     = reflect.TypeOf(false)
	typeFloat32  = reflect.TypeOf(float32(0))
	typeFloat64  = reflect.TypeOf(float64(0))
	typeBytes    = reflect.TypeOf([]byte(nil))
	typeIfaces   = reflect.TypeOf([]interface{}(nil))
	typeIfaceMap = reflect.TypeOf(map[string]interface{}(nil))

	typeTime         = reflect.TypeOf(time.Time{})
	typeTimeDuration = reflect.TypeOf(time.Duration(0))
	typeInfDecPtr    = reflect.TypeOf((*inf.Dec)(nil))
	typeBigIntPtr    = reflect.TypeOf((*big.Int)(nil))
	typeUUID         = reflect.TypeOf(UUID{})
	typeDuration     = reflect.TypeOf(Duration{})
)

// goType returns the Go type gocql v1.7.0 allocates for a column of type t
// (used by NewWithError, Iter.RowData, Iter.MapScan and UDT maps).
func goType(t TypeInfo) (reflect.Type, error) {
	if t == nil {
		return nil, fmt.Errorf("cannot create Go type for a nil TypeInfo")
	}
	switch t.Type() {
	case TypeVarchar, TypeAscii, TypeInet, TypeText:
		return typeString, nil
	case TypeBigInt, TypeCounter:
		return typeInt64, nil
	case TypeTime:
		return typeTimeDuration, nil
	case TypeTimestamp, TypeDate:
		return typeTime, nil
	case TypeBlob:
		return typeBytes, nil
	case TypeBoolean:
		return typeBool, nil
	case TypeFloat:
		return typeFloat32, nil
	case TypeDouble:
		return typeFloat64, nil
	case TypeInt:
		return typeInt, nil
	case TypeSmallInt:
		return typeInt16, nil
	case TypeTinyInt:
		return typeInt8, nil
	case TypeDecimal:
		return typeInfDecPtr, nil
	case TypeUUID, TypeTimeUUID:
		return typeUUID, nil
	case TypeVarint:
		return typeBigIntPtr, nil
	case TypeDuration:
		return typeDuration, nil
	case TypeUDT:
		return typeIfaceMap, nil
	case TypeTuple:
		return typeIfaces, nil
	case TypeList, TypeSet:
		c, ok := t.(CollectionType)
		if !ok {
			return nil, fmt.Errorf("cannot create Go type for %s: TypeInfo %T is not a CollectionType", t, t)
		}
		elem, err := goType(c.Elem)
		if err != nil {
			return nil, err
		}
		return reflect.SliceOf(elem), nil
	case TypeMap:
		c, ok := t.(CollectionType)
		if !ok {
			return nil, fmt.Errorf("cannot create Go type for %s: TypeInfo %T is not a CollectionType", t, t)
		}
		key, err := goType(c.Key)
		if err != nil {
			return nil, err
		}
		elem, err := goType(c.Elem)
		if err != nil {
			return nil, err
		}
		if !key.Comparable() {
			return nil, fmt.Errorf("cannot create Go type for %s: key type %s is not comparable", t, key)
		}
		return reflect.MapOf(key, elem), nil
	}
	return nil, fmt.Errorf("cannot create Go type for unknown CQL type %s", t)
}
