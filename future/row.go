package future

import (
	"fmt"
	"strings"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// Column describes one result column.
type Column struct {
	Keyspace string
	Table    string
	Name     string
	Type     *cqltype.Type
}

// Row is one decoded row: its values in column order, with the page's columns for lookups by
// name (the counterpart of the Python driver's named-tuple rows).
type Row struct {
	columns []Column
	values  []any
}

// NewRow builds a row from its columns and values (len(values) must equal len(columns)). It is
// meant for [Response] implementations.
func NewRow(columns []Column, values []any) Row {
	return Row{columns: columns, values: values}
}

// Values returns the row's values in column order. NULL is nil.
func (r Row) Values() []any { return r.values }

// Len returns the number of values.
func (r Row) Len() int { return len(r.values) }

// Index returns the i-th value, or nil and false when i is out of range.
func (r Row) Index(i int) (any, bool) {
	if i < 0 || i >= len(r.values) {
		return nil, false
	}
	return r.values[i], true
}

// Get returns the value of the column called name, or nil and false when there is none.
func (r Row) Get(name string) (any, bool) {
	for i, c := range r.columns {
		if c.Name == name && i < len(r.values) {
			return r.values[i], true
		}
	}
	return nil, false
}

// String renders the row as Row(name=value, ...).
func (r Row) String() string {
	var b strings.Builder
	b.WriteString("Row(")
	for i, v := range r.values {
		if i > 0 {
			b.WriteString(", ")
		}
		if i < len(r.columns) {
			b.WriteString(r.columns[i].Name)
			b.WriteByte('=')
		}
		fmt.Fprint(&b, v)
	}
	b.WriteByte(')')
	return b.String()
}
