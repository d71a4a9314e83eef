package gocql

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/cqlbridge/cqlbridge/native"
)

// ColumnInfo describes one result column.
type ColumnInfo struct {
	Keyspace string
	Table    string
	Name     string
	TypeInfo TypeInfo
}

// String describes the column for logs.
func (c ColumnInfo) String() string {
	return fmt.Sprintf("[column keyspace=%s table=%s name=%s type=%v]", c.Keyspace, c.Table, c.Name, c.TypeInfo)
}

// RowData holds the column names of a result (tuple columns expanded as name[i]) and a
// freshly allocated destination for each.
type RowData struct {
	Columns []string
	Values  []interface{}
}

// TupleColumnName is the name under which element n of tuple column c appears in RowData,
// MapScan and SliceMap results: "c[n]".
func TupleColumnName(c string, n int) string {
	return fmt.Sprintf("%s[%d]", c, n)
}

// Iter iterates over the rows of a query result, fetching further pages as needed. When a
// page is exhausted the next one replaces it inside the same *Iter. An Iter is not safe for
// concurrent use.
type Iter struct {
	err            error
	pos            int
	numRows        int
	columns        []ColumnInfo
	actualColCount int
	pageState      []byte
	next           *nextIter
	host           *HostInfo
	warnings       []string
	customPayload  map[string][]byte
	res            *native.Result // the page as the native core returned it (for futures)
	closed         atomic.Bool
	// notSent marks the failure of an attempt on a host that had no open connection: nothing
	// was sent, so, as gocql skips a host whose pool has no connection, it is no attempt.
	notSent bool
}

// nextIter fetches the page after the current one, synchronously or ahead of time.
type nextIter struct {
	qry     *Query
	pos     int
	once    sync.Once
	iter    *Iter
	started atomic.Bool // a background fetch was started
}

func (n *nextIter) fetch() *Iter {
	n.once.Do(func() { n.iter = n.qry.session.executeQuery(n.qry) })
	return n.iter
}

// repeatedPageIter returns the next page of a page res whose node (host) answered with the
// paging state it was sent: an Iter failed with an error wrapping
// native.ErrPagingStateRepeated, without a request. pos is where the current page would
// start fetching it.
func repeatedPageIter(host *HostInfo, res *native.Result, pos int) *nextIter {
	n := &nextIter{pos: pos}
	n.once.Do(func() {
		n.iter = &Iter{host: host, err: fmt.Errorf("gocql: %s answered a page with the paging state it was sent (%d bytes), so the next page would be the same one: %w", res.Host(), len(res.PagingState()), native.ErrPagingStateRepeated)}
	})
	n.started.Store(true)
	return n
}

func (n *nextIter) fetchAsync() {
	if n.started.CompareAndSwap(false, true) {
		go n.fetch()
	}
}

func countColumns(cols []ColumnInfo) int {
	n := 0
	for _, c := range cols {
		if t, ok := c.TypeInfo.(TupleTypeInfo); ok {
			n += len(t.Elems)
		} else {
			n++
		}
	}
	return n
}

// Host returns the host that answered the current page (nil when no host was tried).
func (iter *Iter) Host() *HostInfo { return iter.host }

// Columns returns the current page's column metadata.
func (iter *Iter) Columns() []ColumnInfo { return iter.columns }

// NumRows returns the number of rows of the current page.
func (iter *Iter) NumRows() int { return iter.numRows }

// PageState returns the paging state of the current page; it is empty on the last page.
func (iter *Iter) PageState() []byte { return iter.pageState }

// Warnings returns the server's warnings for the current page (nil after Close).
func (iter *Iter) Warnings() []string {
	if iter.closed.Load() {
		return nil
	}
	return iter.warnings
}

// GetCustomPayload returns the custom payload of the current page's response (nil after
// Close).
func (iter *Iter) GetCustomPayload() map[string][]byte {
	if iter.closed.Load() {
		return nil
	}
	return iter.customPayload
}

// WillSwitchPage reports whether the next Scan will fetch (or switch to) the next page:
// the current page is exhausted and automatic paging has another page to get.
func (iter *Iter) WillSwitchPage() bool {
	return iter.pos >= iter.numRows && iter.next != nil
}

