package proto

import (
	"fmt"
	"strconv"
	"strings"
)

// Request is a request message. AppendBody appends the message body, encoded for version, to dst
// and returns the extended slice; it must not retain dst.
type Request interface {
	Opcode() Opcode
	AppendBody(dst []byte, version Version) ([]byte, error)
}

// FrameOptions holds the frame-level options a request may carry. It is embedded in Query,
// Execute, Batch and Prepare; AppendFrame turns it into header flags and the custom payload.
type FrameOptions struct {
	// Tracing asks the server to trace the request; the response then carries a tracing id.
	Tracing bool
	// CustomPayload is sent as the frame's custom payload when non-nil.
	CustomPayload map[string][]byte
}

func (o *FrameOptions) frameOptions() *FrameOptions { return o }

type frameOptioner interface{ frameOptions() *FrameOptions }

// Startup options keys.
const (
	StartupCQLVersion  = "CQL_VERSION"
	StartupCompression = "COMPRESSION"
	StartupDriverName  = "DRIVER_NAME"
	StartupDriverVer   = "DRIVER_VERSION"
	// StartupLWTMark is ScyllaDB's LWT mark extension: a SUPPORTED option whose value
	// names the mask (see ParseLWTMark), echoed in STARTUP to opt in.
	StartupLWTMark = "SCYLLA_LWT_ADD_METADATA_MARK"
	// StartupRateLimitError is ScyllaDB's rate limit error extension: a SUPPORTED option
	// naming the error code (ERROR_CODE=n), echoed in STARTUP to opt in; a server then sends
	// its per-partition rate limit error with that code instead of a CONFIG_ERROR.
	StartupRateLimitError = "SCYLLA_RATE_LIMIT_ERROR"
	// StartupUseMetadataID is ScyllaDB's result metadata id extension: a SUPPORTED option,
	// echoed in STARTUP (with the value "") to opt in. On a v3 or v4 connection that opted in,
	// PREPARED carries the result metadata id, EXECUTE sends it back and rows answering an
	// EXECUTE with an outdated one carry the new one (Metadata_changed), as in protocol v5;
	// see DecodeOptions.MetadataID and WithMetadataID.
	StartupUseMetadataID = "SCYLLA_USE_METADATA_ID"
	// DefaultCQLVersion is the CQL_VERSION sent when Startup.Options does not name one.
	DefaultCQLVersion = "3.0.0"
)

// Startup is the STARTUP request: it initialises the connection with the given options.
// CQL_VERSION defaults to DefaultCQLVersion when absent.
type Startup struct {
	Options map[string]string
}

// Opcode returns OpStartup.
func (*Startup) Opcode() Opcode { return OpStartup }

// AppendBody appends the options as a [string map].
func (s *Startup) AppendBody(dst []byte, _ Version) ([]byte, error) {
	opts := s.Options
	if _, ok := opts[StartupCQLVersion]; !ok {
		opts = make(map[string]string, len(s.Options)+1)
		for k, v := range s.Options {
			opts[k] = v
		}
		opts[StartupCQLVersion] = DefaultCQLVersion
	}
	return AppendStringMap(dst, opts)
}

// Options is the OPTIONS request; the server answers with SUPPORTED. It is also used as the
// connection heartbeat.
type Options struct{}

// Opcode returns OpOptions.
func (*Options) Opcode() Opcode { return OpOptions }

// AppendBody appends nothing: OPTIONS has an empty body.
func (*Options) AppendBody(dst []byte, _ Version) ([]byte, error) { return dst, nil }

// Event types for Register.
const (
	EventTopologyChange = "TOPOLOGY_CHANGE"
	EventStatusChange   = "STATUS_CHANGE"
	EventSchemaChange   = "SCHEMA_CHANGE"
)

// Register is the REGISTER request, subscribing the connection to server-pushed events.
type Register struct {
	EventTypes []string // EventTopologyChange, EventStatusChange, EventSchemaChange
}

// Opcode returns OpRegister.
func (*Register) Opcode() Opcode { return OpRegister }

// AppendBody appends the event types as a [string list].
func (r *Register) AppendBody(dst []byte, _ Version) ([]byte, error) {
	if len(r.EventTypes) == 0 {
		return dst, fmt.Errorf("proto: REGISTER needs at least one event type")
	}
	return AppendStringList(dst, r.EventTypes)
}

// AuthResponse is the AUTH_RESPONSE request carrying a SASL token.
type AuthResponse struct {
	Token []byte
}

// Opcode returns OpAuthResponse.
func (*AuthResponse) Opcode() Opcode { return OpAuthResponse }

// AppendBody appends the token as [bytes].
func (a *AuthResponse) AppendBody(dst []byte, _ Version) ([]byte, error) {
	return AppendBytes(dst, a.Token), nil
}

// Prepare is the PREPARE request.
type Prepare struct {
	FrameOptions
	Query    string
	Keyspace string // protocol v5 only; an error with earlier versions
}

// Opcode returns OpPrepare.
func (*Prepare) Opcode() Opcode { return OpPrepare }

// AppendBody appends the query ([long string]) and, for v5, the flags and keyspace.
func (p *Prepare) AppendBody(dst []byte, version Version) ([]byte, error) {
	dst, err := AppendLongString(dst, p.Query)
	if err != nil {
		return dst, err
	}
	if version < Version5 {
		if p.Keyspace != "" {
			return dst, fmt.Errorf("%w: PREPARE with keyspace %q", ErrKeyspaceNeedsV5, p.Keyspace)
		}
		return dst, nil
	}
	if p.Keyspace == "" {
		return AppendInt(dst, 0), nil
	}
	dst = AppendInt(dst, 0x01)
	return AppendString(dst, p.Keyspace)
}

// ParseLWTMark returns the mask of a SCYLLA_LWT_ADD_METADATA_MARK value
// ("LWT_OPTIMIZATION_META_BIT_MASK=2147483648"): the bit that marks a lightweight transaction
// in the flags of a PREPARED answer's bind metadata. It returns 0 for a value it cannot read, and
// for a mask that is not a single bit or that is one of the protocol's own metadata flags.
func ParseLWTMark(v string) uint32 {
	name, num, ok := strings.Cut(v, "=")
	if !ok || name != "LWT_OPTIMIZATION_META_BIT_MASK" {
		return 0
	}
	m, err := strconv.ParseUint(num, 10, 32)
	if err != nil || m == 0 || m&(m-1) != 0 || m&0xf != 0 {
		return 0 // not one bit, or one of the metadata flags the protocol defines
	}
	return uint32(m)
}

// RateLimitCode returns the error code a ScyllaDB server announced in SUPPORTED for its rate
// limit error (StartupRateLimitError, "ERROR_CODE=n"), and whether it announced one.
func RateLimitCode(supported map[string][]string) (ErrorCode, bool) {
	for _, v := range supported[StartupRateLimitError] {
		if s, ok := strings.CutPrefix(v, "ERROR_CODE="); ok {
			if n, err := strconv.ParseInt(s, 10, 32); err == nil {
				return ErrorCode(n), true
			}
		}
	}
	return 0, false
}
