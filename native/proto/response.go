package proto

import (
	"fmt"
	"sync"
)

// Message is a decoded response message: one of *ErrorResponse, *Ready, *Authenticate,
// *Supported, *VoidResult, *RowsResult, *SetKeyspaceResult, *PreparedResult,
// *SchemaChangeResult, *Event, *AuthChallenge, *AuthSuccess.
type Message interface {
	Opcode() Opcode
}

// Ready is the READY response.
type Ready struct{}

// Opcode returns OpReady.
func (*Ready) Opcode() Opcode { return OpReady }

// Authenticate is the AUTHENTICATE response: the server requires SASL authentication with the
// named authenticator class.
type Authenticate struct {
	Authenticator string
}

// Opcode returns OpAuthenticate.
func (*Authenticate) Opcode() Opcode { return OpAuthenticate }

// Supported is the SUPPORTED response: the options the server supports (CQL_VERSION,
// COMPRESSION, PROTOCOL_VERSIONS, ScyllaDB's SCYLLA_* extensions, ...).
type Supported struct {
	Options map[string][]string
}

// Opcode returns OpSupported.
func (*Supported) Opcode() Opcode { return OpSupported }

// AuthChallenge is the AUTH_CHALLENGE response carrying a SASL challenge (copied).
type AuthChallenge struct {
	Token []byte
}

// Opcode returns OpAuthChallenge.
func (*AuthChallenge) Opcode() Opcode { return OpAuthChallenge }

// AuthSuccess is the AUTH_SUCCESS response carrying the final SASL token (copied; may be nil).
type AuthSuccess struct {
	Token []byte
}

// Opcode returns OpAuthSuccess.
func (*AuthSuccess) Opcode() Opcode { return OpAuthSuccess }

// DecodeOptions configure response decoding.
type DecodeOptions struct {
	// Compressor decompresses bodies with FlagCompression; a compressed frame without one is
	// an error.
	Compressor Compressor
	// MaxBodySize bounds the decompressed body; DefaultMaxFrameSize when <= 0.
	MaxBodySize int
	// RateLimitCode is the error code the server uses for ScyllaDB's rate limit error
	// (advertised in SUPPORTED); 0 means ErrCodeRateLimit.
	RateLimitCode ErrorCode
	// MetadataID says that the connection negotiated ScyllaDB's StartupUseMetadataID before
	// protocol v5: a PREPARED result carries the result metadata id after the statement id,
	// as in v5. (Rows with Metadata_changed are read in every version.)
	MetadataID bool
}

// Response is a decoded response frame. Responses are pooled: get one with AcquireResponse,
// fill it with Decode, and call Release when done with it; the decoded message and every
// byte slice it holds (except where documented otherwise) alias the frame buffer and become
// invalid on Release.
type Response struct {
	Header Header
	// TracingID is the tracing session id when the request was traced (FlagTracing).
	TracingID    [16]byte
	HasTracingID bool
	// Warnings are the server's warnings for the request (FlagWarning).
	Warnings []string
	// CustomPayload is the frame's custom payload (FlagCustomPayload); values alias the frame.
	CustomPayload map[string][]byte
	// Msg is the decoded message.
	Msg Message

	frame  *[]byte // buffer holding the raw body, returned to the pool on Release
	inflat *[]byte // buffer holding the decompressed body
	rows   RowsResult
	void   VoidResult
	ready  Ready
	event  Event
	meta   metaCache
}

var responsePool = sync.Pool{New: func() any { return new(Response) }}

// AcquireResponse returns an empty Response from the pool.
func AcquireResponse() *Response {
	return responsePool.Get().(*Response)
}

// Release returns the frame buffers and the Response itself to their pools. The Response and
// everything decoded into it must not be used afterwards. Release on nil does nothing.
func (r *Response) Release() {
	if r == nil {
		return
	}
	r.reset()
	responsePool.Put(r)
}

func (r *Response) reset() {
	PutBuffer(r.frame)
	PutBuffer(r.inflat)
	r.frame, r.inflat = nil, nil
	r.Header = Header{}
	r.HasTracingID = false
	r.Warnings, r.CustomPayload, r.Msg = nil, nil, nil
	r.rows.Metadata, r.rows.RowData, r.rows.RowCount = RowsMetadata{}, nil, 0
	r.rows.RowCursor.data = nil
	clear(r.rows.RowCursor.cells)
	r.event = Event{}
}