// Scan copies the next row's columns into dest and reports whether there was one. It fetches
// the next page when the current one is exhausted (skipping empty pages). A tuple column
// takes one destination per element; a nil destination skips its column. It returns false at
// the end of the results, after an error (see Close), and after Close.
func (iter *Iter) Scan(dest ...interface{}) bool {
	if iter.err != nil || iter.closed.Load() {
		return false
	}
	for iter.pos >= iter.numRows {
		if iter.next == nil {
			return false
		}
		next := iter.next.fetch()
		iter.replaceWith(next)
		if iter.err != nil {
			return false
		}
	}
	if iter.next != nil && iter.pos >= iter.next.pos {
		iter.next.fetchAsync()
	}
	if len(dest) != iter.actualColCount {
		iter.err = fmt.Errorf("gocql: not enough columns to scan into: have %d want %d", len(dest), iter.actualColCount)
		return false
	}
	if err := scanRow(iter.row(iter.pos), iter.columns, dest); err != nil {
		iter.err = err
		return false
	}
	iter.pos++
	return true
}

// replaceWith copies the state of next into iter, which keeps its identity.
func (iter *Iter) replaceWith(next *Iter) {
	iter.err = next.err
	iter.pos = next.pos
	iter.numRows = next.numRows
	iter.columns = next.columns
	iter.actualColCount = next.actualColCount
	iter.pageState = next.pageState
	iter.next = next.next
	iter.host = next.host
	iter.warnings = next.warnings
	iter.customPayload = next.customPayload
	iter.res = next.res
}

// row returns row i of the current page (the zero Row when there is none).
func (iter *Iter) row(i int) native.Row {
	if iter.res == nil {
		return native.Row{}
	}
	r, _ := iter.res.Row(i)
	return r
}

// scanRow unmarshals the cells of one row into dest (len(dest) == expanded column count).
// The cells are read in place from the page's memory.
func scanRow(row native.Row, cols []ColumnInfo, dest []interface{}) error {
	i := 0
	for c, col := range cols {
		n, err := scanColumn(row.Raw(c), col, dest[i:])
		if err != nil {
			return err
		}
		i += n
	}
	return nil
}

func scanColumn(cell []byte, col ColumnInfo, dest []interface{}) (int, error) {
	if t, ok := col.TypeInfo.(TupleTypeInfo); ok {
		n := len(t.Elems)
		if dest[0] == nil {
			// A nil first destination skips the whole tuple. gocql v1.7.0 skips one
			// destination only, reading the next columns into the wrong ones
			// (docs/deviations.md G51); with the tuple last, both leave the others as they are.
			return n, nil
		}
		// Unmarshal errors are returned as is (gocql.UnmarshalError and friends), as gocql
		// does: callers compare and type-switch on them. The components go in a copy: passing
		// dest[:n] itself would make every caller's variadic dest slice escape to the heap,
		// an allocation per scanned row even without tuples.
		if err := Unmarshal(col.TypeInfo, cell, append([]interface{}(nil), dest[:n]...)); err != nil {
			return 0, err
		}
		return n, nil
	}
	if dest[0] == nil {
		return 1, nil
	}
	if err := Unmarshal(col.TypeInfo, cell, dest[0]); err != nil {
		return 0, err
	}
	return 1, nil
}

// Close closes the iterator and returns the error that stopped the iteration, if any: the
// query's error, a scan error, or the failure of a next-page fetch. Calling it again returns
// the same error. It does not stop a background page fetch already started.
func (iter *Iter) Close() error {
	if iter.closed.CompareAndSwap(false, true) {
		iter.res = nil
	}
	return iter.err
}

func (iter *Iter) checkErrAndNotFound() error {
	if iter.err != nil {
		return iter.err
	}
	if iter.numRows == 0 {
		return ErrNotFound
	}
	return nil
}

// Scanner returns a row-by-row scanner over iter, or nil for a nil *Iter.
func (iter *Iter) Scanner() Scanner {
	if iter == nil {
		return nil
	}
	return &iterScanner{iter: iter}
}

// Scanner reads rows one at a time: Next, then Scan, until Next returns false; then Err.
type Scanner interface {
	// Next advances to the next row (fetching pages as needed) and reports whether there is
	// one. Next must be called before every Scan.
	Next() bool
	// Scan copies the current row into dest. A wrong number of destinations or an unmarshal
	// error is returned without ending the iteration.
	Scan(...interface{}) error
	// Err returns the error that ended the iteration and releases the iterator; the Scanner
	// must not be used afterwards.
	Err() error
}

type iterScanner struct {
	iter  *Iter
	row   native.Row
	valid bool
}

// Next moves to the next row. On a page switch the scanner moves on to the next page's own
// *Iter, as gocql v1.7.0 does: the *Iter the Scanner came from keeps the first page (its NumRows,
// PageState, Columns, WillSwitchPage and error stay those of that page), and Err then closes
// and reports the iterator of the page the scanner reached (a failed page fetch included).
func (is *iterScanner) Next() bool {
	iter := is.iter
	if iter == nil {
		return false // after Err (gocql v1.7.0 panics; docs/deviations.md G41)
	}
	if iter.err != nil || iter.closed.Load() {
		return false
	}
	for iter.pos >= iter.numRows {
		if iter.next == nil {
			return false
		}
		iter = iter.next.fetch()
		is.iter = iter
		if iter.err != nil {
			return false
		}
	}
	is.row = iter.row(iter.pos)
	iter.pos++
	is.valid = true
	return true
}

