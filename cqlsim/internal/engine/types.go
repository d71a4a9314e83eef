package engine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// kindVector is a synthetic type code for vector<elem, dim> (a custom type on the wire).
const kindVector primitive.DataTypeCode = 0x1000

const vectorClass = "org.apache.cassandra.db.marshal.VectorType"

// ctype is the engine's view of a CQL type.
type ctype struct {
	code   primitive.DataTypeCode
	elem   *ctype   // list, set, vector
	key    *ctype   // map
	val    *ctype   // map
	elems  []*ctype // tuple elements, UDT field types
	fields []string // UDT field names
	ks     string   // UDT keyspace
	name   string   // UDT name
	frozen bool
	dim    int
	custom string
}

var nativeTypes = map[string]primitive.DataTypeCode{
	"ascii": primitive.DataTypeCodeAscii, "bigint": primitive.DataTypeCodeBigint, "blob": primitive.DataTypeCodeBlob,
	"boolean": primitive.DataTypeCodeBoolean, "counter": primitive.DataTypeCodeCounter, "date": primitive.DataTypeCodeDate,
	"decimal": primitive.DataTypeCodeDecimal, "double": primitive.DataTypeCodeDouble, "duration": primitive.DataTypeCodeDuration,
	"float": primitive.DataTypeCodeFloat, "inet": primitive.DataTypeCodeInet, "int": primitive.DataTypeCodeInt,
	"smallint": primitive.DataTypeCodeSmallint, "text": primitive.DataTypeCodeVarchar, "varchar": primitive.DataTypeCodeVarchar,
	"time": primitive.DataTypeCodeTime, "timestamp": primitive.DataTypeCodeTimestamp, "timeuuid": primitive.DataTypeCodeTimeuuid,
	"tinyint": primitive.DataTypeCodeTinyint, "uuid": primitive.DataTypeCodeUuid, "varint": primitive.DataTypeCodeVarint,
}

var nativeNames = map[primitive.DataTypeCode]string{
	primitive.DataTypeCodeAscii: "ascii", primitive.DataTypeCodeBigint: "bigint", primitive.DataTypeCodeBlob: "blob",
	primitive.DataTypeCodeBoolean: "boolean", primitive.DataTypeCodeCounter: "counter", primitive.DataTypeCodeDate: "date",
	primitive.DataTypeCodeDecimal: "decimal", primitive.DataTypeCodeDouble: "double", primitive.DataTypeCodeDuration: "duration",
	primitive.DataTypeCodeFloat: "float", primitive.DataTypeCodeInet: "inet", primitive.DataTypeCodeInt: "int",
	primitive.DataTypeCodeSmallint: "smallint", primitive.DataTypeCodeVarchar: "text", primitive.DataTypeCodeTime: "time",
	primitive.DataTypeCodeTimestamp: "timestamp", primitive.DataTypeCodeTimeuuid: "timeuuid", primitive.DataTypeCodeTinyint: "tinyint",
	primitive.DataTypeCodeUuid: "uuid", primitive.DataTypeCodeVarint: "varint",
}

// javaClass names the marshal class of native types (used for vector element classes).
var javaClass = map[primitive.DataTypeCode]string{
	primitive.DataTypeCodeAscii: "AsciiType", primitive.DataTypeCodeBigint: "LongType", primitive.DataTypeCodeBlob: "BytesType",
	primitive.DataTypeCodeBoolean: "BooleanType", primitive.DataTypeCodeDate: "SimpleDateType", primitive.DataTypeCodeDecimal: "DecimalType",
	primitive.DataTypeCodeDouble: "DoubleType", primitive.DataTypeCodeDuration: "DurationType", primitive.DataTypeCodeFloat: "FloatType",
	primitive.DataTypeCodeInet: "InetAddressType", primitive.DataTypeCodeInt: "Int32Type", primitive.DataTypeCodeSmallint: "ShortType",
	primitive.DataTypeCodeVarchar: "UTF8Type", primitive.DataTypeCodeTime: "TimeType", primitive.DataTypeCodeTimestamp: "TimestampType",
	primitive.DataTypeCodeTimeuuid: "TimeUUIDType", primitive.DataTypeCodeTinyint: "ByteType", primitive.DataTypeCodeUuid: "UUIDType",
	primitive.DataTypeCodeVarint: "IntegerType", primitive.DataTypeCodeCounter: "CounterColumnType",
}

