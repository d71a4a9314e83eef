package future

import (
	"context"
	"fmt"
	"iter"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// ResultSet is the legacy Python driver's mutable ResultSet: a cursor over the rows of a
// [ResponseFuture] that pages in place. CurrentRows is the current page; iterating past its end
// fetches the next page synchronously (skipping empty pages) and replaces it. A ResultSet is not
// safe for concurrent use. The zero ResultSet (one ResponseFuture.Result did not make) is empty:
// no rows, no more pages.
//
// Python's iteration maps to Go as follows: iter(rs) is [ResultSet.Iter], which rewinds to the
// start of the current page and returns the same ResultSet (one shared cursor); next(rs) is
// [ResultSet.Next] with [ResultSet.Row] and [ResultSet.Err]; `for row in rs` is
// `for row, err := range rs.Seq()`; list(rs) is [ResultSet.All].
type ResultSet struct {
	f        *ResponseFuture
	columns  []Column
	page     Page
	rows     []Row // the current page (Python's _current_rows)
	iterRows []Row // the page the cursor walks (Python's _page_iter)
	pos      int
	started  bool
	row      Row
	err      error
	// lost is the decoding error of a page whose rows could not be read: its paging state has
	// been taken, so every later fetch and iteration reports it rather than skip its rows.
	lost error
}

func newResultSet(f *ResponseFuture, pg Page) (*ResultSet, error) {
	rows, err := pg.Rows()
	if err != nil {
		return nil, fmt.Errorf("future: decoding page %d: %w", pg.Number(), err)
	}
	return &ResultSet{f: f, columns: pg.Columns(), page: pg, rows: rows}, nil
}

// Future returns the future the set reads its pages from (Python's response_future).
func (rs *ResultSet) Future() *ResponseFuture { return rs.f }

// Columns describes the columns, as of the page the set was created with.
func (rs *ResultSet) Columns() []Column { return rs.columns }

// ColumnNames returns the column names, as of the page the set was created with (nil when the
// result has no rows metadata).
func (rs *ResultSet) ColumnNames() []string {
	if rs.columns == nil {
		return nil
	}
	out := make([]string, len(rs.columns))
	for i, c := range rs.columns {
		out[i] = c.Name
	}
	return out
}

// ColumnTypes returns the column types, as of the page the set was created with.
func (rs *ResultSet) ColumnTypes() []*cqltype.Type {
	if rs.columns == nil {
		return nil
	}
	out := make([]*cqltype.Type, len(rs.columns))
	for i, c := range rs.columns {
		out[i] = c.Type
	}
	return out
}

// CurrentRows returns the rows of the current page (never nil). It changes as iteration or
// FetchNextPage advances; it is empty once iteration is exhausted.
func (rs *ResultSet) CurrentRows() []Row {
	if rs.rows == nil {
		return []Row{}
	}
	return rs.rows
}

// HasMorePages reports, live from the future, whether a page follows the last completed one.
// The zero ResultSet, which has no future, has no rows and no more pages.
func (rs *ResultSet) HasMorePages() bool { return rs.f != nil && rs.f.HasMorePages() }

// PagingState returns, live from the future, a copy of the paging state of the last completed
// page (nil on the last page); pass it to a new statement to resume from there.
func (rs *ResultSet) PagingState() []byte {
	if rs.f == nil {
		return nil
	}
	return rs.f.PagingState()
}

// FetchNextPage replaces the current rows with the next page, blocking until it arrives. With no
// more pages it empties the current rows and returns nil. It does not move the iteration cursor:
// call Iter to iterate the new page. When a fetched page's rows cannot be decoded, that error
// is returned by this and every later fetch (and ends every later iteration past the current
// page): the page cannot be fetched again, and going on would skip its rows without a word.
func (rs *ResultSet) FetchNextPage() error {
	if rs.lost != nil {
		return rs.lost
	}
	if !rs.HasMorePages() {
		rs.rows = nil
		return nil
	}
	if err := rs.f.StartFetchingNextPage(); err != nil {
		return err
	}
	pg, err := rs.f.wait()
	if err != nil {
		return err
	}
	rows, err := pg.Rows()
	if err != nil {
		rs.lost = fmt.Errorf("future: decoding page %d: %w", pg.Number(), err)
		return rs.lost
	}
	rs.page, rs.rows = pg, rows
	return nil
}

// Iter rewinds the cursor to the start of the current page and returns rs itself (Python's
// iter(rs)): every iterator of a ResultSet is the same cursor. Rows of pages already passed are
// not replayed.
func (rs *ResultSet) Iter() *ResultSet {
	rs.iterRows = rs.rows
	rs.pos = 0
	rs.started = true
	rs.err = nil
	return rs
}

// Next advances the cursor and reports whether a row is available through Row. At the end of the
// current page it fetches the next one (synchronously, skipping empty pages); a fetch error stops
// the iteration and is reported by Err. At the end, the current rows become empty. Calling Next
// without Iter starts at the current page's first row.
func (rs *ResultSet) Next() bool {
	if !rs.started {
		rs.Iter()
	}
	rs.err = nil // an iteration resumed after a failed fetch reports only its own error
	rs.row = Row{}
	for {
		if rs.pos < len(rs.iterRows) {
			rs.row = rs.iterRows[rs.pos]
			rs.pos++
			return true
		}
		if rs.lost == nil && !rs.HasMorePages() {
			rs.rows = nil
			rs.iterRows = nil
			rs.pos = 0
			return false
		}
		if err := rs.FetchNextPage(); err != nil {
			rs.err = err
			return false
		}
		rs.iterRows = rs.rows
		rs.pos = 0
	}
}

// Row returns the row Next moved to.
func (rs *ResultSet) Row() Row { return rs.row }

// Err returns the error that stopped the last iteration, if any.
func (rs *ResultSet) Err() error { return rs.err }

// Seq rewinds like Iter and yields the rows with Next (Python's `for row in rs`); a fetch error
// is yielded once, with a zero Row, and ends the sequence. Breaking out of the loop leaves the
// cursor where it stopped.
func (rs *ResultSet) Seq() iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		rs.Iter()
		for rs.Next() {
			if !yield(rs.row, nil) {
				return
			}
		}
		if rs.err != nil {
			yield(Row{}, rs.err)
		}
	}
}

