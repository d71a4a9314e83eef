package engine

import (
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// containsOperand returns the type and the name Cassandra gives the value of an IF condition
// col CONTAINS v or col CONTAINS KEY v (Cassandra 5.0): an element of a list or set, a value of
// a map for CONTAINS, a key of a map for CONTAINS KEY; frozen collections as well.
func containsOperand(col *column, op cql.Operator) (*ctype, string, error) {
	ty := col.typ
	if op == cql.OpContKey {
		if ty.code != primitive.DataTypeCodeMap {
			return nil, "", invalid("Cannot use CONTAINS KEY on non-map column %s", col.name)
		}
		return ty.key, "key(" + col.name + ")", nil
	}
	switch ty.code {
	case primitive.DataTypeCodeList, primitive.DataTypeCodeSet:
		return ty.elem, "value(" + col.name + ")", nil
	case primitive.DataTypeCodeMap:
		return ty.val, "value(" + col.name + ")", nil
	}
	return nil, "", invalid("Cannot use CONTAINS on non-collection column %s", col.name)
}

// containsHolds evaluates col CONTAINS v or col CONTAINS KEY v against the column's current
// value cur (of type ty): false when the collection is null (or empty).
func containsHolds(op cql.Operator, ty *ctype, cur, v []byte) bool {
	if cur == nil || v == nil {
		return false
	}
	if ty.code == primitive.DataTypeCodeMap {
		keys, vals, err := decodeMap(cur)
		if err != nil {
			return false
		}
		in, et := vals, ty.val
		if op == cql.OpContKey {
			in, et = keys, ty.key
		}
		return anyEqual(et, in, v)
	}
	elems, err := decodeElems(cur)
	return err == nil && anyEqual(ty.elem, elems, v)
}

func anyEqual(ty *ctype, in [][]byte, v []byte) bool {
	for _, x := range in {
		if x != nil && compareValues(ty, x, v) == 0 {
			return true
		}
	}
	return false
}

// checkElementKey rejects, as Cassandra 5.0 does, a null map key or list index, or a negative
// list index, in an IF condition col[key] op v. An unset list index fails with the server
// error Cassandra 5.0.9 answers (an unset map key matches no key).
func checkElementKey(ty *ctype, key termResult) error {
	kind := "map"
	if ty.code == primitive.DataTypeCodeList {
		kind = "list"
	}
	if key.unset {
		if kind == "list" {
			return &Error{Code: CodeServerError, Message: "java.lang.IndexOutOfBoundsException"}
		}
		return nil
	}
	if key.b == nil {
		return invalid("Invalid null value for %s element access", kind)
	}
	if kind == "list" && len(key.b) == 4 {
		if idx := int32(beUint64(key.b)); idx < 0 {
			return invalid("Invalid negative list index %d", idx)
		}
	}
	return nil
}
