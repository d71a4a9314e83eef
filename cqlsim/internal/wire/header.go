package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Opcodes of the requests and responses cqlsim handles (native protocol spec §2.4).
const (
	OpError         byte = 0x00
	OpStartup       byte = 0x01
	OpReady         byte = 0x02
	OpAuthenticate  byte = 0x03
	OpCredentials   byte = 0x04 // protocol v1 only
	OpOptions       byte = 0x05
	OpSupported     byte = 0x06
	OpQuery         byte = 0x07
	OpResult        byte = 0x08
	OpPrepare       byte = 0x09
	OpExecute       byte = 0x0A
	OpRegister      byte = 0x0B
	OpEvent         byte = 0x0C
	OpBatch         byte = 0x0D
	OpAuthChallenge byte = 0x0E
	OpAuthResponse  byte = 0x0F
	OpAuthSuccess   byte = 0x10
)

// Header flags (spec §2.2).
const (
	FlagCompressed    byte = 0x01
	FlagTracing       byte = 0x02
	FlagCustomPayload byte = 0x04
	FlagWarning       byte = 0x08
	FlagUseBeta       byte = 0x10
)

// MaxHeaderLen is the longest frame header (protocol v3 and later); v1 and v2 headers are one
// byte shorter because their stream id is a single byte.
const MaxHeaderLen = 9

// Header is a decoded frame header.
type Header struct {
	Response bool  // direction bit: set on frames a server sends
	Version  uint8 // protocol version, without the direction bit (DSE versions are 0x41, 0x42)
	Flags    byte
	Stream   int16
	Opcode   byte
	Length   int32 // body length as sent; may be negative in a malformed frame
}

// HeaderLen returns the header length for a protocol version byte (direction bit cleared):
// 8 for v1 and v2 (one-byte stream id), 9 otherwise.
func HeaderLen(version uint8) int {
	if version < 3 {
		return 8
	}
	return 9
}

// ErrShortHeader is returned by ParseHeader when b holds fewer bytes than the header needs.
var ErrShortHeader = errors.New("frame header truncated")

// ParseHeader decodes a frame header from b, which must start at the header's first byte and hold
// at least HeaderLen(b[0]&0x7f) bytes. It validates nothing beyond the length of b: callers
// decide what versions, opcodes and body lengths they accept.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < 1 {
		return Header{}, ErrShortHeader
	}
	h := Header{Response: b[0]&0x80 != 0, Version: b[0] & 0x7f}
	n := HeaderLen(h.Version)
	if len(b) < n {
		return Header{}, fmt.Errorf("%w: have %d of %d bytes", ErrShortHeader, len(b), n)
	}
	h.Flags = b[1]
	if n == 8 {
		h.Stream = int16(int8(b[2]))
		h.Opcode = b[3]
		h.Length = int32(binary.BigEndian.Uint32(b[4:8]))
	} else {
		h.Stream = int16(binary.BigEndian.Uint16(b[2:4]))
		h.Opcode = b[4]
		h.Length = int32(binary.BigEndian.Uint32(b[5:9]))
	}
	return h, nil
}

// AppendHeader appends the encoding of h (with the length field set to length) to dst, in the
// header layout of h.Version.
func AppendHeader(dst []byte, h Header, length int) []byte {
	first := h.Version & 0x7f
	if h.Response {
		first |= 0x80
	}
	dst = append(dst, first, h.Flags)
	if HeaderLen(h.Version) == 8 {
		dst = append(dst, byte(int8(h.Stream)))
	} else {
		dst = binary.BigEndian.AppendUint16(dst, uint16(h.Stream))
	}
	dst = append(dst, h.Opcode)
	return binary.BigEndian.AppendUint32(dst, uint32(length))
}

// OpcodeName returns the protocol name of an opcode ("QUERY", "STARTUP", ...), or a hex form
// for unknown opcodes.
func OpcodeName(op byte) string {
	switch op {
	case OpError:
		return "ERROR"
	case OpStartup:
		return "STARTUP"
	case OpReady:
		return "READY"
	case OpAuthenticate:
		return "AUTHENTICATE"
	case OpCredentials:
		return "CREDENTIALS"
	case OpOptions:
		return "OPTIONS"
	case OpSupported:
		return "SUPPORTED"
	case OpQuery:
		return "QUERY"
	case OpResult:
		return "RESULT"
	case OpPrepare:
		return "PREPARE"
	case OpExecute:
		return "EXECUTE"
	case OpRegister:
		return "REGISTER"
	case OpEvent:
		return "EVENT"
	case OpBatch:
		return "BATCH"
	case OpAuthChallenge:
		return "AUTH_CHALLENGE"
	case OpAuthResponse:
		return "AUTH_RESPONSE"
	case OpAuthSuccess:
		return "AUTH_SUCCESS"
	}
	return fmt.Sprintf("0x%02X", op)
}

// IsRequestOpcode reports whether op is the opcode of a request (a client's message), and
// known whether it is an opcode of the protocol at all (CREDENTIALS, of protocol v1, among
// them).
func IsRequestOpcode(op byte) (request, known bool) {
	switch op {
	case OpStartup, OpCredentials, OpOptions, OpQuery, OpPrepare, OpExecute, OpRegister, OpBatch, OpAuthResponse:
		return true, true
	case OpError, OpReady, OpAuthenticate, OpSupported, OpResult, OpEvent, OpAuthChallenge, OpAuthSuccess:
		return false, true
	}
	return false, false
}