func native(code primitive.DataTypeCode) *ctype { return &ctype{code: code} }

var (
	tText      = native(primitive.DataTypeCodeVarchar)
	tInt       = native(primitive.DataTypeCodeInt)
	tBigint    = native(primitive.DataTypeCodeBigint)
	tBoolean   = native(primitive.DataTypeCodeBoolean)
	tUUID      = native(primitive.DataTypeCodeUuid)
	tBlob      = native(primitive.DataTypeCodeBlob)
	tTimestamp = native(primitive.DataTypeCodeTimestamp)
)

func listOf(e *ctype) *ctype   { return &ctype{code: primitive.DataTypeCodeList, elem: e} }
func setOf(e *ctype) *ctype    { return &ctype{code: primitive.DataTypeCodeSet, elem: e} }
func mapOf(k, v *ctype) *ctype { return &ctype{code: primitive.DataTypeCodeMap, key: k, val: v} }

// isCollection reports list, set and map types.
func (t *ctype) isCollection() bool {
	return t.code == primitive.DataTypeCodeList || t.code == primitive.DataTypeCodeSet || t.code == primitive.DataTypeCodeMap
}

// multiCell reports whether the type is a non-frozen collection or UDT (updated piecewise).
func (t *ctype) multiCell() bool {
	return (t.isCollection() || t.code == primitive.DataTypeCodeUdt) && !t.frozen
}

func (t *ctype) isCounter() bool { return t.code == primitive.DataTypeCodeCounter }

// dataType converts to the protocol type descriptor.
func (t *ctype) dataType() datatype.DataType {
	switch t.code {
	case primitive.DataTypeCodeList:
		return datatype.NewList(t.elem.dataType())
	case primitive.DataTypeCodeSet:
		return datatype.NewSet(t.elem.dataType())
	case primitive.DataTypeCodeMap:
		return datatype.NewMap(t.key.dataType(), t.val.dataType())
	case primitive.DataTypeCodeTuple:
		el := make([]datatype.DataType, len(t.elems))
		for i, e := range t.elems {
			el[i] = e.dataType()
		}
		return datatype.NewTuple(el...)
	case primitive.DataTypeCodeUdt:
		el := make([]datatype.DataType, len(t.elems))
		for i, e := range t.elems {
			el[i] = e.dataType()
		}
		u, _ := datatype.NewUserDefined(t.ks, t.name, append([]string(nil), t.fields...), el)
		return u
	case kindVector:
		return datatype.NewCustom(t.marshalClass())
	case primitive.DataTypeCodeCustom:
		return datatype.NewCustom(t.custom)
	}
	if d, ok := nativeDataTypes[t.code]; ok {
		return d
	}
	return datatype.Blob
}

var nativeDataTypes = map[primitive.DataTypeCode]datatype.DataType{
	primitive.DataTypeCodeAscii: datatype.Ascii, primitive.DataTypeCodeBigint: datatype.Bigint, primitive.DataTypeCodeBlob: datatype.Blob,
	primitive.DataTypeCodeBoolean: datatype.Boolean, primitive.DataTypeCodeCounter: datatype.Counter, primitive.DataTypeCodeDate: datatype.Date,
	primitive.DataTypeCodeDecimal: datatype.Decimal, primitive.DataTypeCodeDouble: datatype.Double, primitive.DataTypeCodeDuration: datatype.Duration,
	primitive.DataTypeCodeFloat: datatype.Float, primitive.DataTypeCodeInet: datatype.Inet, primitive.DataTypeCodeInt: datatype.Int,
	primitive.DataTypeCodeSmallint: datatype.Smallint, primitive.DataTypeCodeVarchar: datatype.Varchar, primitive.DataTypeCodeTime: datatype.Time,
	primitive.DataTypeCodeTimestamp: datatype.Timestamp, primitive.DataTypeCodeTimeuuid: datatype.Timeuuid, primitive.DataTypeCodeTinyint: datatype.Tinyint,
	primitive.DataTypeCodeUuid: datatype.Uuid, primitive.DataTypeCodeVarint: datatype.Varint,
}

