package engine

import "github.com/datastax/go-cassandra-native-protocol/primitive"

// elementKeyError is Cassandra 5.0's refusal of a null or unset map key, list index or set
// element in an assignment col[key] = v or (with deletion) a DELETE col[key]. An unset list
// index or set element in a DELETE deletes nothing, and is no error.
func elementKeyError(t *ctype, key termResult, deletion bool) error {
	if key.b != nil && !key.unset {
		return nil
	}
	switch t.code {
	case primitive.DataTypeCodeMap:
		if key.unset {
			return invalid("Invalid unset map key")
		}
		return invalid("Invalid null map key")
	case primitive.DataTypeCodeSet:
		if key.unset {
			return nil
		}
		return invalid("Invalid null set element")
	}
	switch {
	case key.unset && deletion:
		return nil
	case key.unset:
		return invalid("Invalid unset value for list index")
	}
	return invalid("Invalid null value for list index")
}
