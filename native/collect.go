package native

import (
	"fmt"
	"iter"
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

// RowTo scans a one-column row into a T.
func RowTo[T any](row Row) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}

// ScanOne scans the first row of res into a T: the single column's value when the row has one
// column. It returns ErrNotFound when the page is empty.
func ScanOne[T any](res *Result) (T, error) {
	var v T
	row, ok := res.First()
	if !ok {
		return v, ErrNotFound
	}
	if row.Len() != 1 {
		return v, &ScanError{Index: -1, Err: fmt.Errorf("ScanOne needs one column, the row has %d", row.Len())}
	}
	err := row.Scan(&v)
	return v, err
}
