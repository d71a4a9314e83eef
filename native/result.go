package native

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
)

// ResultKind says what a response carried.
type ResultKind uint8

// The kinds of result.
const (
	// ResultVoid is the result of a statement that returns nothing (most writes).
	ResultVoid ResultKind = iota + 1
	// ResultRows carries a page of rows (a SELECT, or a conditional write's [applied] row).
	ResultRows
	// ResultSetKeyspace is the result of USE.
	ResultSetKeyspace
	// ResultSchemaChange is the result of DDL.
	ResultSchemaChange
)

// String returns "void", "rows", "set keyspace" or "schema change".
func (k ResultKind) String() string {
	switch k {
	case ResultVoid:
		return "void"
	case ResultRows:
		return "rows"
	case ResultSetKeyspace:
		return "set keyspace"
	case ResultSchemaChange:
		return "schema change"
	}
	return "result(?)"
}

// SchemaChange describes the schema change a DDL statement made.
type SchemaChange struct {
	Change   string   // CREATED, UPDATED or DROPPED
	Target   string   // KEYSPACE, TABLE, TYPE, FUNCTION or AGGREGATE
	Keyspace string   // affected keyspace
	Name     string   // table, type, function or aggregate name; empty for KEYSPACE
	ArgTypes []string // argument types of a function or aggregate
}

// Result is the immutable outcome of one request: for a SELECT one page of rows with its
// column metadata and the paging state for the next page, plus the warnings, trace id and
// custom payload of the response. A Result is safe for concurrent use and stays valid
// forever: NextPage returns a new Result, and rows are read from the Result's own memory.
type Result struct {
	kind        ResultKind
	columns     []Column
	data        []byte   // the rows' cells, as sent by the server
	rowCount    int      // rows in data
	offsets     []uint32 // start of each row in data, when rowCount > 1
	pagingState []byte
	warnings    []string
	traceID     [16]byte
	traced      bool
	disagreed   bool // a schema change without schema agreement (see SchemaAgreed)
	payload     map[string][]byte
	change      *SchemaChange
	keyspace    string
	host        string
	next        *Statement // statement that fetches the next page; nil on the last page
	sess        *Session
}

// Kind says what the response carried.
func (r *Result) Kind() ResultKind { return r.kind }

// Columns describes the result columns. Do not modify the slice.
func (r *Result) Columns() []Column { return r.columns }

// Len returns the number of rows in this page.
func (r *Result) Len() int { return r.rowCount }

// Row returns the i-th row of this page (0-based); ok is false when i is out of range.
func (r *Result) Row(i int) (row Row, ok bool) {
	if i < 0 || i >= r.rowCount {
		return Row{}, false
	}
	if r.rowCount == 1 {
		return Row{res: r, data: r.data}, true
	}
	end := len(r.data)
	if i+1 < r.rowCount {
		end = int(r.offsets[i+1])
	}
	return Row{res: r, data: r.data[r.offsets[i]:end]}, true
}

// First returns the first row of this page; ok is false when the page is empty.
func (r *Result) First() (row Row, ok bool) { return r.Row(0) }

// Rows iterates over the rows of this page only, with their index.
func (r *Result) Rows() iter.Seq2[int, Row] {
	return func(yield func(int, Row) bool) {
		for i := range r.rowCount {
			row, _ := r.Row(i)
			if !yield(i, row) {
				return
			}
		}
	}
}

// All iterates over the rows of this page and then of every following page, fetching each
// page when the previous one is exhausted. A failed fetch is yielded as the last element,
// with a zero Row, as a *PageError holding the last page fetched (see PageError: with it a
// fetch that was not sent can be made again). Stopping the loop early fetches nothing more. ctx bounds the fetches only:
// once it ends, the rows of the page in hand are still yielded and the next fetch fails with
// ctx's error (check ctx in the loop to stop at once). A statement made WithPrefetch has each
// next page requested while the rows of the page before it are yielded.
func (r *Result) All(ctx context.Context) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		page := r
		for {
			var ahead *Pending
			if page.next != nil && page.next.opts.rare.prefetch {
				ahead = page.NextPageAsync(ctx) // Statement.WithPrefetch
			}
			for i := range page.rowCount {
				row, _ := page.Row(i)
				if !yield(row, nil) {
					return
				}
			}
			if !page.HasMorePages() {
				return
			}
			var next *Result
			var err error
			if ahead != nil {
				next, err = ahead.Result()
			} else {
				next, err = page.NextPage(ctx)
			}
			if err != nil {
				yield(Row{}, &PageError{Last: page, Err: err})
				return
			}
			page = next
		}
	}
}

// PageError is the error that Result.All and Session.Iter yield when the fetch of a page
// after the first fails, once they have yielded every row of the pages before it. Err is the
// cause, which errors.Is and errors.As see through PageError, and Error its message. Last is
// the last page fetched, the one whose NextPage failed: when Err matches ErrNotSent (the
// request for the next page never left the client), Last.NextPage fetches that page again,
// and Last.All goes on from there (Last's own rows, which were yielded already, first);
// otherwise too, Last.PagingState resumes the query after Last with
// Statement.WithPagingState. An error of Session.Iter's first request, which fetched no page,
// is not a PageError: execute the statement again.
type PageError struct {
	Last *Result // the last page fetched, whose rows were all yielded
	Err  error   // why the next page could not be fetched
}

// Error returns the cause's message.
func (e *PageError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *PageError) Unwrap() error { return e.Err }

