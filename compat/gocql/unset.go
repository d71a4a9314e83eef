package gocql

// unsetColumn is the type of UnsetValue.
type unsetColumn struct{}

// UnsetValue leaves the column unset when bound as a query value: Cassandra
// ignores it instead of writing a null (protocol version 4 and later). It is
// not accepted inside tuples and user-defined types.
var UnsetValue = unsetColumn{}

// isUnset reports whether v is UnsetValue; binding code sends it as the
// protocol's "not set" value (length -2) instead of marshalling it.
func isUnset(v interface{}) bool {
	_, ok := v.(unsetColumn)
	return ok
}
