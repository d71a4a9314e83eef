package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrKeyspaceNeedsV5 is returned when a request names a per-statement keyspace but the
// connection speaks a protocol version before v5, which has no field for it.
var ErrKeyspaceNeedsV5 = errors.New("proto: per-statement keyspace needs protocol v5")

// ErrCustomPayloadNeedsV4 is returned when a request carries a custom payload but the
// connection speaks protocol v3, which has no frame flag for it.
var ErrCustomPayloadNeedsV4 = errors.New("proto: custom payload needs protocol v4")

// ValueWriter writes bound values straight into a frame being encoded.
//
// WriteValues appends the values to dst, each as a [value] (an [int] length followed by the
// bytes; length -1 for NULL, -2 for unset), each preceded by its [string] name when the
// parameters say NamedValues, and returns the extended slice and the number of values written.
// AppendValue, AppendNull, AppendUnset, AppendName, BeginValue and EndValue help build the
// encoding without intermediate slices.
type ValueWriter interface {
	WriteValues(dst []byte) ([]byte, int, error)
}

// AppendValue appends v as a [value]; a nil v is NULL.
func AppendValue(dst, v []byte) []byte { return AppendBytes(dst, v) }

// AppendNull appends a NULL [value].
func AppendNull(dst []byte) []byte { return AppendInt(dst, -1) }

// AppendUnset appends an unset [value] (the column keeps its current value). Unset values are a
// protocol v4 addition: a v3 server reads this encoding as NULL.
func AppendUnset(dst []byte) []byte { return AppendInt(dst, -2) }

// AppendName appends the [string] name of a named value.
func AppendName(dst []byte, name string) ([]byte, error) { return AppendString(dst, name) }

// BeginValue reserves the 4-byte length of a [value] and returns dst and the offset to pass to
// EndValue once the value's bytes have been appended.
func BeginValue(dst []byte) ([]byte, int) {
	return append(dst, 0, 0, 0, 0), len(dst)
}

// EndValue fills in the length of the [value] begun at mark by BeginValue.
func EndValue(dst []byte, mark int) ([]byte, error) {
	n := len(dst) - mark - 4
	if n > math.MaxInt32 {
		return dst, fmt.Errorf("proto: value of %d bytes is too long", n)
	}
	binary.BigEndian.PutUint32(dst[mark:mark+4], uint32(n))
	return dst, nil
}

// Values is a ValueWriter over values that are already encoded; a nil entry is NULL.
type Values [][]byte

// WriteValues appends every value.
func (v Values) WriteValues(dst []byte) ([]byte, int, error) {
	for _, b := range v {
		dst = AppendBytes(dst, b)
	}
	return dst, len(v), nil
}

// NamedValue is one encoded value bound by name.
type NamedValue struct {
	Name  string
	Value []byte // nil is NULL
}

// NamedValues is a ValueWriter for named values (use it with QueryParams.NamedValues).
type NamedValues []NamedValue

// WriteValues appends every name and value.
func (v NamedValues) WriteValues(dst []byte) ([]byte, int, error) {
	var err error
	for _, nv := range v {
		if dst, err = AppendString(dst, nv.Name); err != nil {
			return dst, 0, fmt.Errorf("proto: value name: %w", err)
		}
		dst = AppendBytes(dst, nv.Value)
	}
	return dst, len(v), nil
}

// Query parameter flags (the <flags> of <query_parameters>).
const (
	queryFlagValues            = 0x01
	queryFlagSkipMetadata      = 0x02
	queryFlagPageSize          = 0x04
	queryFlagPagingState       = 0x08
	queryFlagSerialConsistency = 0x10
	queryFlagDefaultTimestamp  = 0x20
	queryFlagNamesForValues    = 0x40
	queryFlagKeyspace          = 0x80 // v5
)

// QueryParams are the <query_parameters> of QUERY and EXECUTE.
type QueryParams struct {
	Consistency Consistency
	// Values writes the bound values; nil sends none.
	Values ValueWriter
	// NamedValues says Values writes a name before each value.
	NamedValues bool
	// SkipMetadata asks the server to leave the column metadata out of a rows result (the
	// client already has it from PREPARE).
	SkipMetadata bool
	// PageSize is the page size in rows; <= 0 asks for no paging.
	PageSize int32
	// PagingState continues a paged query where the previous page ended; nil starts over.
	PagingState []byte
	// SerialConsistency is the level of the serial phase of conditional updates; 0 (Any)
	// leaves it unset.
	SerialConsistency Consistency
	// Timestamp is the default timestamp in microseconds, sent when HasTimestamp is true.
	Timestamp    int64
	HasTimestamp bool
	// Keyspace is the per-statement keyspace (protocol v5 only; an error with v4).
	Keyspace string
}

