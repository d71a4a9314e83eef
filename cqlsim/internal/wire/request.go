package wire

import (
	"errors"
	"fmt"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
)

// Query parameter flags (spec v4 §4.1.4; v5 widens the flags to an int and adds the last two).
const (
	queryValues            byte  = 0x01
	querySkipMetadata      byte  = 0x02
	queryPageSize          byte  = 0x04
	queryPagingState       byte  = 0x08
	querySerialConsistency byte  = 0x10
	queryDefaultTimestamp  byte  = 0x20
	queryNames             byte  = 0x40
	queryKeyspace          int32 = 0x80  // v5
	queryNowInSeconds      int32 = 0x100 // v5
)

// prepareKeyspace is the PREPARE flag announcing a keyspace (v5).
const prepareKeyspace int32 = 0x01

// maxConsistency is the highest consistency code (LOCAL_ONE, 0x000A).
const maxConsistency = 0x000A

// ErrMalformed is wrapped by every decoding error: the request body does not follow the spec.
var ErrMalformed = errors.New("malformed request")

// QueryParams are the <query_parameters> of QUERY and EXECUTE.
type QueryParams struct {
	Consistency  uint16
	Values       engine.Values
	SkipMetadata bool
	PageSize     int32 // <= 0: no paging
	PagingState  []byte
	Serial       uint16 // 0 when not given
	Timestamp    int64  // 0 when not given
	Keyspace     string // v5: the keyspace to run in instead of the connection's; "" when not given
}

// Query is a QUERY request.
type Query struct {
	Query  string
	Params QueryParams
}

// Prepare is a PREPARE request.
type Prepare struct {
	Query    string
	Keyspace string // v5: the keyspace to prepare in instead of the connection's
}

// Execute is an EXECUTE request.
type Execute struct {
	ID               []byte
	ResultMetadataID []byte // v5, or Extensions.MetadataID
	Params           QueryParams
}

// BatchStatement is one statement of a BATCH: Query text, or the ID of a prepared statement.
type BatchStatement struct {
	Query  string
	ID     []byte // nil for a query string
	Values engine.Values
}

// Batch is a BATCH request.
type Batch struct {
	Type        uint8 // 0 logged, 1 unlogged, 2 counter
	Statements  []BatchStatement
	Consistency uint16
	Serial      uint16
	Timestamp   int64
	Keyspace    string // v5
}

// Request is a decoded request body: exactly one field is set, or none for OPTIONS.
type Request struct {
	Startup      map[string]string
	Register     []string
	AuthResponse []byte // the SASL token (nil token is legal)
	Query        *Query
	Prepare      *Prepare
	Execute      *Execute
	Batch        *Batch
}

// Extensions are the protocol extensions negotiated in STARTUP that change how a connection's
// requests decode.
type Extensions struct {
	// MetadataID is ScyllaDB's SCYLLA_USE_METADATA_ID: before v5, an EXECUTE carries a result
	// metadata id after the statement id, as in v5.
	MetadataID bool
}

// DecodeRequest decodes the body of a request frame with header h. The body must already be
// decompressed. Values in the result are sub-slices of body. Errors wrap ErrMalformed and say what
// was wrong where; an unknown or response opcode is an error too.
func DecodeRequest(h Header, body []byte) (*Request, error) {
	return DecodeRequestExt(h, body, Extensions{})
}

// DecodeRequestExt is DecodeRequest on a connection that negotiated the extensions ext.
func DecodeRequestExt(h Header, body []byte, ext Extensions) (*Request, error) {
	r := &reader{b: body, preV4: h.Version < 4}
	if h.Flags&FlagCustomPayload != 0 {
		r.skipBytesMap("custom payload")
	}
	req := &Request{}
	switch h.Opcode {
	case OpOptions:
	case OpStartup:
		req.Startup = r.stringMap("STARTUP options")
	case OpRegister:
		req.Register = r.stringList("REGISTER event types")
	case OpAuthResponse:
		req.AuthResponse = r.bytes("AUTH_RESPONSE token")
	case OpQuery:
		q := &Query{Query: r.longString("query string")}
		readParams(r, &q.Params, h.Version)
		req.Query = q
	case OpPrepare:
		p := &Prepare{Query: r.longString("query string")}
		if h.Version >= 5 {
			flags := r.int("prepare flags")
			if r.err == nil && flags&^prepareKeyspace != 0 {
				r.fail("unknown prepare flags 0x%X", flags)
			}
			if flags&prepareKeyspace != 0 {
				p.Keyspace = r.string("keyspace")
			}
		}
		req.Prepare = p
	case OpExecute:
		e := &Execute{ID: r.shortBytes("prepared id")}
		if h.Version >= 5 || ext.MetadataID {
			e.ResultMetadataID = r.shortBytes("result metadata id")
		}
		readParams(r, &e.Params, h.Version)
		req.Execute = e
	case OpBatch:
		req.Batch = readBatch(r, h.Version)
	default:
		return nil, fmt.Errorf("%w: opcode %s is not a request", ErrMalformed, OpcodeName(h.Opcode))
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %s body: %w", ErrMalformed, OpcodeName(h.Opcode), r.err)
	}
	return req, nil
}

func readConsistency(r *reader, what string) uint16 {
	c := r.short(what)
	if r.err == nil && c > maxConsistency {
		r.err = &UnknownConsistencyError{Code: c}
	}
	return c
}

// UnknownConsistencyError is the decoding error of a consistency or serial consistency code
// that is no consistency level. Its message is Cassandra's, which servers answer verbatim.
type UnknownConsistencyError struct {
	Code uint16
}

