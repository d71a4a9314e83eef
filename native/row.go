package native

import (
	"encoding/binary"
	"fmt"
)

// Row is one row of a Result. It is a small value that refers to its Result's memory, valid
// as long as the Result is (forever: Results are immutable).
type Row struct {
	res  *Result
	data []byte // this row's cells
}

// Columns describes the row's columns. Do not modify the slice.
func (r Row) Columns() []Column {
	if r.res == nil {
		return nil
	}
	return r.res.columns
}

// Len returns the number of columns.
func (r Row) Len() int { return len(r.Columns()) }

// Raw returns the encoded value of column i exactly as the server sent it: nil for NULL, an
// empty non-nil slice for an empty value. It returns nil when i is out of range. The bytes
// belong to the Result; do not modify them.
func (r Row) Raw(i int) []byte {
	off := 0
	for c := 0; c < r.Len(); c++ {
		l := int32(binary.BigEndian.Uint32(r.data[off:]))
		off += 4
		if c == i {
			if l < 0 {
				return nil
			}
			return r.data[off : off+int(l) : off+int(l)]
		}
		if l > 0 {
			off += int(l)
		}
	}
	return nil
}

// Scan decodes the row's columns, in order, into dest, which must hold one pointer per
// column (nil skips a column). The supported Go types for each CQL type are documented in
// package cqltype. A NULL sets the destination to its zero value (nil for pointers, slices
// and maps). On failure the error is a *ScanError naming the column.
func (r Row) Scan(dest ...any) error {
	cols := r.Columns()
	if len(dest) != len(cols) {
		return &ScanError{Index: -1, Err: fmt.Errorf("%w: %d destinations for %d columns", ErrArgCount, len(dest), len(cols))}
	}
	off := 0
	for i := range cols {
		l := int32(binary.BigEndian.Uint32(r.data[off:]))
		off += 4
		var cell []byte
		if l >= 0 {
			cell = r.data[off : off+int(l) : off+int(l)]
			off += int(l)
		}
		if dest[i] == nil {
			continue
		}
		if err := decodeCell(cols[i].Type, cell, dest[i]); err != nil {
			return &ScanError{Column: cols[i].Name, Index: i, Type: cols[i].Type, Err: err}
		}
	}
	return nil
}

func errColumnIndex(i, n int) error {
	return fmt.Errorf("column index %d out of range for %d columns", i, n)
}

// Values decodes every column into its natural Go type (see package cqltype: int32 for
// int, string for text, []any for a list, set or tuple, map[any]any for a map,
// map[string]any for a UDT, ...); NULL is nil. Scan into typed destinations for typed
// slices and maps.
func (r Row) Values() ([]any, error) {
	cols := r.Columns()
	out := make([]any, len(cols))
	for i, c := range cols {
		if err := decodeCell(c.Type, r.Raw(i), &out[i]); err != nil {
			return nil, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: err}
		}
	}
	return out, nil
}

// Map decodes the row into a map from column name to natural Go value (see Values). Columns
// of the same name (SELECT a AS x, b AS x) share one entry, the last one's value, as in gocql's
// MapScan: use Values or Scan to read them all.
func (r Row) Map() (map[string]any, error) {
	vals, err := r.Values()
	if err != nil {
		return nil, err
	}
	m := make(map[string]any, len(vals))
	for i, c := range r.Columns() {
		m[c.Name] = vals[i]
	}
	return m, nil
}