// All rewinds to the start of the current page and returns its rows and those of every later
// page (Python's list(rs)); afterwards the set is exhausted. On a fetch error it returns the rows
// read so far and the error.
func (rs *ResultSet) All() ([]Row, error) {
	var out []Row
	for row, err := range rs.Seq() {
		if err != nil {
			return out, err
		}
		out = append(out, row)
	}
	return out, nil
}

// One returns the first row of the current page without advancing, fetching or consuming
// anything, and false when the current page is empty.
func (rs *ResultSet) One() (Row, bool) {
	if len(rs.rows) == 0 {
		return Row{}, false
	}
	return rs.rows[0], true
}

// WasApplied reports a lightweight transaction's outcome: the boolean [applied] column of the
// only row of the current page; for a batch (a conditional batch not applied answers one row
// per condition), the first column, [applied], of the first row, as the Python driver reads a
// BatchStatement's. It fails, wrapping ErrNoLWT, when there is no [applied] boolean column (for
// a batch, first), or the page of a statement does not have exactly one row (the Python
// driver returns the first column of any single-row result).
func (rs *ResultSet) WasApplied() (bool, error) {
	idx := -1
	for i, c := range rs.columns {
		if c.Name == "[applied]" && c.Type != nil && c.Type.Kind == cqltype.KindBoolean {
			idx = i
			break
		}
	}
	if idx < 0 {
		return false, fmt.Errorf("%w: no boolean [applied] column among %v", ErrNoLWT, rs.ColumnNames())
	}
	if batch := isBatch(rs.page.resp); batch && (idx != 0 || len(rs.rows) == 0) {
		return false, fmt.Errorf("%w: no LWT in the batch (its result's first column is not [applied], or it has no row)", ErrNoLWT)
	} else if !batch && len(rs.rows) != 1 {
		return false, fmt.Errorf("%w: LWT result should have exactly one row, this has %d", ErrNoLWT, len(rs.rows))
	}
	v, _ := rs.rows[0].Index(idx)
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%w: [applied] is %T, not bool", ErrNoLWT, v)
	}
	return b, nil
}

// TraceID returns the tracing session id of the future's latest traced page (see
// ResponseFuture.TraceID).
func (rs *ResultSet) TraceID() ([]byte, error) {
	if rs.f == nil {
		return nil, nil // the zero ResultSet: nothing was traced
	}
	return rs.f.TraceID()
}

// TraceIDs returns the tracing session ids of every traced page of the future.
func (rs *ResultSet) TraceIDs() [][]byte {
	if rs.f == nil {
		return nil
	}
	return rs.f.TraceIDs()
}

// QueryTrace reads the future's latest traced page's tracing session (see
// ResponseFuture.QueryTrace).
func (rs *ResultSet) QueryTrace(ctx context.Context) (*QueryTrace, error) {
	if rs.f == nil {
		return nil, nil
	}
	return rs.f.QueryTrace(ctx)
}
