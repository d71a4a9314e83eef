package native

import (
	"bytes"
	"errors"
	"fmt"
	"maps"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// errStaleMetadata reports rows that do not match the result metadata cached from PREPARE
// (the table changed); the session re-prepares and retries. Without result metadata ids (v3
// and v4 without ScyllaDB's extension) only a changed column count shows it.
var errStaleMetadata = errors.New("native: result metadata of the prepared statement is stale")

// smallResult holds a Result and, in the same allocation, the row data of a small page, so
// that a single-row read costs one allocation for the Result and its rows.
type smallResult struct {
	Result
	buf [128]byte
}

// newResult returns a Result whose data has room for n bytes.
func newResult(n int) *Result {
	if n <= len(smallResult{}.buf) {
		sr := new(smallResult)
		sr.Result.data = sr.buf[:n:n]
		return &sr.Result
	}
	return &Result{data: make([]byte, n)}
}

// buildResult converts a response into a Result that owns all its memory (the response is
// released by the caller).
func (s *Session) buildResult(resp *proto.Response, info *reqInfo, host string) (*Result, error) {
	var r *Result
	switch m := resp.Msg.(type) {
	case *proto.RowsResult:
		r = newResult(len(m.RowData))
		copy(r.data, m.RowData)
		r.kind = ResultRows
		r.rowCount = m.RowCount
		switch {
		case m.Metadata.Columns != nil:
			r.columns = columnsOf(m.Metadata.Columns)
		case info.meta != nil:
			r.columns = info.meta.columns
		}
		if len(r.columns) != m.Metadata.ColumnCount {
			if info.meta != nil && m.Metadata.Columns == nil {
				return nil, fmt.Errorf("%w: %s sent %d columns, the prepared metadata has %d", errStaleMetadata, host, m.Metadata.ColumnCount, len(r.columns))
			}
			return nil, fmt.Errorf("native: %s: the server sent %d columns, the statement's metadata has %d", host, m.Metadata.ColumnCount, len(r.columns))
		}
		if err := r.indexRows(); err != nil {
			return nil, fmt.Errorf("%w (from %s)", err, host)
		}
		if m.Metadata.NewMetadataID != nil && m.Metadata.Columns != nil && info.prepared != nil && info.meta != nil {
			adoptResultMetadata(info.prepared, info.meta, m.Metadata.NewMetadataID, r.columns)
		}
		if m.Metadata.HasMorePages() && info.resumable {
			r.pagingState = bytes.Clone(m.Metadata.PagingState)
			// A server that answers with the paging state it was sent would answer the next
			// request, this one again, alike for ever: r keeps no next statement, and
			// NextPage reports ErrPagingStateRepeated after this page's rows.
			if !bytes.Equal(r.pagingState, info.opts.pagingState()) {
				r.next = nextPageStatement(info, r.pagingState)
			}
		}
	case *proto.VoidResult:
		if resp.Warnings == nil && !resp.HasTracingID && resp.CustomPayload == nil {
			// Plain void results of one coordinator are identical and immutable: share one.
			if v, ok := s.voids.Load(host); ok {
				return v.(*Result), nil
			}
			v := &Result{kind: ResultVoid, host: host, sess: s}
			s.voids.Store(host, v)
			return v, nil
		}
		r = &Result{kind: ResultVoid}
	case *proto.SetKeyspaceResult:
		r = &Result{kind: ResultSetKeyspace, keyspace: m.Keyspace}
	case *proto.SchemaChangeResult:
		sc := schemaChangeOf(m.SchemaChange)
		r = &Result{kind: ResultSchemaChange, change: &sc}
	default:
		return nil, fmt.Errorf("native: %s answered %q with an unexpected %s message", host, abbreviate(info.what), resp.Header.Opcode)
	}
	r.host = host
	r.sess = s
	r.warnings = resp.Warnings
	if resp.HasTracingID {
		r.traceID, r.traced = resp.TracingID, true
	}
	if resp.CustomPayload != nil {
		r.payload = make(map[string][]byte, len(resp.CustomPayload))
		for k, v := range maps.All(resp.CustomPayload) {
			r.payload[k] = bytes.Clone(v)
		}
	}
	return r, nil
}

// nextPageStatement returns the statement that fetches the page after the one of info's
// request, which ended with pagingState: the same statement with the same options, carrying
// the values already encoded. The statement and its rare options are one allocation.
func nextPageStatement(info *reqInfo, pagingState []byte) *Statement {
	n := new(struct {
		st   Statement
		rare rareOptions
	})
	if info.opts.rare != nil {
		n.rare = *info.opts.rare
	}
	n.rare.pagingState = pagingState
	n.rare.encoded = info.values.clone(info.meta)
	n.st = Statement{cql: info.what, prepared: info.prepared, opts: info.opts}
	n.st.opts.rare = &n.rare
	return &n.st
}

// schemaChangeOf converts the protocol's description of a schema change.
func schemaChangeOf(sc proto.SchemaChange) SchemaChange {
	return SchemaChange{Change: sc.Change, Target: sc.Target, Keyspace: sc.Keyspace, Name: sc.Name, ArgTypes: sc.ArgTypes}
}

// adoptResultMetadata records, on protocol v5 or a connection that opted in to ScyllaDB's
// result metadata ids (conn.Conn.MetadataID), the result metadata a node sent with a new
// result metadata id because the statement's result columns changed since it was prepared
// (a column added to the table of a SELECT *), or because the EXECUTE sent none (the
// statement was prepared on a connection without them): later executions send the new id and
// decode with the new columns, so the node stops sending the metadata with every result.
// bound is the metadata the request was sent with; when another request replaced it
// meanwhile, nothing changes.
func adoptResultMetadata(p *Prepared, bound *preparedMeta, id []byte, columns []Column) {
	m := *bound
	m.resultMetadataID = bytes.Clone(id)
	m.columns = columns
	p.meta.CompareAndSwap(bound, &m)
}
