package cqlsim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// handleFrame checks the version, direction and compression of one request frame, decodes it and
// handles it: handshake messages in order on the reader goroutine, statements concurrently.
func (c *conn) handleFrame(h wire.Header, body []byte) error {
	maxV := uint8(c.node.cluster.opts.MaxProtocolVersion)
	if h.Version < 3 || h.Version > maxV {
		c.unsupportedVersion(h, maxV)
		return nil
	}
	if v := c.version.Load(); v != 0 && uint32(h.Version) != v {
		// As Cassandra 5.0: the frame is refused in the connection's version, and the
		// connection goes on. (Its v5 handler words the message without a space.)
		reply := h
		reply.Version = uint8(v)
		previous := "previous messages"
		if c.inSegments {
			previous = "previousmessages"
		}
		c.protocolError(reply, fmt.Sprintf("Invalid message version. Got %d/v%d but %s on this connection had version %d/v%d", h.Version, h.Version, previous, v, v))
		return nil
	}
	if msg := opcodeError(h); msg != "" {
		c.protocolError(h, msg)
		if h.Response {
			return fmt.Errorf("%w: response frame from the client", errFatal)
		}
		return nil
	}
	// Like Cassandra, ignore the COMPRESSED flag on a connection without frame compression
	// (before STARTUP, without COMPRESSION, and in v5, whose segments are compressed whole):
	// the body is read as it is.
	if h.Flags&wire.FlagCompressed != 0 && c.compressor != nil {
		var err error
		if body, err = c.decompress(body); err != nil {
			c.protocolError(h, fmt.Sprintf("Cannot decompress frame body: %v", err))
			return nil
		}
	}
	req, err := wire.DecodeRequestExt(h, body, wire.Extensions{MetadataID: c.metadataID.Load()})
	if err != nil {
		var uc *wire.UnknownConsistencyError
		if errors.As(err, &uc) {
			c.protocolError(h, uc.Error()) // Cassandra's message, without the decoding context
			return nil
		}
		c.protocolError(h, err.Error())
		return nil
	}

	if h.Opcode == wire.OpOptions {
		c.reply(h, c.supported(), nil)
		return nil
	}
	switch c.state {
	case stateNew:
		if h.Opcode != wire.OpStartup {
			// Cassandra closes the connection after this answer.
			c.protocolError(h, fmt.Sprintf("Unexpected message %s, expecting STARTUP or OPTIONS", wire.OpcodeName(h.Opcode)))
			return fmt.Errorf("%w: %s before STARTUP", errFatal, wire.OpcodeName(h.Opcode))
		}
		// Like Cassandra, STARTUP sets the connection's version, whether it succeeds or
		// not; the frames before it (OPTIONS) may use any version.
		c.version.Store(uint32(h.Version))
		c.startup(h, req.Startup)
		return nil
	case stateAuthenticating:
		if h.Opcode != wire.OpAuthResponse {
			c.protocolError(h, fmt.Sprintf("Unexpected message %s, expecting SASL_RESPONSE", wire.OpcodeName(h.Opcode)))
			return nil
		}
		c.authenticate(h, req.AuthResponse)
		return nil
	}
	switch h.Opcode {
	case wire.OpStartup:
		c.protocolError(h, "Unexpected message STARTUP, the connection is already initialized")
	case wire.OpAuthResponse:
		// Cassandra runs a new SASL negotiation: its AllowAllAuthenticator succeeds at once,
		// its PasswordAuthenticator checks the credentials again.
		if c.node.cluster.opts.Username == "" {
			c.reply(h, &message.AuthSuccess{}, nil)
			return nil
		}
		c.authenticate(h, req.AuthResponse)
	case wire.OpRegister:
		c.register(h, req.Register)
	default:
		c.dispatch(job{h: h, req: req})
	}
	return nil
}

// unsupportedVersion answers a frame in a version cqlsim does not speak, as Cassandra does: a
// PROTOCOL_ERROR on the request's stream id, encoded in the server's highest version (or, for
// v1 and v2, in the client's own version, whose header layout differs).
// The message is Cassandra 5.0's, listing the versions served ("3/v3, 4/v4").
func (c *conn) unsupportedVersion(h wire.Header, maxV uint8) {
	versions := make([]string, 0, 3)
	for v := 3; v <= int(maxV); v++ {
		versions = append(versions, fmt.Sprintf("%d/v%d", v, v))
	}
	msg := fmt.Sprintf("Invalid or unsupported protocol version (%d); supported versions are (%s)", h.Version, strings.Join(versions, ", "))
	c.protocolError(h, msg) // answered in maxV, or in v1/v2's own layout
}

// opcodeError returns Cassandra 5.0's PROTOCOL_ERROR message for a frame that is no request
// cqlsim serves (an unknown opcode, a response's opcode, the response bit set, protocol v1's
// CREDENTIALS), or "" for a request.
func opcodeError(h wire.Header) string {
	request, known := wire.IsRequestOpcode(h.Opcode)
	switch {
	case !known:
		return fmt.Sprintf("Unknown opcode %d", h.Opcode)
	case h.Response && request:
		return fmt.Sprintf("Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode %d (%s)", h.Opcode, wire.OpcodeName(h.Opcode))
	case h.Response:
		// Cassandra takes it for a response and fails on its body (a SERVER_ERROR).
		return "Invalid frame: the response bit is set on a frame sent to the server"
	case !request:
		return fmt.Sprintf("Wrong protocol direction (expected RESPONSE, got REQUEST) for opcode %d (%s)", h.Opcode, wire.OpcodeName(h.Opcode))
	case h.Opcode == wire.OpCredentials:
		return "Unsupported message"
	}
	return ""
}
