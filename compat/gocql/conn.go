package gocql

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/golang/snappy"
)

// Authenticator answers the server's authentication challenges (SASL).
type Authenticator interface {
	// Challenge receives the server's AUTHENTICATE (the authenticator class name) or
	// AUTH_CHALLENGE token and returns the response, and optionally the authenticator for the
	// next round.
	Challenge(req []byte) (resp []byte, auth Authenticator, err error)
	// Success receives the AUTH_SUCCESS token.
	Success(data []byte) error
}

// defaultAuthenticators are the server authenticator classes PasswordAuthenticator answers
// when AllowedAuthenticators is empty (the list gocql v1.7.0 accepts).
var defaultAuthenticators = []string{
	"org.apache.cassandra.auth.PasswordAuthenticator",
	"com.instaclustr.cassandra.auth.SharedSecretAuthenticator",
	"com.datastax.bdp.cassandra.auth.DseAuthenticator",
	"io.aiven.cassandra.auth.AivenAuthenticator",
	"com.ericsson.bss.cassandra.ecaudit.auth.AuditPasswordAuthenticator",
	"com.amazon.helenus.auth.HelenusAuthenticator",
	"com.ericsson.bss.cassandra.ecaudit.auth.AuditAuthenticator",
	"com.scylladb.auth.SaslauthdAuthenticator",
	"com.scylladb.auth.TransitionalAuthenticator",
	"com.instaclustr.cassandra.auth.InstaclustrPasswordAuthenticator",
}

// PasswordAuthenticator authenticates with a user name and password (SASL PLAIN).
type PasswordAuthenticator struct {
	Username string
	Password string
	// AllowedAuthenticators lists the server authenticator classes to answer; empty means
	// the usual password authenticators of Cassandra, DSE, ScyllaDB and hosted services.
	AllowedAuthenticators []string
}

// Challenge returns "\x00user\x00password" when req names an allowed authenticator.
func (p PasswordAuthenticator) Challenge(req []byte) ([]byte, Authenticator, error) {
	allowed := p.AllowedAuthenticators
	if len(allowed) == 0 {
		allowed = defaultAuthenticators
	}
	ok := false
	for _, a := range allowed {
		if a == string(req) {
			ok = true
			break
		}
	}
	if !ok {
		return nil, nil, fmt.Errorf("unexpected authenticator %q", req)
	}
	resp := make([]byte, 0, 2+len(p.Username)+len(p.Password))
	resp = append(resp, 0)
	resp = append(resp, p.Username...)
	resp = append(resp, 0)
	resp = append(resp, p.Password...)
	return resp, nil, nil
}

// Success accepts the server's AUTH_SUCCESS.
func (p PasswordAuthenticator) Success([]byte) error { return nil }

// Compressor compresses frame bodies.
type Compressor interface {
	// Name is the algorithm name sent in STARTUP ("snappy", "lz4").
	Name() string
	Encode(data []byte) ([]byte, error)
	Decode(data []byte) ([]byte, error)
}

// SnappyCompressor is the snappy frame compressor.
type SnappyCompressor struct{}

// Name returns "snappy".
func (s SnappyCompressor) Name() string { return "snappy" }

// Encode compresses data.
func (s SnappyCompressor) Encode(data []byte) ([]byte, error) { return snappy.Encode(nil, data), nil }

// Decode decompresses data.
func (s SnappyCompressor) Decode(data []byte) ([]byte, error) {
	out, err := snappy.Decode(nil, data)
	if err != nil {
		return nil, fmt.Errorf("gocql: snappy decode: %w", err)
	}
	return out, nil
}

// SslOptions configures TLS. When Config is nil a config is built from CertPath, KeyPath and
// CaPath. Host verification happens when EnableHostVerification is set, or when Config is
// given with InsecureSkipVerify false.
type SslOptions struct {
	*tls.Config
	// CertPath and KeyPath name the client certificate and key (both or neither).
	CertPath string
	KeyPath  string
	// CaPath names the CA certificates to verify the server with.
	CaPath string
	// EnableHostVerification verifies the server certificate and host name (the inverse of
	// tls.Config.InsecureSkipVerify).
	EnableHostVerification bool
}

// Dialer opens network connections.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// HostDialer opens a connection, TLS included, to a host.
type HostDialer interface {
	// DialHost returns a connection ready for the CQL protocol.
	DialHost(ctx context.Context, host *HostInfo) (*DialedHost, error)
}

// DialedHost is a connection opened by a HostDialer.
type DialedHost struct {
	// Conn is the connection to the server.
	Conn net.Conn
	// DisableCoalesce disables write coalescing (the native core never coalesces with a
	// timer, so it is accepted and has no effect).
	DisableCoalesce bool
}

// WrapTLS runs a TLS client handshake over conn when tlsConfig is non-nil and returns the
// resulting DialedHost. As in gocql, ServerName is set from addr when it is empty and the
// server is verified (InsecureSkipVerify false), and a handshake error is crypto/tls's own.
func WrapTLS(ctx context.Context, conn net.Conn, addr string, tlsConfig *tls.Config) (*DialedHost, error) {
	if tlsConfig == nil {
		return &DialedHost{Conn: conn}, nil
	}
	cfg := tlsConfig
	if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg = cfg.Clone()
		cfg.ServerName = host
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return &DialedHost{Conn: tc, DisableCoalesce: true}, nil
}

// ConnConfig is the per-connection configuration gocql derives from ClusterConfig. It is kept
// for API compatibility; the native core takes its settings from ClusterConfig.
type ConnConfig struct {
	ProtoVersion   int
	CQLVersion     string
	Timeout        time.Duration
	WriteTimeout   time.Duration
	ConnectTimeout time.Duration
	Dialer         Dialer
	HostDialer     HostDialer
	Compressor     Compressor
	Authenticator  Authenticator
	AuthProvider   func(h *HostInfo) (Authenticator, error)
	Keepalive      time.Duration
	Logger         StdLogger

	//lint:ignore U1000 mirrors the layout of gocql's ConnConfig (an unexported last field)
	tlsConfig *tls.Config
}

// ConnErrorHandler is told when a connection fails.
type ConnErrorHandler interface {
	HandleError(conn *Conn, err error, closed bool)
}

// errRawConn is returned by the methods of Conn: connections belong to the native core and are
// not exposed one by one.
var errRawConn = errors.New("gocql: raw connections are not exposed by cqlbridge; use Session")

// Conn is gocql's single connection. cqlbridge's connections belong to the native core and
// are not handed out, so no Conn value is ever produced by this package; the methods exist for
// API compatibility and report that (see docs/deviations.md).
type Conn struct {
	addr string
}

// Address returns the connection's address.
func (c *Conn) Address() string { return c.addr }

// AvailableStreams returns 0.
func (c *Conn) AvailableStreams() int { return 0 }

// Close does nothing.
func (c *Conn) Close() {}

// Closed returns true: a Conn never carries a live connection.
func (c *Conn) Closed() bool { return true }

// Pick returns nil (the connection is closed).
func (c *Conn) Pick(*Query) *Conn { return nil }

// Read returns an error: raw connections are not exposed.
func (c *Conn) Read([]byte) (int, error) { return 0, errRawConn }

// Write returns an error: raw connections are not exposed.
func (c *Conn) Write([]byte) (int, error) { return 0, errRawConn }

// UseKeyspace returns an error: raw connections are not exposed.
func (c *Conn) UseKeyspace(string) error { return errRawConn }

// TimeoutLimit is gocql's deprecated limit of timeouts per connection before it is closed.
// The native core reclaims timed-out streams instead, so it has no effect.
var TimeoutLimit int64 = 0