// Error returns Cassandra's message for the code.
func (e *UnknownConsistencyError) Error() string {
	return fmt.Sprintf("Unknown code %d for a consistency level", e.Code)
}

// readValue reads one [value]: length -1 is NULL, -2 is unset, other negative lengths are errors.
// Before protocol v4 every negative length is NULL, as Cassandra reads them (v3 has no unset).
func readValue(r *reader, what string) engine.Value {
	n := r.int(what + " length")
	if r.err != nil {
		return engine.Value{}
	}
	switch {
	case n == -1 || n < 0 && r.preV4:
		return engine.Value{}
	case n == -2:
		return engine.Value{Unset: true}
	case n < 0:
		r.fail("%s has invalid length %d", what, n)
		return engine.Value{}
	}
	b := r.take(int(n), what)
	if b == nil && r.err == nil {
		b = []byte{}
	}
	return engine.Value{Bytes: b}
}

// readValues reads a short count and that many values, each preceded by a name when named.
func readValues(r *reader, named bool) engine.Values {
	n := int(r.short("value count"))
	if r.err != nil || n == 0 {
		return engine.Values{}
	}
	if n*4 > r.remaining() {
		r.fail("%d values claimed, %d bytes remain", n, r.remaining())
		return engine.Values{}
	}
	if named {
		m := make(map[string]engine.Value, n)
		for i := 0; i < n && r.err == nil; i++ {
			name := r.string("value name")
			v := readValue(r, "value")
			if _, dup := m[name]; !dup { // Cassandra binds a marker to the first value of its name
				m[name] = v
			}
		}
		return engine.Values{Named: m}
	}
	vs := make([]engine.Value, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		vs = append(vs, readValue(r, "value"))
	}
	return engine.Values{Positional: vs}
}

// readFlags reads query or batch flags: a byte before v5, an int from v5 on.
func readFlags(r *reader, version uint8, what string) int32 {
	if version >= 5 {
		return r.int(what)
	}
	return int32(r.byte(what))
}

func readParams(r *reader, p *QueryParams, version uint8) {
	p.Consistency = readConsistency(r, "consistency")
	iflags := readFlags(r, version, "query flags")
	if r.err != nil {
		return
	}
	known := int32(0x7f)
	if version >= 5 {
		known |= queryKeyspace | queryNowInSeconds
	}
	if iflags&^known != 0 {
		r.fail("unknown query flags 0x%02X", iflags)
		return
	}
	flags := byte(iflags)
	if flags&queryValues != 0 {
		p.Values = readValues(r, flags&queryNames != 0)
	}
	p.SkipMetadata = flags&querySkipMetadata != 0
	if flags&queryPageSize != 0 {
		p.PageSize = r.int("page size")
	}
	if flags&queryPagingState != 0 {
		p.PagingState = r.bytes("paging state")
	}
	if flags&querySerialConsistency != 0 {
		p.Serial = readConsistency(r, "serial consistency")
	}
	if flags&queryDefaultTimestamp != 0 {
		p.Timestamp = r.long("default timestamp")
	}
	if iflags&queryKeyspace != 0 {
		p.Keyspace = r.string("keyspace")
	}
	if iflags&queryNowInSeconds != 0 {
		r.int("now in seconds") // cqlsim's clock is Options.Now; the value is read and ignored
	}
}

func readBatch(r *reader, version uint8) *Batch {
	b := &Batch{Type: r.byte("batch type")}
	if r.err == nil && b.Type > 2 {
		r.fail("unknown batch type %d", b.Type)
	}
	n := int(r.short("statement count"))
	if r.err != nil {
		return nil
	}
	// Each statement takes at least 1 (kind) + 2 (id or query length) + 2 (value count) bytes.
	if n*5 > r.remaining() {
		r.fail("%d batch statements claimed, %d bytes remain", n, r.remaining())
		return nil
	}
	b.Statements = make([]BatchStatement, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		var s BatchStatement
		switch kind := r.byte("statement kind"); kind {
		case 0:
			s.Query = r.longString("batch query string")
		case 1:
			s.ID = r.shortBytes("batch prepared id")
		default:
			if r.err == nil {
				r.fail("unknown batch statement kind %d", kind)
			}
		}
		// Values are read unnamed, as Cassandra does: the names flag comes after the statements,
		// and named values in batches are rejected below (CASSANDRA-10246).
		s.Values = readValues(r, false)
		b.Statements = append(b.Statements, s)
	}
	b.Consistency = readConsistency(r, "consistency")
	iflags := readFlags(r, version, "batch flags")
	if r.err != nil {
		return nil
	}
	if iflags&int32(queryNames) != 0 {
		r.fail("named values in BATCH are not supported")
		return nil
	}
	known := int32(querySerialConsistency | queryDefaultTimestamp)
	if version >= 5 {
		known |= queryKeyspace | queryNowInSeconds
	}
	if iflags&^known != 0 {
		r.fail("unknown batch flags 0x%02X", iflags)
		return nil
	}
	flags := byte(iflags)
	if flags&querySerialConsistency != 0 {
		b.Serial = readConsistency(r, "serial consistency")
	}
	if flags&queryDefaultTimestamp != 0 {
		b.Timestamp = r.long("default timestamp")
	}
	if iflags&queryKeyspace != 0 {
		b.Keyspace = r.string("keyspace")
	}
	if iflags&queryNowInSeconds != 0 {
		r.int("now in seconds")
	}
	return b
}
