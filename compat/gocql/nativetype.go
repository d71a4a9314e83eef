package gocql

import (
	"strconv"
	"strings"

	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

const marshalPackage = "org.apache.cassandra.db.marshal."

// typeInfoOf converts a native type descriptor into gocql's TypeInfo for protocol proto.
// Vectors, which gocql v1.7.0 does not know, become custom types named by their class.
func typeInfoOf(proto byte, t *cqltype.Type) TypeInfo {
	if t == nil {
		return NewNativeType(proto, TypeCustom, "")
	}
	switch t.Kind {
	case cqltype.KindList, cqltype.KindSet:
		return CollectionType{NativeType: NewNativeType(proto, Type(t.Kind), ""), Elem: typeInfoOf(proto, t.Elem)}
	case cqltype.KindMap:
		return CollectionType{NativeType: NewNativeType(proto, TypeMap, ""), Key: typeInfoOf(proto, t.Key), Elem: typeInfoOf(proto, t.Value)}
	case cqltype.KindTuple:
		elems := make([]TypeInfo, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = typeInfoOf(proto, e)
		}
		return TupleTypeInfo{NativeType: NewNativeType(proto, TypeTuple, ""), Elems: elems}
	case cqltype.KindUDT:
		fields := make([]UDTField, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = UDTField{Name: f.Name, Type: typeInfoOf(proto, f.Type)}
		}
		return UDTTypeInfo{NativeType: NewNativeType(proto, TypeUDT, ""), KeySpace: t.Keyspace, Name: t.Name, Elements: fields}
	case cqltype.KindVector:
		return NewNativeType(proto, TypeCustom, className(t))
	case cqltype.KindCustom:
		return NewNativeType(proto, TypeCustom, t.Custom)
	}
	return NewNativeType(proto, Type(t.Kind), "")
}

// className returns the Cassandra marshal class of t (used for vectors).
func className(t *cqltype.Type) string {
	var sb strings.Builder
	writeClass(&sb, t)
	return sb.String()
}

var kindClass = map[cqltype.Kind]string{
	cqltype.KindASCII: "AsciiType", cqltype.KindBigint: "LongType", cqltype.KindBlob: "BytesType",
	cqltype.KindBoolean: "BooleanType", cqltype.KindCounter: "CounterColumnType",
	cqltype.KindDecimal: "DecimalType", cqltype.KindDouble: "DoubleType", cqltype.KindFloat: "FloatType",
	cqltype.KindInt: "Int32Type", cqltype.KindTimestamp: "TimestampType", cqltype.KindUUID: "UUIDType",
	cqltype.KindVarchar: "UTF8Type", cqltype.KindVarint: "IntegerType", cqltype.KindTimeUUID: "TimeUUIDType",
	cqltype.KindInet: "InetAddressType", cqltype.KindDate: "SimpleDateType", cqltype.KindTime: "TimeType",
	cqltype.KindSmallint: "ShortType", cqltype.KindTinyint: "ByteType", cqltype.KindDuration: "DurationType",
}

func writeClass(sb *strings.Builder, t *cqltype.Type) {
	if t.Kind == cqltype.KindCustom {
		sb.WriteString(t.Custom)
		return
	}
	if name, ok := kindClass[t.Kind]; ok {
		sb.WriteString(marshalPackage + name)
		return
	}
	switch t.Kind {
	case cqltype.KindVector:
		sb.WriteString(marshalPackage + "VectorType(")
		writeClass(sb, t.Elem)
		sb.WriteString(", " + strconv.Itoa(t.Dim) + ")")
	case cqltype.KindList, cqltype.KindSet:
		if t.Kind == cqltype.KindList {
			sb.WriteString(marshalPackage + "ListType(")
		} else {
			sb.WriteString(marshalPackage + "SetType(")
		}
		writeClass(sb, t.Elem)
		sb.WriteByte(')')
	case cqltype.KindMap:
		sb.WriteString(marshalPackage + "MapType(")
		writeClass(sb, t.Key)
		sb.WriteByte(',')
		writeClass(sb, t.Value)
		sb.WriteByte(')')
	default:
		sb.WriteString(t.String())
	}
}

// columnsOf converts native column descriptors.
func columnsOf(proto byte, cols []native.Column) []ColumnInfo {
	if len(cols) == 0 {
		return nil
	}
	out := make([]ColumnInfo, len(cols))
	for i, c := range cols {
		out[i] = ColumnInfo{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, TypeInfo: typeInfoOf(proto, c.Type)}
	}
	return out
}
