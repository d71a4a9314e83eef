package native

import "github.com/cqlbridge/cqlbridge/native/cqltype"

// Column describes a result column or a bind marker.
type Column struct {
	Keyspace string
	Table    string
	Name     string
	Type     *cqltype.Type
}
