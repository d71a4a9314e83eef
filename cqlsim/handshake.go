package cqlsim

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// passwordAuthenticator is the authenticator class cqlsim announces when credentials are set.
const passwordAuthenticator = "org.apache.cassandra.auth.PasswordAuthenticator"

// cqlVersion is the CQL version cqlsim announces in SUPPORTED.
const cqlVersion = "3.4.7"

// handleFrame checks the version, direction and compression of one request frame, decodes it and
// handles it: handshake messages in order on the reader goroutine, statements concurrently.
func (c *conn) handleFrame(h wire.Header, body []byte) error {
	maxV := uint8(c.node.cluster.opts.MaxProtocolVersion)
	if h.Version < 3 || h.Version > maxV {
		c.unsupportedVersion(h, maxV)
		return nil
	}
	if v := c.version.Load(); v == 0 {
		c.version.Store(uint32(h.Version))
	} else if uint32(h.Version) != v {
		reply := h
		reply.Version = uint8(v)
		c.protocolError(reply, fmt.Sprintf("Invalid message version. Got %d but previous messages on this connection had version %d", h.Version, v))
		return fmt.Errorf("%w: version changed from %d to %d", errFatal, v, h.Version)
	}
	if h.Response {
		c.protocolError(h, "Invalid frame: the response bit is set on a frame sent to the server")
		return fmt.Errorf("%w: response frame from the client", errFatal)
	}
	if h.Flags&wire.FlagCompressed != 0 {
		if c.compressor == nil {
			c.protocolError(h, "Received a compressed frame but no compression was negotiated in STARTUP")
			return nil
		}
		var err error
		if body, err = c.decompress(body); err != nil {
			c.protocolError(h, fmt.Sprintf("Cannot decompress frame body: %v", err))
			return nil
		}
	}
	req, err := wire.DecodeRequest(h, body)
	if err != nil {
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
			c.protocolError(h, fmt.Sprintf("Unexpected message %s, expecting STARTUP or OPTIONS", wire.OpcodeName(h.Opcode)))
			return nil
		}
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
	case wire.OpStartup, wire.OpAuthResponse:
		c.protocolError(h, fmt.Sprintf("Unexpected message %s, the connection is already initialized", wire.OpcodeName(h.Opcode)))
	case wire.OpRegister:
		c.register(h, req.Register)
	default:
		c.dispatch(job{h: h, req: req})
	}
	return nil
}

// supported builds the SUPPORTED message.
func (c *conn) supported() *message.Supported {
	versions := []string{"3/v3"}
	if c.node.cluster.opts.MaxProtocolVersion >= 4 {
		versions = append(versions, "4/v4")
	}
	return &message.Supported{Options: map[string][]string{
		"CQL_VERSION":       {cqlVersion},
		"COMPRESSION":       {"lz4", "snappy"},
		"PROTOCOL_VERSIONS": versions,
	}}
}

// unsupportedVersion answers a frame in a version cqlsim does not speak, as Cassandra does: a
// PROTOCOL_ERROR on the request's stream id, encoded in the server's highest version (or, for
// v1 and v2, in the client's own version, whose header layout differs).
func (c *conn) unsupportedVersion(h wire.Header, maxV uint8) {
	msg := fmt.Sprintf("Invalid or unsupported protocol version (%d); the lowest supported version is 3 and the greatest is %d", h.Version, maxV)
	c.protocolError(h, msg) // answered in maxV, or in v1/v2's own layout
}

func (c *conn) startup(h wire.Header, opts map[string]string) {
	var cqlVer, compressionName string
	var hasCQLVersion bool
	for k, v := range opts {
		switch strings.ToUpper(k) {
		case "CQL_VERSION":
			cqlVer, hasCQLVersion = v, true
		case "COMPRESSION":
			compressionName = strings.ToLower(v)
		}
	}
	if !hasCQLVersion {
		c.protocolError(h, "Missing value CQL_VERSION in STARTUP message")
		return
	}
	if !strings.HasPrefix(cqlVer, "3.") {
		c.protocolError(h, fmt.Sprintf("Invalid or unsupported CQL version %q (the server supports %s)", cqlVer, cqlVersion))
		return
	}
	switch compressionName {
	case "":
		c.compressor = nil
	case "lz4":
		c.compressor = lz4.Compressor{}
	case "snappy":
		c.compressor = snappy.Compressor{}
	default:
		c.protocolError(h, fmt.Sprintf("Unknown compression algorithm: %s", compressionName))
		return
	}
	if c.node.cluster.opts.Username != "" {
		c.state = stateAuthenticating
		c.reply(h, &message.Authenticate{Authenticator: passwordAuthenticator}, nil)
		return
	}
	c.state = stateReady
	c.reply(h, &message.Ready{}, nil)
}

// authenticate checks a SASL PLAIN token ("authzid NUL user NUL password", authzid optional).
func (c *conn) authenticate(h wire.Header, token []byte) {
	opts := c.node.cluster.opts
	user, pass, err := parsePlainToken(token)
	if err != nil {
		c.reply(h, &message.AuthenticationError{ErrorMessage: fmt.Sprintf("Authentication failed: %v", err)}, nil)
		return
	}
	userOK := subtle.ConstantTimeCompare(user, []byte(opts.Username)) == 1
	passOK := subtle.ConstantTimeCompare(pass, []byte(opts.Password)) == 1
	if !userOK || !passOK {
		c.reply(h, &message.AuthenticationError{ErrorMessage: "Provided username and/or password are incorrect"}, nil)
		return
	}
	c.state = stateReady
	c.reply(h, &message.AuthSuccess{}, nil)
}

func parsePlainToken(token []byte) (user, pass []byte, err error) {
	parts := bytes.Split(token, []byte{0})
	switch len(parts) {
	case 3:
		user, pass = parts[1], parts[2]
	case 2:
		user, pass = parts[0], parts[1]
	default:
		return nil, nil, errors.New("malformed SASL PLAIN token (want authzid NUL username NUL password)")
	}
	if len(user) == 0 {
		return nil, nil, errors.New("SASL PLAIN token has an empty username")
	}
	return user, pass, nil
}

// decompress inflates a compressed request body, refusing bodies that would inflate beyond the
// frame length limit.
func (c *conn) decompress(body []byte) ([]byte, error) {
	limit := c.node.cluster.opts.MaxFrameLength
	n, err := decompressedLen(c.compressor, body)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("decompressed length %d exceeds the limit of %d bytes", n, limit)
	}
	return c.compressor.DecompressFrame(body)
}
