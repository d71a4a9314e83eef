package gocql

import (
	"strings"

	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

const marshalPackage = "org.apache.cassandra.db.marshal."

// typeInfoOf converts a native type descriptor into gocql's TypeInfo for protocol proto.
// Vectors, which gocql v1.7.0 does not know, become custom types named by their class. A type
// the server described by its class name keeps the class as Custom(), as in gocql v1.7.0; one
// the native core does not read by its class is read as gocql v1.7.0 reads it (classTypeInfo).
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
		return classTypeInfo(proto, t.Custom)
	}
	// ServerClass is the class of a type the server described by it (a duration under
	// protocol v4, a time under v3), and empty otherwise. gocql v1.7.0 keeps a class it reads
	// as a type as Custom(); one it does not (SimpleDateType at v3) leaves it custom, where the
	// shim reads it as its type with an empty Custom() (docs/deviations.md G25).
	custom := ""
	if _, ok := classTypes[strings.TrimPrefix(t.ServerClass, marshalPackage)]; ok {
		custom = t.ServerClass
	}
	return NewNativeType(proto, Type(t.Kind), custom)
}

// classTypeInfo is the TypeInfo gocql v1.7.0's frame parser gives a custom type of class
// class that the native core does not read as a type: a class gocql knows as a CQL type
// without parameters (LexicalUUIDType as uuid) is that type, any other class TypeCustom; both
// keep the class as Custom(). compat had LexicalUUIDType a custom type, and refused to marshal
// a UUID for it ("can not marshal gocql.UUID into custom(...LexicalUUIDType)"), which gocql
// takes.
func classTypeInfo(proto byte, class string) NativeType {
	typ, ok := classTypes[strings.TrimPrefix(class, marshalPackage)]
	switch {
	case !ok, typ == TypeMap, typ == TypeList, typ == TypeSet, typ == TypeTuple:
		// gocql would read the collection's parameters from the frame after the class; no
		// server describes a collection so.
		typ = TypeCustom
	}
	return NewNativeType(proto, typ, class)
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