// marshalClass renders the Java marshal class of the type (used for custom vector types).
func (t *ctype) marshalClass() string {
	const p = "org.apache.cassandra.db.marshal."
	switch t.code {
	case kindVector:
		// " , " as Cassandra 5.0 spells it (VectorType(...FloatType , 3))
		return fmt.Sprintf("%s(%s , %d)", vectorClass, t.elem.marshalClass(), t.dim)
	case primitive.DataTypeCodeList:
		return p + "ListType(" + t.elem.marshalClass() + ")"
	case primitive.DataTypeCodeSet:
		return p + "SetType(" + t.elem.marshalClass() + ")"
	case primitive.DataTypeCodeMap:
		return p + "MapType(" + t.key.marshalClass() + "," + t.val.marshalClass() + ")"
	}
	if c, ok := javaClass[t.code]; ok {
		return p + c
	}
	return p + "BytesType"
}

// String renders the type in CQL syntax as system_schema shows it.
func (t *ctype) String() string {
	var s string
	switch t.code {
	case primitive.DataTypeCodeList:
		s = "list<" + t.elem.String() + ">"
	case primitive.DataTypeCodeSet:
		s = "set<" + t.elem.String() + ">"
	case primitive.DataTypeCodeMap:
		s = "map<" + t.key.String() + ", " + t.val.String() + ">"
	case primitive.DataTypeCodeTuple:
		parts := make([]string, len(t.elems))
		for i, e := range t.elems {
			parts[i] = e.String()
		}
		return "frozen<tuple<" + strings.Join(parts, ", ") + ">>"
	case primitive.DataTypeCodeUdt:
		s = quoteIdent(t.name)
	case kindVector:
		return "vector<" + t.elem.String() + ", " + strconv.Itoa(t.dim) + ">"
	case primitive.DataTypeCodeCustom:
		return "'" + t.custom + "'"
	default:
		return nativeNames[t.code]
	}
	if t.frozen {
		return "frozen<" + s + ">"
	}
	return s
}

