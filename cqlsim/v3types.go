package cqlsim

import (
	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// v3ClassNames are the types protocol v3 has no code for (v4 added date, time, smallint and
// tinyint): Cassandra describes them to a v3 client as custom types named by their class.
var v3ClassNames = map[primitive.DataTypeCode]string{
	primitive.DataTypeCodeDate:     "org.apache.cassandra.db.marshal.SimpleDateType",
	primitive.DataTypeCodeTime:     "org.apache.cassandra.db.marshal.TimeType",
	primitive.DataTypeCodeSmallint: "org.apache.cassandra.db.marshal.ShortType",
	primitive.DataTypeCodeTinyint:  "org.apache.cassandra.db.marshal.ByteType",
}

// typeFor returns t as a client speaking protocol version sees it: t itself from v4 on; below,
// the types v3 has no code for, at any depth, as Cassandra's custom types (see v3ClassNames).
func typeFor(t datatype.DataType, version uint8) datatype.DataType {
	if version >= 4 || t == nil {
		return t
	}
	switch tt := t.(type) {
	case *datatype.List:
		if e := typeFor(tt.ElementType, version); e != tt.ElementType {
			return datatype.NewList(e)
		}
	case *datatype.Set:
		if e := typeFor(tt.ElementType, version); e != tt.ElementType {
			return datatype.NewSet(e)
		}
	case *datatype.Map:
		k, v := typeFor(tt.KeyType, version), typeFor(tt.ValueType, version)
		if k != tt.KeyType || v != tt.ValueType {
			return datatype.NewMap(k, v)
		}
	case *datatype.Tuple:
		if fs, changed := typesFor(tt.FieldTypes, version); changed {
			return datatype.NewTuple(fs...)
		}
	case *datatype.UserDefined:
		if fs, changed := typesFor(tt.FieldTypes, version); changed {
			return &datatype.UserDefined{Keyspace: tt.Keyspace, Name: tt.Name, FieldNames: tt.FieldNames, FieldTypes: fs}
		}
	default:
		if class, ok := v3ClassNames[t.Code()]; ok {
			return datatype.NewCustom(class)
		}
	}
	return t
}

// typesFor applies typeFor to each of ts, and reports whether any changed.
func typesFor(ts []datatype.DataType, version uint8) ([]datatype.DataType, bool) {
	out := make([]datatype.DataType, len(ts))
	changed := false
	for i, t := range ts {
		out[i] = typeFor(t, version)
		changed = changed || out[i] != t
	}
	return out, changed
}
