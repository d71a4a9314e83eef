package proto

import (
	"encoding/binary"
	"fmt"
)

// Version is a native protocol version number (the low 7 bits of a frame's first byte).
type Version byte

// Protocol versions this package knows. Frames are encoded and decoded in the v3/v4 layout; a few
// message fields that only exist in v5 (keyspace, result metadata id) are written when asked for
// with Version5 and rejected otherwise (the result metadata id also before v5 on a connection
// that negotiated ScyllaDB's StartupUseMetadataID: see WithMetadataID and DecodeOptions). With
// Version3, prepared metadata is decoded without partition key indexes and a request with a
// custom payload is refused (both are v4 additions); unset values are the caller's to refuse
// (see AppendUnset).
const (
	Version3 Version = 3
	Version4 Version = 4
	Version5 Version = 5
)

// responseBit is set in the version byte of every response frame.
const responseBit = 0x80

// HeaderSize is the size of a v3+ frame header in bytes.
const HeaderSize = 9

// DefaultMaxFrameSize is the largest frame body accepted when no other limit is configured
// (256 MiB, Cassandra's own upper bound).
const DefaultMaxFrameSize = 256 << 20

// Opcode identifies the message carried by a frame.
type Opcode byte

// The protocol opcodes.
const (
	OpError         Opcode = 0x00
	OpStartup       Opcode = 0x01
	OpReady         Opcode = 0x02
	OpAuthenticate  Opcode = 0x03
	OpOptions       Opcode = 0x05
	OpSupported     Opcode = 0x06
	OpQuery         Opcode = 0x07
	OpResult        Opcode = 0x08
	OpPrepare       Opcode = 0x09
	OpExecute       Opcode = 0x0A
	OpRegister      Opcode = 0x0B
	OpEvent         Opcode = 0x0C
	OpBatch         Opcode = 0x0D
	OpAuthChallenge Opcode = 0x0E
	OpAuthResponse  Opcode = 0x0F
	OpAuthSuccess   Opcode = 0x10
)

var opcodeNames = [...]string{
	OpError: "ERROR", OpStartup: "STARTUP", OpReady: "READY", OpAuthenticate: "AUTHENTICATE",
	OpOptions: "OPTIONS", OpSupported: "SUPPORTED", OpQuery: "QUERY", OpResult: "RESULT",
	OpPrepare: "PREPARE", OpExecute: "EXECUTE", OpRegister: "REGISTER", OpEvent: "EVENT",
	OpBatch: "BATCH", OpAuthChallenge: "AUTH_CHALLENGE", OpAuthResponse: "AUTH_RESPONSE",
	OpAuthSuccess: "AUTH_SUCCESS",
}

// String returns the protocol name of the opcode, e.g. "QUERY".
func (o Opcode) String() string {
	if int(o) < len(opcodeNames) && opcodeNames[o] != "" {
		return opcodeNames[o]
	}
	return fmt.Sprintf("OPCODE(0x%02x)", byte(o))
}

// HeaderFlags are the flags of a frame header.
type HeaderFlags byte

// Frame header flags.
const (
	FlagCompression   HeaderFlags = 0x01 // the body is compressed
	FlagTracing       HeaderFlags = 0x02 // request: trace it; response: the body starts with a tracing id
	FlagCustomPayload HeaderFlags = 0x04 // the body carries a custom payload ([bytes map])
	FlagWarning       HeaderFlags = 0x08 // response: the body carries warnings ([string list])
	FlagBeta          HeaderFlags = 0x10 // use a beta protocol version
)

// Header is a decoded frame header.
type Header struct {
	Version  Version // protocol version, without the response bit
	Response bool    // the response bit of the version byte was set
	Flags    HeaderFlags
	Stream   int16
	Opcode   Opcode
	Length   int // body length in bytes
}

// AppendHeader appends the 9-byte encoding of h to dst.
func AppendHeader(dst []byte, h Header) []byte {
	v := byte(h.Version)
	if h.Response {
		v |= responseBit
	}
	return append(dst, v, byte(h.Flags), byte(uint16(h.Stream)>>8), byte(h.Stream), byte(h.Opcode),
		byte(uint32(h.Length)>>24), byte(uint32(h.Length)>>16), byte(uint32(h.Length)>>8), byte(h.Length))
}