// plainString renders the type without frozen<> wrappers (used in error messages).
func (t *ctype) plainString() string {
	switch t.code {
	case primitive.DataTypeCodeList:
		return "list<" + t.elem.plainString() + ">"
	case primitive.DataTypeCodeSet:
		return "set<" + t.elem.plainString() + ">"
	case primitive.DataTypeCodeMap:
		return "map<" + t.key.plainString() + ", " + t.val.plainString() + ">"
	case primitive.DataTypeCodeTuple:
		parts := make([]string, len(t.elems))
		for i, e := range t.elems {
			parts[i] = e.plainString()
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	case primitive.DataTypeCodeUdt:
		return t.ks + "." + t.name
	}
	return t.String()
}

func quoteIdent(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9' && i > 0)) {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return s
}

// fixedSize returns the encoded size of fixed-length types (0 for variable-length ones). A
// vector of vectors whose size does not fit in an int reports math.MaxInt, a size no value
// has, instead of a wrapped-around product.
func (t *ctype) fixedSize() int {
	switch t.code {
	case primitive.DataTypeCodeInt, primitive.DataTypeCodeFloat, primitive.DataTypeCodeDate:
		return 4
	case primitive.DataTypeCodeBigint, primitive.DataTypeCodeCounter, primitive.DataTypeCodeDouble,
		primitive.DataTypeCodeTimestamp, primitive.DataTypeCodeTime:
		return 8
	case primitive.DataTypeCodeUuid, primitive.DataTypeCodeTimeuuid:
		return 16
	case primitive.DataTypeCodeSmallint:
		return 2
	case primitive.DataTypeCodeTinyint, primitive.DataTypeCodeBoolean:
		return 1
	case kindVector:
		if n := t.elem.fixedSize(); n > 0 && t.dim > 0 {
			if n > math.MaxInt/t.dim {
				return math.MaxInt
			}
			return n * t.dim
		}
	}
	return 0
}

// typeResolver finds user-defined types of a keyspace.
type typeResolver func(ks, name string) (*ctype, bool)

// resolveType turns a parsed type into a ctype; inCollection enforces frozen-ness rules.
func resolveType(te *cql.TypeExpr, ks string, udts typeResolver, inCollection bool) (*ctype, error) {
	// Without their <...> arguments, frozen, vector and tuple (like list, set and map) name a
	// user-defined type, as in Cassandra: the switch breaks to the lookup below.
	switch te.Name {
	case "frozen":
		if len(te.Args) != 1 {
			break
		}
		inner, err := resolveType(te.Args[0], ks, udts, false)
		if err != nil {
			return nil, err
		}
		if !inner.isCollection() && inner.code != primitive.DataTypeCodeUdt && inner.code != primitive.DataTypeCodeTuple {
			return nil, invalid("frozen<> is only allowed on collections, tuples, and user-defined types")
		}
		return freezeDeep(inner), nil
	case "list", "set":
		if len(te.Args) != 1 {
			break
		}
		e, err := resolveType(te.Args[0], ks, udts, true)
		if err != nil {
			return nil, err
		}
		if e.code == primitive.DataTypeCodeCounter {
			return nil, invalid("Counters are not allowed inside collections: %s<%s>", te.Name, e.plainString())
		}
		if te.Name == "list" {
			return listOf(e), nil
		}
		return setOf(e), nil
	case "map":
		if len(te.Args) != 2 {
			break
		}
		k, err := resolveType(te.Args[0], ks, udts, true)
		if err != nil {
			return nil, err
		}
		v, err := resolveType(te.Args[1], ks, udts, true)
		if err != nil {
			return nil, err
		}
		if k.code == primitive.DataTypeCodeCounter || v.code == primitive.DataTypeCodeCounter {
			return nil, invalid("Counters are not allowed inside collections: map<%s, %s>", k.plainString(), v.plainString())
		}
		return mapOf(k, v), nil
	case "tuple":
		if len(te.Args) == 0 {
			break
		}
		tt := &ctype{code: primitive.DataTypeCodeTuple, frozen: true}
		for _, a := range te.Args {
			e, err := resolveType(a, ks, udts, false)
			if err != nil {
				return nil, err
			}
			if e.code == primitive.DataTypeCodeCounter {
				return nil, invalid("Counters are not allowed inside tuples")
			}
			tt.elems = append(tt.elems, freezeDeep(e))
		}
		return tt, nil
	case "vector":
		if len(te.Args) != 1 {
			break
		}
		e, err := resolveType(te.Args[0], ks, udts, true)
		if err != nil {
			return nil, err
		}
		return &ctype{code: kindVector, elem: e, dim: te.Dim, frozen: true}, nil
	}
	if te.Keyspace == "" && len(te.Args) == 0 {
		if c, ok := nativeTypes[te.Name]; ok {
			return native(c), nil
		}
	}
	uks := ks
	if te.Keyspace != "" {
		uks = te.Keyspace
	}
	if udts != nil {
		if u, ok := udts(uks, te.Name); ok {
			if inCollection {
				return nil, invalid("Non-frozen UDTs are not allowed inside collections: %s", te.Name)
			}
			return u, nil
		}
	}
	return nil, invalid("Unknown type %s.%s", uks, te.Name)
}

// usesUDT reports whether t is or holds the user type u (same keyspace and name).
func usesUDT(t, u *ctype) bool {
	switch {
	case t == nil:
		return false
	case t.code == primitive.DataTypeCodeUdt && t.ks == u.ks && t.name == u.name:
		return true
	}
	return usesUDT(t.elem, u) || usesUDT(t.key, u) || usesUDT(t.val, u) ||
		slices.ContainsFunc(t.elems, func(e *ctype) bool { return usesUDT(e, u) })
}

// udtName renders a user type as Cassandra names it in messages about its fields: without its
// keyspace, in frozen<> when frozen.
func udtName(t *ctype) string {
	if t.frozen {
		return "frozen<" + t.name + ">"
	}
	return t.name
}

// replaceUDT returns t with every occurrence of the user type u (same keyspace and name)
// replaced by u's current definition, keeping frozen-ness.
func replaceUDT(t, u *ctype) *ctype {
	if t == nil {
		return nil
	}
	if t.code == primitive.DataTypeCodeUdt && t.ks == u.ks && t.name == u.name {
		if t.frozen {
			return freezeDeep(u)
		}
		return u
	}
	c := *t
	c.elem, c.key, c.val = replaceUDT(t.elem, u), replaceUDT(t.key, u), replaceUDT(t.val, u)
	if t.elems != nil {
		c.elems = make([]*ctype, len(t.elems))
		for i, e := range t.elems {
			c.elems[i] = replaceUDT(e, u)
		}
	}
	return &c
}

// padUDTs makes a value of a non-frozen UDT column carry every field of its current type:
// Cassandra serialises such a value from its cells, so fields added by ALTER TYPE read as null.
// Frozen UDT values (columns, and elements of collections, tuples and UDTs) are returned as
// they were stored, without the added fields, as Cassandra returns them.
func padUDTs(t *ctype, b []byte) []byte {
	if b == nil || t.code != primitive.DataTypeCodeUdt || t.frozen {
		return b
	}
	fs, err := decodeFields(b, len(t.elems))
	if err != nil {
		return b
	}
	return encodeFields(fs)
}

// checkNested rejects non-frozen collections inside collections, and non-frozen UDTs whose
// fields are non-frozen collections.
func checkNested(t *ctype) error {
	if t.code == primitive.DataTypeCodeUdt && !t.frozen {
		for _, f := range t.elems {
			if f.multiCell() {
				return invalid("Non-frozen UDTs with nested non-frozen collections are not supported")
			}
		}
	}
	outer := t
	var walk func(t *ctype, inside bool) error
	walk = func(t *ctype, inside bool) error {
		if inside && t.multiCell() {
			if t.code == primitive.DataTypeCodeUdt {
				return invalid("Non-frozen UDTs are not allowed inside collections: %s", outer.String())
			}
			return invalid("Non-frozen collections are not allowed inside collections: %s", outer.String())
		}
		switch {
		case t.isCollection():
			if t.elem != nil {
				if err := walk(t.elem, true); err != nil {
					return err
				}
			}
			if t.key != nil {
				if err := walk(t.key, true); err != nil {
					return err
				}
				if err := walk(t.val, true); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(t, false)
}

func freezeDeep(t *ctype) *ctype {
	c := *t
	c.frozen = true
	if c.elem != nil {
		c.elem = freezeDeep(c.elem)
	}
	if c.key != nil {
		c.key = freezeDeep(c.key)
		c.val = freezeDeep(c.val)
	}
	if c.elems != nil {
		c.elems = make([]*ctype, len(t.elems))
		for i, e := range t.elems {
			c.elems[i] = freezeDeep(e)
		}
	}
	if c.code == primitive.DataTypeCodeTuple {
		c.frozen = true
	}
	return &c
}
