package cqlsim

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// passwordAuthenticator is the authenticator class cqlsim announces when credentials are set.
const passwordAuthenticator = "org.apache.cassandra.auth.PasswordAuthenticator"

// cqlVersion is the CQL version cqlsim announces in SUPPORTED.
const cqlVersion = "3.4.7"

// supported builds the SUPPORTED message.
func (c *conn) supported() *message.Supported {
	versions := []string{"3/v3"}
	if c.node.cluster.opts.MaxProtocolVersion >= 4 {
		versions = append(versions, "4/v4")
	}
	if c.node.cluster.opts.MaxProtocolVersion >= 5 {
		versions = append(versions, "5/v5")
	}
	opts := map[string][]string{
		"CQL_VERSION":       {cqlVersion},
		"COMPRESSION":       {"lz4", "snappy"},
		"PROTOCOL_VERSIONS": versions,
	}
	if c.node.shards != nil {
		c.addShardOptions(opts)
	}
	return &message.Supported{Options: opts}
}

func (c *conn) startup(h wire.Header, opts map[string]string) {
	var cqlVer, compressionName string
	var hasCQLVersion, hasCompression bool
	for k, v := range opts {
		switch strings.ToUpper(k) {
		case "CQL_VERSION":
			cqlVer, hasCQLVersion = v, true
		case "COMPRESSION":
			compressionName, hasCompression = strings.ToLower(v), true
		case lwtMarkOption:
			c.lwtMark.Store(c.node.cluster.opts.Shards > 0)
		case rateLimitOption:
			c.rateLimit.Store(c.node.cluster.opts.Shards > 0)
		case tabletsOption:
			c.tabletsRouting.Store(c.node.cluster.tablets != nil)
		case useMetadataIDOption:
			c.metadataID.Store(c.node.cluster.opts.Shards > 0)
		}
	}
	if !hasCQLVersion {
		c.protocolError(h, "Missing value CQL_VERSION in STARTUP message")
		return
	}
	if msg := checkCQLVersion(cqlVer); msg != "" {
		c.protocolError(h, msg)
		return
	}
	var segCodec segment.Codec // v5: frames travel in segments after this STARTUP's answer
	switch {
	case !hasCompression: // an empty COMPRESSION is an unknown algorithm, as on Cassandra
		c.compressor = nil
		segCodec = segment.NewCodec()
		c.segmentsLZ4 = false
	case compressionName == "lz4":
		c.compressor = lz4.Compressor{}
		segCodec = segment.NewCodecWithCompression(lz4.Compressor{})
		c.segmentsLZ4 = true
	case compressionName == "snappy":
		if h.Version >= 5 {
			c.protocolError(h, "Snappy compression is not supported in protocol V5") // Cassandra's words
			return
		}
		c.compressor = snappy.Compressor{}
	default:
		c.protocolError(h, fmt.Sprintf("Unknown compression algorithm: %s", compressionName))
		return
	}
	var answer message.Message = &message.Ready{}
	c.state = stateReady
	if c.node.cluster.opts.Username != "" {
		answer = &message.Authenticate{Authenticator: passwordAuthenticator}
		c.state = stateAuthenticating
	}
	if h.Version < 5 {
		// Like Cassandra, compress the answer and everything after it.
		c.replyCompressing(h, answer, c.compressor)
		return
	}
	// v5: segments compress whole payloads; frame bodies are never compressed.
	c.compressor = nil
	c.readSegments = true
	c.replyThenSegments(h, answer, segCodec)
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

// cassandraVersion is the pattern of Cassandra's CassandraVersion: major.minor, an optional
// .patch and .hotfix, an optional -prerelease and an optional build after "." or "+". Go's
// regexp picks the submatches a Java matcher does (leftmost-first).
var cassandraVersion = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\w+)(?:\.(\w+))?)?(-[-.\w]+)?(?:[.+][.\w]+)?$`)

// checkCQLVersion checks STARTUP's CQL_VERSION as Cassandra 5.0 does and returns its
// PROTOCOL_ERROR message, or "" for a version it accepts: one it can parse (every number a
// Java int) and not below 2.99.0 (a pre-release of 2.99.0 is below it).
func checkCQLVersion(v string) string {
	m := cassandraVersion.FindStringSubmatch(v)
	if m == nil {
		return "Invalid version value: " + v
	}
	var parts [4]int64 // major, minor, patch, hotfix (-1 when absent)
	parts[3] = -1
	for i, s := range m[1:5] {
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return "Invalid version value: " + v
		}
		parts[i] = n
	}
	prerelease := m[5] != ""
	if cmp := slices.Compare(parts[:], []int64{2, 99, 0, -1}); cmp < 0 || cmp == 0 && prerelease {
		return fmt.Sprintf("CQL version %s is not supported by the binary protocol (supported version are >= 3.0.0)", v)
	}
	return ""
}
