package proto

import (
	"bytes"
	"fmt"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// ResultKind is the kind of a RESULT message.
type ResultKind int32

// Result kinds.
const (
	ResultVoid         ResultKind = 0x0001
	ResultRows         ResultKind = 0x0002
	ResultSetKeyspace  ResultKind = 0x0003
	ResultPrepared     ResultKind = 0x0004
	ResultSchemaChange ResultKind = 0x0005
)

// MetadataFlags are the flags of rows and prepared metadata.
type MetadataFlags int32

// Metadata flags.
const (
	MetaGlobalTablesSpec MetadataFlags = 0x0001
	MetaHasMorePages     MetadataFlags = 0x0002
	MetaNoMetadata       MetadataFlags = 0x0004
	MetaMetadataChanged  MetadataFlags = 0x0008 // v5, or ScyllaDB's StartupUseMetadataID
)

// ColumnSpec describes one column of a result or one bind marker of a prepared statement.
type ColumnSpec struct {
	Keyspace string
	Table    string
	Name     string
	Type     *cqltype.Type
}

// RowsMetadata is the <metadata> of a rows result (and the result metadata of PREPARE).
type RowsMetadata struct {
	Flags       MetadataFlags
	ColumnCount int
	// PagingState is set when more pages follow (a sub-slice of the frame: copy it to keep it
	// past Response.Release).
	PagingState []byte
	// NewMetadataID is the new result metadata id when the server says it changed (v5, or
	// ScyllaDB's StartupUseMetadataID; a sub-slice of the frame).
	NewMetadataID []byte
	// Columns is nil when the server left the metadata out (MetaNoMetadata). The slice and its
	// elements are never modified after decoding, so they may be kept after Release.
	Columns []ColumnSpec
}

// HasMorePages reports whether the server has more pages (PagingState is then set).
func (m *RowsMetadata) HasMorePages() bool { return m.Flags&MetaHasMorePages != 0 }

// VoidResult is a RESULT of kind Void.
type VoidResult struct{}

// Opcode returns OpResult.
func (*VoidResult) Opcode() Opcode { return OpResult }

// SetKeyspaceResult is the RESULT of a USE statement.
type SetKeyspaceResult struct {
	Keyspace string
}

// Opcode returns OpResult.
func (*SetKeyspaceResult) Opcode() Opcode { return OpResult }

// SchemaChange describes a schema change (a RESULT of kind Schema_change, or a SCHEMA_CHANGE
// event).
type SchemaChange struct {
	Change   string   // "CREATED", "UPDATED" or "DROPPED"
	Target   string   // "KEYSPACE", "TABLE", "TYPE", "FUNCTION" or "AGGREGATE"
	Keyspace string   // the keyspace changed, or holding the changed object
	Name     string   // table, type, function or aggregate name; empty for KEYSPACE
	ArgTypes []string // argument types of a FUNCTION or AGGREGATE
}

// SchemaChangeResult is a RESULT of kind Schema_change.
type SchemaChangeResult struct {
	SchemaChange
}

// Opcode returns OpResult.
func (*SchemaChangeResult) Opcode() Opcode { return OpResult }

// PreparedResult is the RESULT of a PREPARE. Its byte slices are copies, so it may be cached
// after Response.Release.
type PreparedResult struct {
	ID []byte
	// ResultMetadataID is the result metadata id (v5, or before v5 with
	// DecodeOptions.MetadataID).
	ResultMetadataID []byte
	// Flags of the bind metadata.
	Flags MetadataFlags
	// Bind describes the bind markers, in order.
	Bind []ColumnSpec
	// PKIndexes are the indexes in Bind of the partition key columns, in partition key order
	// (empty when not every partition key column is bound, and always with protocol v3,
	// whose prepared metadata does not carry them).
	PKIndexes []uint16
	// Result describes the rows the statement returns (Columns nil when it returns none or the
	// server sent MetaNoMetadata).
	Result RowsMetadata
}

// Opcode returns OpResult.
func (*PreparedResult) Opcode() Opcode { return OpResult }

// RowsResult is a RESULT of kind Rows, decoded in place: the row data stays in the frame
// buffer and is iterated cell by cell with Next and Cell, without copying. Everything but
// Metadata.Columns becomes invalid when the Response is released.
type RowsResult struct {
	Metadata RowsMetadata
	RowCount int
	// RowData holds the encoded rows (a sub-slice of the frame).
	RowData []byte
	RowCursor
}

// Opcode returns OpResult.
func (*RowsResult) Opcode() Opcode { return OpResult }

// RowCursor iterates over encoded rows: each row is ColumnCount cells, each cell an [int]
// length and its bytes. Call Next to move to the next row, then Cell or Row to read it.
type RowCursor struct {
	data  []byte
	cols  int
	rows  int
	row   int // rows consumed
	off   int
	cells [][]byte
}

// NewRowCursor returns a cursor over rowCount rows of colCount cells in data, after checking
// that data holds exactly that many well-formed cells. cells, when large enough, is reused to
// hold the current row.
func NewRowCursor(data []byte, rowCount, colCount int, cells [][]byte) (RowCursor, error) {
	if err := validateRows(data, rowCount, colCount); err != nil {
		return RowCursor{}, err
	}
	c := RowCursor{cells: cells}
	c.init(data, rowCount, colCount)
	return c, nil
}

func (c *RowCursor) init(data []byte, rows, cols int) {
	c.data, c.rows, c.cols, c.row, c.off = data, rows, cols, 0, 0
	if rows == 0 {
		// No row will be read, and cols is not bounded by the data (a result without
		// metadata may claim any column count): allocate nothing for it.
		c.cells = c.cells[:0]
		return
	}
	if cap(c.cells) < cols {
		c.cells = make([][]byte, cols)
	}
	c.cells = c.cells[:cols]
	clear(c.cells)
}

// Next advances to the next row and reports whether there is one.
func (c *RowCursor) Next() bool {
	if c.row >= c.rows {
		return false
	}
	c.row++
	for i := 0; i < c.cols; i++ {
		n := int(int32(uint32(c.data[c.off])<<24 | uint32(c.data[c.off+1])<<16 | uint32(c.data[c.off+2])<<8 | uint32(c.data[c.off+3])))
		c.off += 4
		if n < 0 {
			c.cells[i] = nil
			continue
		}
		c.cells[i] = c.data[c.off : c.off+n : c.off+n]
		c.off += n
	}
	return true
}

// Cell returns the bytes of column i of the current row: nil for NULL, a non-nil empty slice
// for an empty value. The slice aliases the frame buffer.
func (c *RowCursor) Cell(i int) []byte { return c.cells[i] }

// Row returns the cells of the current row. The slice is reused by the next call to Next.
func (c *RowCursor) Row() [][]byte { return c.cells }

// Reset moves the cursor back before the first row.
func (c *RowCursor) Reset() { c.row, c.off = 0, 0; clear(c.cells) }

// validateRows walks every cell once so that Next can index without checks.
func validateRows(data []byte, rows, cols int) error {
	if rows < 0 || cols < 0 {
		return fmt.Errorf("%w: rows result with %d rows of %d columns", ErrMalformed, rows, cols)
	}
	if rows > 0 && cols == 0 {
		return fmt.Errorf("%w: rows result with %d rows but no columns", ErrMalformed, rows)
	}
	if int64(rows)*int64(cols)*4 > int64(len(data)) {
		return fmt.Errorf("%w: %d rows of %d columns cannot fit in %d bytes", ErrMalformed, rows, cols, len(data))
	}
	off := 0
	for r := 0; r < rows; r++ {
		for i := 0; i < cols; i++ {
			if len(data)-off < 4 {
				return fmt.Errorf("%w: row %d column %d: truncated cell length at offset %d", ErrMalformed, r, i, off)
			}
			n := int(int32(uint32(data[off])<<24 | uint32(data[off+1])<<16 | uint32(data[off+2])<<8 | uint32(data[off+3])))
			off += 4
			if n < 0 {
				continue
			}
			if n > len(data)-off {
				return fmt.Errorf("%w: row %d column %d: cell of %d bytes at offset %d exceeds the %d bytes left", ErrMalformed, r, i, n, off, len(data)-off)
			}
			off += n
		}
	}
	if off != len(data) {
		return fmt.Errorf("%w: %d trailing bytes after %d rows", ErrMalformed, len(data)-off, rows)
	}
	return nil
}

// metaCache remembers the last decoded column specs so that a response decoding the same
// metadata again (the common case for a repeated query) reuses them without allocating.
type metaCache struct {
	key  []byte // flags, column count and the raw spec bytes
	cols []ColumnSpec
}

// decodeColumnSpecs reads count column specs, sharing keyspace and table when global.
func decodeColumnSpecs(d *decoder, count int, global bool, cache *metaCache) []ColumnSpec {
	if count == 0 || d.err != nil {
		return nil
	}
	start := d.off
	if cache != nil && len(cache.key) > 8 && int(int32(uint32(cache.key[4])<<24|uint32(cache.key[5])<<16|uint32(cache.key[6])<<8|uint32(cache.key[7]))) == count &&
		(cache.key[0] == 1) == global && bytes.HasPrefix(d.b[start:], cache.key[8:]) {
		d.off += len(cache.key) - 8
		return cache.cols
	}
	// Every spec takes at least a 2-byte name and a 2-byte type id.
	if int64(count)*4 > int64(d.remaining()) {
		d.failf("%d column specs cannot fit in the %d bytes left", count, d.remaining())
		return nil
	}
	var ks, table string
	if global {
		ks = d.string_("global keyspace")
		table = d.string_("global table")
	}
	cols := make([]ColumnSpec, count)
	for i := range cols {
		if !global {
			ksb := d.stringBytes("column keyspace")
			tb := d.stringBytes("column table")
			// Consecutive columns almost always share keyspace and table: reuse the strings.
			if i > 0 && string(ksb) == cols[i-1].Keyspace {
				ks = cols[i-1].Keyspace
			} else {
				ks = string(ksb)
			}
			if i > 0 && string(tb) == cols[i-1].Table {
				table = cols[i-1].Table
			} else {
				table = string(tb)
			}
		}
		cols[i].Keyspace, cols[i].Table = ks, table
		cols[i].Name = d.string_("column name")
		if d.err != nil {
			return nil
		}
		t, n, err := cqltype.ParseOption(d.b[d.off:])
		if err != nil {
			d.failf("type of column %d (%q): %v", i, cols[i].Name, err)
			return nil
		}
		d.off += n
		cols[i].Type = t
	}
	if cache != nil && d.err == nil {
		key := cache.key[:0]
		if global {
			key = append(key, 1, 0, 0, 0)
		} else {
			key = append(key, 0, 0, 0, 0)
		}
		key = AppendInt(key, int32(count))
		// The key is copied, never aliased to the frame.
		cache.key = append(key, d.b[start:d.off]...)
		cache.cols = cols
	}
	return cols
}

// decodeRowsMetadata reads a rows <metadata>.
func decodeRowsMetadata(d *decoder, m *RowsMetadata, cache *metaCache) {
	m.Flags = MetadataFlags(d.int_("metadata flags"))
	m.ColumnCount = d.count("metadata column count", 0)
	m.PagingState, m.NewMetadataID, m.Columns = nil, nil, nil
	if m.Flags&MetaHasMorePages != 0 {
		m.PagingState = d.bytes("paging state")
	}
	if m.Flags&MetaMetadataChanged != 0 {
		m.NewMetadataID = d.shortBytes("new metadata id")
	}
	if m.Flags&MetaNoMetadata == 0 {
		m.Columns = decodeColumnSpecs(d, m.ColumnCount, m.Flags&MetaGlobalTablesSpec != 0, cache)
	}
}

func decodeRows(d *decoder, r *RowsResult, cache *metaCache) {
	decodeRowsMetadata(d, &r.Metadata, cache)
	r.RowCount = d.count("rows count", 0)
	if d.err != nil {
		return
	}
	r.RowData = d.b[d.off:]
	d.off = len(d.b)
	if err := validateRows(r.RowData, r.RowCount, r.Metadata.ColumnCount); err != nil {
		d.err = err
		return
	}
	r.RowCursor.init(r.RowData, r.RowCount, r.Metadata.ColumnCount)
}

// decodePrepared decodes a PREPARED result of version, with a result metadata id after the
// statement id when withID is set (v5, or ScyllaDB's StartupUseMetadataID).
func decodePrepared(d *decoder, version Version, withID bool) *PreparedResult {
	p := &PreparedResult{}
	p.ID = bytes.Clone(d.shortBytes("prepared id"))
	if withID {
		p.ResultMetadataID = bytes.Clone(d.shortBytes("result metadata id"))
	}
	p.Flags = MetadataFlags(d.int_("prepared metadata flags"))
	cols := d.count("prepared column count", 0)
	pk := 0
	if version >= Version4 {
		// v3's prepared metadata has no partition key indexes.
		pk = d.count("partition key count", 2)
	}
	if pk > 0 {
		p.PKIndexes = make([]uint16, pk)
		for i := range p.PKIndexes {
			p.PKIndexes[i] = d.short("partition key index")
			if d.err == nil && int(p.PKIndexes[i]) >= cols {
				d.failf("partition key index %d out of range of %d bind markers", p.PKIndexes[i], cols)
			}
		}
	}
	p.Bind = decodeColumnSpecs(d, cols, p.Flags&MetaGlobalTablesSpec != 0, nil)
	decodeRowsMetadata(d, &p.Result, nil)
	p.Result.PagingState = bytes.Clone(p.Result.PagingState)
	p.Result.NewMetadataID = bytes.Clone(p.Result.NewMetadataID)
	if d.err != nil {
		return nil
	}
	return p
}

func decodeSchemaChange(d *decoder, s *SchemaChange) {
	s.Change = d.string_("schema change type")
	s.Target = d.string_("schema change target")
	s.Keyspace = d.string_("schema change keyspace")
	switch s.Target {
	case "KEYSPACE":
	case "TABLE", "TYPE":
		s.Name = d.string_("schema change name")
	case "FUNCTION", "AGGREGATE":
		s.Name = d.string_("schema change name")
		s.ArgTypes = d.stringList("schema change argument types")
	default:
		d.failf("unknown schema change target %q", s.Target)
	}
}
