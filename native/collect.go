package native

import (
	"fmt"
	"iter"
	"reflect"
	"strings"
)

// RowToFunc converts a row to a T, for Collect and CollectOne.
type RowToFunc[T any] func(Row) (T, error)

// Collect converts every row yielded by rows (Session.Iter, Result.All) with to and
// returns them; it stops at the first error.
func Collect[T any](rows iter.Seq2[Row, error], to RowToFunc[T]) ([]T, error) {
	var out []T
	for row, err := range rows {
		if err != nil {
			return out, err
		}
		v, err := to(row)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// CollectOne converts the first row yielded by rows with to; it returns ErrNotFound when
// there is none. It stops the iteration after the first row.
func CollectOne[T any](rows iter.Seq2[Row, error], to RowToFunc[T]) (T, error) {
	var zero T
	for row, err := range rows {
		if err != nil {
			return zero, err
		}
		return to(row)
	}
	return zero, ErrNotFound
}

// RowTo decodes a one-column row into a T (with Get's allocation-free fast paths).
func RowTo[T any](row Row) (T, error) {
	if row.Len() != 1 {
		var zero T
		return zero, &ScanError{Index: -1, Err: fmt.Errorf("RowTo needs one column, the row has %d", row.Len())}
	}
	return Get[T](row, 0)
}

// ScanOne decodes the single column of the first row of res into a T. It returns
// ErrNotFound when the page is empty.
func ScanOne[T any](res *Result) (T, error) {
	row, ok := res.First()
	if !ok {
		var zero T
		return zero, ErrNotFound
	}
	if row.Len() != 1 {
		var zero T
		return zero, &ScanError{Index: -1, Err: fmt.Errorf("ScanOne needs one column, the row has %d", row.Len())}
	}
	return Get[T](row, 0)
}

// RowToStruct decodes a row into a new struct T, matching each column to the field whose
// `cql:"name"` tag equals the column name, or else whose name equals it case-insensitively.
// A column without a matching field is an error; fields without a column keep their zero
// value. Fields tagged `cql:"-"` and unexported fields are ignored.
func RowToStruct[T any](row Row) (T, error) {
	var v T
	rv := reflect.ValueOf(&v).Elem()
	if rv.Kind() != reflect.Struct {
		return v, &ScanError{Index: -1, Err: fmt.Errorf("RowToStruct needs a struct type, not %s", rv.Type())}
	}
	rt := rv.Type()
	for i, c := range row.Columns() {
		f := fieldFor(rt, c.Name)
		if f < 0 {
			return v, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: fmt.Errorf("%s has no field for this column", rt)}
		}
		if err := decodeCell(c.Type, row.Raw(i), rv.Field(f).Addr().Interface()); err != nil {
			return v, &ScanError{Column: c.Name, Index: i, Type: c.Type, Err: err}
		}
	}
	return v, nil
}

// fieldFor returns the index of the field of struct type rt that receives column name.
func fieldFor(rt reflect.Type, name string) int {
	fold := -1
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("cql"), ",")
		switch {
		case tag == "-":
			continue
		case tag != "":
			if tag == name {
				return i
			}
		case strings.EqualFold(f.Name, name) && fold < 0:
			fold = i
		}
	}
	return fold
}
