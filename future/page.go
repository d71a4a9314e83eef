package future

import "bytes"

// Page is what callbacks receive: one completed page of a [ResponseFuture]. It is a small value;
// copying it is cheap and it stays valid after the future moves on.
type Page struct {
	number int
	resp   Response
}

// Number is the page's 1-based position in the future's sequence of page requests: a page
// requested again after its fetch failed (StartFetchingNextPage after an errback) takes the
// next number, so numbers count requests, and equal positions only when no fetch failed.
func (p Page) Number() int { return p.number }

// HasRows reports whether the response is a ROWS result. The Python driver passes None to its
// callbacks for other results (VOID, SET_KEYSPACE, SCHEMA_CHANGE).
func (p Page) HasRows() bool { return p.resp != nil && p.resp.Kind() == KindRows }

// Rows decodes the page's rows (nil when !HasRows). Each call decodes afresh: keep the slice.
func (p Page) Rows() ([]Row, error) {
	if !p.HasRows() {
		return nil, nil
	}
	return p.resp.Rows()
}

// Columns describes the page's columns (nil when !HasRows).
func (p Page) Columns() []Column {
	if p.resp == nil {
		return nil
	}
	return p.resp.Columns()
}

// PagingState is a copy of the state after this page, nil on the last page.
func (p Page) PagingState() []byte {
	if p.resp == nil {
		return nil
	}
	return bytes.Clone(p.resp.PagingState())
}

// Response returns the underlying response (nil for the zero Page).
func (p Page) Response() Response { return p.resp }