// AppendQueryParams appends p as <query_parameters> for version.
func AppendQueryParams(dst []byte, p *QueryParams, version Version) ([]byte, error) {
	var flags uint32
	if p.Values != nil {
		flags |= queryFlagValues
		if p.NamedValues {
			flags |= queryFlagNamesForValues
		}
	}
	if p.SkipMetadata {
		flags |= queryFlagSkipMetadata
	}
	if p.PageSize > 0 {
		flags |= queryFlagPageSize
	}
	if p.PagingState != nil {
		flags |= queryFlagPagingState
	}
	if p.SerialConsistency != 0 {
		flags |= queryFlagSerialConsistency
	}
	if p.HasTimestamp {
		flags |= queryFlagDefaultTimestamp
	}
	if p.Keyspace != "" {
		if version < Version5 {
			return dst, fmt.Errorf("%w: keyspace %q in query parameters", ErrKeyspaceNeedsV5, p.Keyspace)
		}
		flags |= queryFlagKeyspace
	}
	dst = AppendShort(dst, uint16(p.Consistency))
	if version >= Version5 {
		dst = binary.BigEndian.AppendUint32(dst, flags)
	} else {
		dst = append(dst, byte(flags))
	}
	if p.Values != nil {
		var err error
		if dst, err = appendValues(dst, p.Values); err != nil {
			return dst, err
		}
	}
	if p.PageSize > 0 {
		dst = AppendInt(dst, p.PageSize)
	}
	if p.PagingState != nil {
		dst = AppendBytes(dst, p.PagingState)
	}
	if p.SerialConsistency != 0 {
		dst = AppendShort(dst, uint16(p.SerialConsistency))
	}
	if p.HasTimestamp {
		dst = AppendLong(dst, p.Timestamp)
	}
	if p.Keyspace != "" {
		return AppendString(dst, p.Keyspace)
	}
	return dst, nil
}

// appendValues writes the [short] count and lets w append the values after it.
func appendValues(dst []byte, w ValueWriter) ([]byte, error) {
	mark := len(dst)
	dst = append(dst, 0, 0)
	dst, n, err := w.WriteValues(dst)
	if err != nil {
		return dst, err
	}
	if n < 0 || n > math.MaxUint16 {
		return dst, fmt.Errorf("proto: %d bound values; the protocol allows at most 65535", n)
	}
	binary.BigEndian.PutUint16(dst[mark:mark+2], uint16(n))
	return dst, nil
}

// Query is the QUERY request: a CQL statement with its parameters.
type Query struct {
	FrameOptions
	Query  string
	Params QueryParams
}

// Opcode returns OpQuery.
func (*Query) Opcode() Opcode { return OpQuery }

// AppendBody appends <query><query_parameters>.
func (q *Query) AppendBody(dst []byte, version Version) ([]byte, error) {
	dst, err := AppendLongString(dst, q.Query)
	if err != nil {
		return dst, err
	}
	return AppendQueryParams(dst, &q.Params, version)
}

// Execute is the EXECUTE request: a prepared statement id with its parameters.
type Execute struct {
	FrameOptions
	ID []byte
	// ResultMetadataID is the result metadata id from PREPARE: sent with protocol v5, where it
	// is required, and before v5 only through WithMetadataID. Empty, it is sent empty.
	ResultMetadataID []byte
	Params           QueryParams
}

// Opcode returns OpExecute.
func (*Execute) Opcode() Opcode { return OpExecute }

// AppendBody appends <id>[<result_metadata_id>]<query_parameters>: the result metadata id
// from protocol v5 on.
func (e *Execute) AppendBody(dst []byte, version Version) ([]byte, error) {
	return e.appendBody(dst, version, version >= Version5)
}

// WithMetadataID returns req as it is sent on a connection that negotiated ScyllaDB's
// StartupUseMetadataID before protocol v5: an *Execute then carries its ResultMetadataID
// after its id, as in v5 (everything else stays in the connection's version); any other
// request is returned as it is. The result shares req and costs no allocation.
func WithMetadataID(req Request) Request {
	if e, ok := req.(*Execute); ok {
		return executeWithMetadataID{e}
	}
	return req
}

// executeWithMetadataID is an EXECUTE encoded with its result metadata id whatever the
// version (see WithMetadataID).
type executeWithMetadataID struct{ *Execute }

// AppendBody appends <id><result_metadata_id><query_parameters>.
func (e executeWithMetadataID) AppendBody(dst []byte, version Version) ([]byte, error) {
	return e.appendBody(dst, version, true)
}

// appendBody appends the EXECUTE body, with the result metadata id when withID is set.
func (e *Execute) appendBody(dst []byte, version Version, withID bool) ([]byte, error) {
	if len(e.ID) == 0 {
		return dst, errors.New("proto: EXECUTE without a prepared statement id")
	}
	dst, err := AppendShortBytes(dst, e.ID)
	if err != nil {
		return dst, err
	}
	if withID {
		if dst, err = AppendShortBytes(dst, e.ResultMetadataID); err != nil {
			return dst, err
		}
	}
	return AppendQueryParams(dst, &e.Params, version)
}