// PagingState returns the opaque state that resumes the query after this page
// (Statement.WithPagingState), or nil when this is the last page. Do not modify it.
func (r *Result) PagingState() []byte { return r.pagingState }

// HasMorePages reports whether the server has more pages after this one (false for a nil
// Result, so that NextPage and NextPageAsync on the nil Result of an unchecked error return
// ErrNoMorePages rather than panic).
func (r *Result) HasMorePages() bool { return r != nil && len(r.pagingState) > 0 }

// NextPage fetches the page after r, running the same statement with r's paging state, and
// returns it as a new Result; r is unchanged. It returns ErrNoMorePages when r is the last
// page, and ErrPagingStateRepeated when r's server answered with the paging state it had been
// sent (a fetch would bring r again, and All and Session.Iter would never end). Each page is a
// request of its own: an error matching ErrNotSent says that the request for this page was not
// sent (those of the pages up to r were), and NextPage may be called on r again (All and
// Session.Iter hand r out in their *PageError).
func (r *Result) NextPage(ctx context.Context) (*Result, error) {
	if !r.HasMorePages() {
		return nil, ErrNoMorePages
	}
	if r.sess == nil || r.next == nil {
		return nil, r.repeatedPagingState()
	}
	next := *r.next
	return r.sess.run(ctx, &next)
}

// repeatedPagingState is the error of fetching the page after r when r has a paging state
// but no statement to fetch with it: its server answered the request for r with the paging
// state that request carried (see buildResult).
func (r *Result) repeatedPagingState() error {
	return fmt.Errorf("native: %s answered a page with the paging state it was sent (%d bytes), so the next page would be the same one: %w", r.host, len(r.pagingState), ErrPagingStateRepeated)
}

// NextPageAsync starts fetching the page after r and returns at once.
func (r *Result) NextPageAsync(ctx context.Context) *Pending {
	if !r.HasMorePages() {
		return donePending(nil, ErrNoMorePages)
	}
	if r.sess == nil || r.next == nil {
		return donePending(nil, r.repeatedPagingState())
	}
	return r.sess.ExecuteAsync(ctx, *r.next)
}

// Warnings returns the warnings the server attached to the response. Do not modify the
// slice.
func (r *Result) Warnings() []string { return r.warnings }

// TraceID returns the tracing session id when the statement was traced (WithTracing).
func (r *Result) TraceID() (id [16]byte, ok bool) { return r.traceID, r.traced }

// CustomPayload returns the custom payload of the response, or nil. Do not modify it. On
// ScyllaDB it may hold proto.TabletsRoutingPayload, the description of the partition's
// tablet that a node adds when the request missed the tablet's replicas (see
// proto.DecodeTablet); the session has learnt it already.
func (r *Result) CustomPayload() map[string][]byte { return r.payload }

// SchemaChange describes the change made by a DDL statement, or returns nil.
func (r *Result) SchemaChange() *SchemaChange { return r.change }

// SchemaAgreed reports, for a schema change, whether every node the session is connected to
// reported the same schema version before Execute returned (see
// Config.SchemaAgreementTimeout); it is false when the wait timed out, was cut short by the
// context, could not ask the nodes, or is disabled. It is true for every other result.
func (r *Result) SchemaAgreed() bool { return !r.disagreed }

// Keyspace returns the keyspace set by a USE statement (Kind ResultSetKeyspace).
func (r *Result) Keyspace() string { return r.keyspace }

// Host returns the address (host:port) of the coordinator that answered.
func (r *Result) Host() string { return r.host }

// Applied reports whether a conditional statement (INSERT ... IF NOT EXISTS, UPDATE ... IF,
// a batch with conditions) was applied: the value of the boolean [applied] column of the
// first row. A result without an [applied] column reports true.
func (r *Result) Applied() bool {
	if len(r.columns) == 0 || r.columns[0].Name != "[applied]" || r.rowCount == 0 {
		return true
	}
	row, _ := r.First()
	b := row.Raw(0)
	return len(b) == 1 && b[0] != 0
}

// indexRows checks that data holds rowCount rows of len(columns) cells each, and records
// where each row starts when there is more than one. It never reads outside data.
func (r *Result) indexRows() error {
	n := len(r.columns)
	off := 0
	if r.rowCount > 1 {
		// A row needs at least 4 bytes per column; never trust the count for the allocation.
		if n == 0 || r.rowCount > len(r.data)/(4*n) {
			return fmt.Errorf("native: malformed rows: %d rows of %d columns cannot fit in %d bytes", r.rowCount, n, len(r.data))
		}
		r.offsets = make([]uint32, r.rowCount)
	}
	for i := range r.rowCount {
		if r.offsets != nil {
			r.offsets[i] = uint32(off)
		}
		for c := range n {
			if len(r.data)-off < 4 {
				return fmt.Errorf("native: malformed rows: row %d column %d: truncated length", i, c)
			}
			l := int32(binary.BigEndian.Uint32(r.data[off:]))
			off += 4
			if l < 0 {
				continue
			}
			if int(l) > len(r.data)-off {
				return fmt.Errorf("native: malformed rows: row %d column %d: %d bytes announced, %d left", i, c, l, len(r.data)-off)
			}
			off += int(l)
		}
	}
	if off != len(r.data) {
		return fmt.Errorf("native: malformed rows: %d bytes left after %d rows", len(r.data)-off, r.rowCount)
	}
	return nil
}