// Decode decodes the response frame with header h and body. When buf is non-nil it is the
// pooled buffer holding body, and Release returns it to the pool. Errors wrap ErrMalformed
// (for bytes that are not a valid message) or ErrFrameTooLarge. A server ERROR message is not
// a decoding error: Msg is then an *ErrorResponse.
func (r *Response) Decode(h Header, body []byte, buf *[]byte, opts *DecodeOptions) error {
	r.Header = h
	r.frame = buf
	var o DecodeOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBodySize <= 0 {
		o.MaxBodySize = DefaultMaxFrameSize
	}
	if o.RateLimitCode == 0 {
		o.RateLimitCode = ErrCodeRateLimit
	}
	if h.Flags&FlagCompression != 0 && len(body) > 0 {
		if o.Compressor == nil {
			return fmt.Errorf("%w: compressed %s frame but no compression was negotiated", ErrMalformed, h.Opcode)
		}
		// A pooled buffer at most: AppendDecompressed grows it to the exact size once it has
		// checked the size the body announces, so a body announcing too much is refused
		// before anything of its size is allocated.
		r.inflat = GetBuffer(min(len(body)*2, maxPooledBuffer))
		out, err := o.Compressor.AppendDecompressed((*r.inflat)[:0], body, o.MaxBodySize)
		if err != nil {
			return fmt.Errorf("decompressing %s frame of %d bytes: %w", h.Opcode, len(body), err)
		}
		if cap(out) > cap(*r.inflat) {
			// Grown past the pooled buffer: give that one back and keep the new one.
			PutBuffer(r.inflat)
			r.inflat = new([]byte)
		}
		*r.inflat = out
		body = out
	}
	d := decoder{b: body}
	if h.Flags&FlagTracing != 0 {
		r.TracingID = d.uuid("tracing id")
		r.HasTracingID = true
	}
	if h.Flags&FlagWarning != 0 {
		r.Warnings = d.stringList("warnings")
	}
	if h.Flags&FlagCustomPayload != 0 {
		r.CustomPayload = d.bytesMap("custom payload")
	}
	if d.err != nil {
		return d.err
	}
	r.Msg = r.decodeMessage(&d, h, &o)
	if d.err != nil {
		r.Msg = nil
		return fmt.Errorf("decoding %s response (stream %d): %w", h.Opcode, h.Stream, d.err)
	}
	return nil
}

func (r *Response) decodeMessage(d *decoder, h Header, o *DecodeOptions) Message {
	switch h.Opcode {
	case OpError:
		e := decodeError(d, h.Version, o.RateLimitCode)
		// The error outlives the frame; keep the tracing id with it. (r.TracingID is stale
		// from a pooled use when HasTracingID is false.)
		if r.HasTracingID {
			e.TracingID, e.HasTracingID = r.TracingID, true
		}
		return e
	case OpReady:
		return &r.ready
	case OpAuthenticate:
		return &Authenticate{Authenticator: d.string_("authenticator class")}
	case OpSupported:
		return &Supported{Options: d.stringMultimap("supported options")}
	case OpResult:
		return r.decodeResult(d, h.Version, o.MetadataID)
	case OpEvent:
		decodeEvent(d, &r.event)
		return &r.event
	case OpAuthChallenge:
		return &AuthChallenge{Token: cloneBytes(d.bytes("auth challenge token"))}
	case OpAuthSuccess:
		return &AuthSuccess{Token: cloneBytes(d.bytes("auth success token"))}
	}
	d.failf("unexpected response opcode %s", h.Opcode)
	return nil
}

// decodeResult decodes a RESULT; metadataID is DecodeOptions.MetadataID.
func (r *Response) decodeResult(d *decoder, version Version, metadataID bool) Message {
	kind := ResultKind(d.int_("result kind"))
	switch kind {
	case ResultVoid:
		return &r.void
	case ResultRows:
		decodeRows(d, &r.rows, &r.meta)
		return &r.rows
	case ResultSetKeyspace:
		return &SetKeyspaceResult{Keyspace: d.string_("keyspace")}
	case ResultPrepared:
		if p := decodePrepared(d, version, metadataID || version >= Version5); p != nil {
			return p
		}
		return nil
	case ResultSchemaChange:
		s := &SchemaChangeResult{}
		decodeSchemaChange(d, &s.SchemaChange)
		return s
	}
	d.failf("unknown result kind 0x%04x", int32(kind))
	return nil
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// Err returns the message as an error when it is an ERROR response, nil otherwise.
func (r *Response) Err() error {
	if e, ok := r.Msg.(*ErrorResponse); ok {
		return e
	}
	return nil
}