// ParseHeader decodes a frame header from the first HeaderSize bytes of b. It checks that the
// version is one this package knows (3 to 5) and that the body length is neither negative nor
// larger than maxBody (DefaultMaxFrameSize when maxBody <= 0). Errors wrap ErrMalformed or
// ErrFrameTooLarge.
func ParseHeader(b []byte, maxBody int) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("%w: frame header needs %d bytes, have %d", ErrMalformed, HeaderSize, len(b))
	}
	if maxBody <= 0 {
		maxBody = DefaultMaxFrameSize
	}
	h := Header{
		Version:  Version(b[0] &^ responseBit),
		Response: b[0]&responseBit != 0,
		Flags:    HeaderFlags(b[1]),
		Stream:   int16(binary.BigEndian.Uint16(b[2:4])),
		Opcode:   Opcode(b[4]),
	}
	if h.Version < Version3 || h.Version > Version5 {
		return Header{}, fmt.Errorf("%w: unsupported protocol version %d in frame header (byte 0x%02x)", ErrMalformed, h.Version, b[0])
	}
	n := int32(binary.BigEndian.Uint32(b[5:9]))
	if n < 0 {
		return Header{}, fmt.Errorf("%w: negative frame body length %d", ErrMalformed, n)
	}
	if int64(n) > int64(maxBody) {
		return Header{}, fmt.Errorf("%w: body of %d bytes exceeds the limit of %d bytes (opcode %s, stream %d)", ErrFrameTooLarge, n, maxBody, h.Opcode, h.Stream)
	}
	h.Length = int(n)
	return h, nil
}

// AppendFrame appends one complete request frame (header and body) for req to dst: it reserves
// the header, lets req append its body in place, then fills in the length. When comp is non-nil
// and the body is not empty, the body is compressed and FlagCompression is set. Frame options
// of req (tracing, custom payload; see FrameOptions) set the matching header flags.
//
// With comp == nil the frame is built with no intermediate buffer; with compression the body is
// first built in a pooled scratch buffer.
func AppendFrame(dst []byte, version Version, stream int16, req Request, comp Compressor) ([]byte, error) {
	start := len(dst)
	h := Header{Version: version, Stream: stream, Opcode: req.Opcode()}
	var opts *FrameOptions
	if fo, ok := req.(frameOptioner); ok {
		opts = fo.frameOptions()
		if opts.Tracing {
			h.Flags |= FlagTracing
		}
		if opts.CustomPayload != nil {
			if version < Version4 {
				return dst, fmt.Errorf("%w: %s with a custom payload", ErrCustomPayloadNeedsV4, h.Opcode)
			}
			h.Flags |= FlagCustomPayload
		}
	}
	dst = AppendHeader(dst, h)
	bodyStart := len(dst)
	var err error
	if comp == nil {
		if opts != nil && opts.CustomPayload != nil {
			if dst, err = appendBytesMap(dst, opts.CustomPayload); err != nil {
				return dst[:start], err
			}
		}
		dst, err = req.AppendBody(dst, version)
		if err != nil {
			return dst[:start], err
		}
	} else {
		scratch := GetBuffer(1024)
		body := (*scratch)[:0]
		if opts != nil && opts.CustomPayload != nil {
			body, err = appendBytesMap(body, opts.CustomPayload)
		}
		if err == nil {
			body, err = req.AppendBody(body, version)
		}
		if err == nil && len(body) > 0 {
			dst, err = comp.AppendCompressed(dst, body)
			dst[start+1] |= byte(FlagCompression)
		}
		*scratch = body
		PutBuffer(scratch)
		if err != nil {
			return dst[:start], err
		}
	}
	n := len(dst) - bodyStart
	if n > DefaultMaxFrameSize {
		return dst[:start], fmt.Errorf("%w: %s request body of %d bytes exceeds %d bytes", ErrFrameTooLarge, h.Opcode, n, DefaultMaxFrameSize)
	}
	binary.BigEndian.PutUint32(dst[start+5:start+9], uint32(n))
	return dst, nil
}

// SetStream overwrites the stream id of the encoded frame that starts at frame[0].
func SetStream(frame []byte, stream int16) {
	binary.BigEndian.PutUint16(frame[2:4], uint16(stream))
}