func (is *iterScanner) Scan(dest ...interface{}) error {
	if !is.valid {
		return errors.New("gocql: Scan called without calling Next")
	}
	iter := is.iter
	if len(dest) != iter.actualColCount {
		return fmt.Errorf("gocql: not enough columns to scan into: have %d want %d", len(dest), iter.actualColCount)
	}
	err := scanRow(is.row, iter.columns, dest)
	is.valid = false
	return err
}

func (is *iterScanner) Err() error {
	iter := is.iter
	is.iter = nil
	is.row = native.Row{}
	is.valid = false
	if iter == nil {
		return errors.New("gocql: Scanner used after Err")
	}
	return iter.Close()
}

// RowData returns the column names (tuple columns expanded) and new destinations of the
// matching Go types, or the iterator's error.
func (iter *Iter) RowData() (RowData, error) {
	if iter.err != nil {
		return RowData{}, iter.err
	}
	cols := iter.Columns()
	rd := RowData{Columns: make([]string, 0, len(cols)), Values: make([]interface{}, 0, len(cols))}
	for _, c := range cols {
		if t, ok := c.TypeInfo.(TupleTypeInfo); ok {
			for i, e := range t.Elems {
				v, err := e.NewWithError()
				if err != nil {
					return RowData{}, err
				}
				rd.Columns = append(rd.Columns, TupleColumnName(c.Name, i))
				rd.Values = append(rd.Values, v)
			}
			continue
		}
		v, err := c.TypeInfo.NewWithError()
		if err != nil {
			return RowData{}, err
		}
		rd.Columns = append(rd.Columns, c.Name)
		rd.Values = append(rd.Values, v)
	}
	return rd, nil
}

// rowMap stores the dereferenced values into m (slices copied).
func (r *RowData) rowMap(m map[string]interface{}) {
	for i, name := range r.Columns {
		v := reflect.Indirect(reflect.ValueOf(r.Values[i]))
		if !v.IsValid() {
			m[name] = nil
			continue
		}
		if v.Kind() == reflect.Slice {
			// Copied, and a nil slice becomes an empty one, as gocql does.
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Cap())
			reflect.Copy(c, v)
			m[name] = c.Interface()
			continue
		}
		m[name] = v.Interface()
	}
}

// errNilMap is the error of MapScan given a nil map for a row.
var errNilMap = errors.New("gocql: MapScan into a nil map")

// MapScan reads the next row into m, keyed by column name, and reports whether there was one.
// Pointers already present in m under a column's name are used as that column's destination.
func (iter *Iter) MapScan(m map[string]interface{}) bool {
	if iter.err != nil || iter.closed.Load() {
		return false
	}
	// The columns are those of the page the row comes from, so switch pages first.
	if !iter.ensureRow() {
		return false
	}
	if m == nil {
		iter.err = errNilMap // gocql v1.7.0 panics (docs/deviations.md G41)
		return false
	}
	// As in gocql v1.7.0, a column without a Go type (RowData's error) is not reported as
	// such: no destinations are made and Scan fails with its arity error.
	rd, err := iter.RowData()
	if err != nil {
		rd = RowData{}
	}
	for i, c := range rd.Columns {
		if d, ok := m[c]; ok && isPointer(d) {
			rd.Values[i] = d
		}
	}
	if !iter.Scan(rd.Values...) {
		return false
	}
	rd.rowMap(m)
	return true
}

func isPointer(v interface{}) bool {
	return v != nil && reflect.TypeOf(v).Kind() == reflect.Pointer
}

// ensureRow switches pages until a row is available; false at the end or on error.
func (iter *Iter) ensureRow() bool {
	for iter.pos >= iter.numRows {
		if iter.next == nil {
			return false
		}
		iter.replaceWith(iter.next.fetch())
		if iter.err != nil {
			return false
		}
	}
	return true
}

// SliceMap reads all remaining rows, across pages, as maps keyed by column name. With no rows
// it returns an empty, non-nil slice; on error nil and the error. It does not close iter.
func (iter *Iter) SliceMap() ([]map[string]interface{}, error) {
	if iter.err != nil {
		return nil, iter.err
	}
	out := make([]map[string]interface{}, 0)
	for {
		m := make(map[string]interface{}, len(iter.columns))
		if !iter.MapScan(m) {
			break
		}
		out = append(out, m)
	}
	if iter.err != nil {
		return nil, iter.err
	}
	return out, nil
}
