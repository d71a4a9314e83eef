package gocql

import (
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
		return NewNativeType(proto, TypeCustom, t.Class()) // as the server spelled it, as gocql keeps it
	case cqltype.KindCustom:
		return NewNativeType(proto, TypeCustom, t.Custom)
	}
	return NewNativeType(proto, Type(t.Kind), "")
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
