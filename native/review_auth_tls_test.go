package native_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// rvFrame is one frame read by a review fake server.
type rvFrame struct {
	h    proto.Header
	body []byte
}

// rvConn is the server side of one connection of a review fake server.
type rvConn struct {
	nc net.Conn
}

func (c *rvConn) read() (rvFrame, error) {
	f, err := cqltest.ReadFrame(c.nc)
	if err != nil {
		return rvFrame{}, err
	}
	return rvFrame{h: proto.Header{Stream: f.Stream, Opcode: proto.Opcode(f.Opcode), Length: len(f.Body)}, body: f.Body}, nil
}

func (c *rvConn) send(stream int16, op proto.Opcode, body []byte) error {
	return cqltest.WriteFrame(c.nc, stream, byte(op), body)
}

// rvServer accepts connections and runs serve on each; Cleanup closes everything.
func rvServer(t *testing.T, ln net.Listener, serve func(c *rvConn)) string {
	t.Helper()
	return cqltest.Serve(t, ln, func(nc net.Conn) { serve(&rvConn{nc: nc}) })
}

// rvAuthFront is cqltest.AuthFront with auth running on an rvConn.
func rvAuthFront(t *testing.T, target, class string, auth func(c *rvConn) bool) string {
	return cqltest.AuthFront(t, target, class, func(nc net.Conn) bool { return auth(&rvConn{nc: nc}) })
}

// rvExchange is a custom SASL mechanism: the initial token is "hello", each challenge "cN"
// is answered "rN", and the success token is recorded.
type rvAuth struct {
	mu         sync.Mutex
	classes    []string
	challenges []string
	success    []string
}

func (a *rvAuth) Start(class string) (native.AuthExchange, []byte, error) {
	a.mu.Lock()
	a.classes = append(a.classes, class)
	a.mu.Unlock()
	return &rvExchange{a: a}, []byte("hello"), nil
}

type rvExchange struct{ a *rvAuth }

func (x *rvExchange) Challenge(tok []byte) ([]byte, error) {
	x.a.mu.Lock()
	defer x.a.mu.Unlock()
	x.a.challenges = append(x.a.challenges, string(tok))
	return []byte("r" + strings.TrimPrefix(string(tok), "c")), nil
}

func (x *rvExchange) Success(tok []byte) error {
	x.a.mu.Lock()
	defer x.a.mu.Unlock()
	x.a.success = append(x.a.success, string(tok))
	if string(tok) == "bad-token" {
		return errors.New("rvAuth: server token rejected")
	}
	return nil
}

// rvTwoRounds runs hello -> c1 -> r1 -> c2 -> r2 -> AUTH_SUCCESS(final), refusing anything else.
func rvTwoRounds(final string) func(c *rvConn) bool {
	return func(c *rvConn) bool {
		want := []string{"hello", "r1", "r2"}
		for i, w := range want {
			f, err := c.read()
			if err != nil || f.h.Opcode != proto.OpAuthResponse {
				return false
			}
			tok := f.body[4:]
			if string(tok) != w {
				b := proto.AppendInt(nil, int32(proto.ErrCodeAuthentication))
				b, _ = proto.AppendString(b, fmt.Sprintf("bad token %q", tok))
				_ = c.send(f.h.Stream, proto.OpError, b)
				return false
			}
			if i == len(want)-1 {
				return c.send(f.h.Stream, proto.OpAuthSuccess, proto.AppendBytes(nil, []byte(final))) == nil
			}
			if c.send(f.h.Stream, proto.OpAuthChallenge, proto.AppendBytes(nil, []byte(fmt.Sprintf("c%d", i+1)))) != nil {
				return false
			}
		}
		return false
	}
}

func rvConfig(addr string) native.Config {
	return native.Config{Hosts: []string{addr}, DisablePeerDiscovery: true, ConnsPerHost: 1, HeartbeatInterval: -1,
		ConnectTimeout: 5 * time.Second, Timeout: 30 * time.Second}
}

// rvMustConnect connects with cfg, failing the test with what and the error if it cannot.
func rvMustConnect(t *testing.T, cfg native.Config, what string) *native.Session {
	t.Helper()
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return s
}

func TestReviewCustomAuthenticatorRounds(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	addr := rvAuthFront(t, sim.Addrs()[0], "com.example.CustomAuthenticator", rvTwoRounds("welcome"))
	a := &rvAuth{}
	cfg := rvConfig(addr)
	cfg.Authenticator = a
	s := rvMustConnect(t, cfg, "Connect with a two-round authenticator")
	mustExec(t, s, "SELECT release_version FROM system.local")
	s.Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.classes) == 0 || a.classes[0] != "com.example.CustomAuthenticator" {
		t.Errorf("Start got classes %v", a.classes)
	}
	if len(a.challenges) < 2 || a.challenges[0] != "c1" || a.challenges[1] != "c2" {
		t.Errorf("challenges %v, want c1, c2 per connection", a.challenges)
	}
	if len(a.success) == 0 || a.success[0] != "welcome" {
		t.Errorf("success tokens %v, want welcome", a.success)
	}

	// An exchange refusing the server's final token fails the connection with its error.
	addr = rvAuthFront(t, sim.Addrs()[0], "com.example.CustomAuthenticator", rvTwoRounds("bad-token"))
	cfg = rvConfig(addr)
	cfg.Authenticator = &rvAuth{}
	if s, err := native.Connect(ctxT(t), cfg); err == nil || !strings.Contains(err.Error(), "server token rejected") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Success error: %v", err)
	}

	// PLAIN (PasswordAuthenticator) answers no challenge.
	cfg = rvConfig(rvAuthFront(t, sim.Addrs()[0], "org.apache.cassandra.auth.PasswordAuthenticator", rvTwoRounds("x")))
	cfg.Authenticator = &native.PasswordAuthenticator{Username: "u", Password: "p"}
	if s, err := native.Connect(ctxT(t), cfg); err == nil {
		s.Close()
		t.Fatal("PLAIN with a wrong initial token connected")
	} else {
		var ae *native.AuthenticationError
		if !errors.As(err, &ae) {
			t.Errorf("refused credentials: %v, want a *native.AuthenticationError", err)
		}
	}
}

// rvStartErr fails Start.
type rvStartErr struct{}

func (rvStartErr) Start(string) (native.AuthExchange, []byte, error) {
	return nil, nil, errors.New("rvStartErr: no credentials for this class")
}

func TestReviewAuthenticationErrors(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	cfg := rvConfig(sim.Addrs()[0])

	// No Authenticator for a server that needs one: a clear error naming the class.
	s, err := native.Connect(ctxT(t), cfg)
	if err == nil {
		s.Close()
		t.Fatal("connected without credentials")
	}
	if !strings.Contains(err.Error(), "org.apache.cassandra.auth.PasswordAuthenticator") || !strings.Contains(err.Error(), "Authenticator") {
		t.Errorf("no authenticator: %v", err)
	}

	// Wrong password: a typed *AuthenticationError with the server's message.
	cfg.Authenticator = &native.PasswordAuthenticator{Username: "alice", Password: "nope"}
	s, err = native.Connect(ctxT(t), cfg)
	var ae *native.AuthenticationError
	if err == nil {
		s.Close()
		t.Fatal("connected with a wrong password")
	}
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "incorrect") {
		t.Errorf("wrong password: %v", err)
	}

	// Class not allowed: the credentials are not sent.
	cfg.Authenticator = &native.PasswordAuthenticator{Username: "alice", Password: "s3cret", AllowedAuthenticators: []string{"com.example.Other"}}
	if s, err = native.Connect(ctxT(t), cfg); err == nil || !strings.Contains(err.Error(), "allowed") {
		if s != nil {
			s.Close()
		}
		t.Errorf("disallowed class: %v", err)
	}

	// Start's own error.
	cfg.Authenticator = rvStartErr{}
	if s, err = native.Connect(ctxT(t), cfg); err == nil || !strings.Contains(err.Error(), "no credentials for this class") {
		if s != nil {
			s.Close()
		}
		t.Errorf("Start error: %v", err)
	}

	// An Authenticator for a server without authentication is simply not used.
	plain := cqlsim.StartT(t, cqlsim.Options{})
	cfg = rvConfig(plain.Addrs()[0])
	a := &rvAuth{}
	cfg.Authenticator = a
	rvMustConnect(t, cfg, "authenticator for a server without authentication").Close()
	if len(a.classes) != 0 {
		t.Errorf("Start called for a server without authentication: %v", a.classes)
	}
}

// TestReviewHandshakeHangIsBounded: servers that stop answering at each handshake step (or
// close the connection there) make Connect fail within ConnectTimeout, never hang.
func TestReviewHandshakeHangIsBounded(t *testing.T) {
	type step struct {
		name string
		// serve runs after the server answered OPTIONS and saw STARTUP.
		close bool
		at    proto.Opcode // the request the server stops at
	}
	steps := []step{
		{"hang at OPTIONS", false, proto.OpOptions},
		{"hang at STARTUP", false, proto.OpStartup},
		{"hang at AUTH_RESPONSE", false, proto.OpAuthResponse},
		{"close at OPTIONS", true, proto.OpOptions},
		{"close at STARTUP", true, proto.OpStartup},
		{"close at AUTH_RESPONSE", true, proto.OpAuthResponse},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			addr := rvServer(t, cqltest.Listen(t), func(c *rvConn) {
				for {
					f, err := c.read()
					if err != nil {
						return
					}
					if f.h.Opcode == st.at {
						if !st.close {
							// Read and drop everything else until cleanup closes the connection.
							_, _ = io.Copy(io.Discard, c.nc)
						}
						return
					}
					switch f.h.Opcode {
					case proto.OpOptions:
						_ = c.send(f.h.Stream, proto.OpSupported, cqltest.SupportedBody())
					case proto.OpStartup:
						b, _ := proto.AppendString(nil, "org.apache.cassandra.auth.PasswordAuthenticator")
						_ = c.send(f.h.Stream, proto.OpAuthenticate, b)
					}
				}
			})
			cfg := rvConfig(addr)
			cfg.ConnectTimeout = time.Second
			cfg.Authenticator = &native.PasswordAuthenticator{Username: "u", Password: "p"}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rvBounded(t, ctx, cfg, func(error) {})
		})
	}
}

// TestReviewHandshakeHangEndsWithContext: the caller's context bounds the handshake too.
func TestReviewHandshakeHangEndsWithContext(t *testing.T) {
	addr := rvServer(t, cqltest.Listen(t), func(c *rvConn) { _, _ = io.Copy(io.Discard, c.nc) })
	cfg := rvConfig(addr)
	cfg.ConnectTimeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := rvConnectAsync(ctx, cfg)
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("Connect after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Connect ignored its context")
	}
}

// rvTLSListener returns a TLS listener with a certificate for 127.0.0.1 and a pool trusting it.
func rvTLSListener(t *testing.T, clientCAs *x509.CertPool) (net.Listener, *x509.CertPool) {
	t.Helper()
	cert, roots := cqltest.ServerCert(t)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCAs != nil {
		cfg.ClientCAs = clientCAs
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ln, roots
}

// rvReadAll reads frames until the connection fails, answering none.
func rvReadAll(c *rvConn) {
	for {
		if _, err := c.read(); err != nil {
			return
		}
	}
}

func TestReviewTLSMismatches(t *testing.T) {
	// TLS to a plaintext server: fails, bounded, with a TLS handshake error.
	sim := cqlsim.StartT(t, cqlsim.Options{})
	cfg := rvConfig(sim.Addrs()[0])
	cfg.ConnectTimeout = 2 * time.Second
	cfg.TLS = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test
	rvBounded(t, context.Background(), cfg, func(err error) {
		if !strings.Contains(err.Error(), "tls") {
			t.Errorf("TLS to a plaintext server: %v", err)
		}
	})

	// Plaintext to a TLS server: fails, bounded.
	ln, _ := rvTLSListener(t, nil)
	addr := rvServer(t, ln, rvReadAll)
	cfg = rvConfig(addr)
	cfg.ConnectTimeout = 2 * time.Second
	rvBounded(t, context.Background(), cfg, func(err error) {})

	// A server requiring a client certificate refuses a client without one.
	ln, roots := rvTLSListener(t, cqltest.NewCA(t, "review CA").Pool)
	addr = rvServer(t, ln, rvReadAll)
	cfg = rvConfig(addr)
	cfg.ConnectTimeout = 2 * time.Second
	cfg.TLS = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	rvBounded(t, context.Background(), cfg, func(err error) {})

	// Wrong host name: a certificate for 127.0.0.1 used under the name "localhost".
	ln, roots = rvTLSListener(t, nil)
	addr = rvServer(t, ln, rvReadAll)
	_, port, _ := net.SplitHostPort(addr)
	cfg = rvConfig(net.JoinHostPort("localhost", port))
	cfg.TLS = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	rvBounded(t, context.Background(), cfg, func(err error) {
		var he x509.HostnameError
		if !errors.As(err, &he) {
			t.Errorf("host name mismatch: %v, want an x509.HostnameError", err)
		}
	})
}

// rvConnectAsync runs Connect in a goroutine, closes the session if there is one, and sends
// Connect's error on the channel it returns.
func rvConnectAsync(ctx context.Context, cfg native.Config) <-chan error {
	done := make(chan error, 1)
	go func() {
		s, err := native.Connect(ctx, cfg)
		if s != nil {
			s.Close()
		}
		done <- err
	}()
	return done
}

// rvBounded checks that Connect fails within cfg.ConnectTimeout plus 10 s, and runs check on
// its error.
func rvBounded(t *testing.T, ctx context.Context, cfg native.Config, check func(error)) {
	t.Helper()
	select {
	case err := <-rvConnectAsync(ctx, cfg):
		if err == nil {
			t.Fatal("Connect succeeded")
		}
		t.Logf("%v", err)
		check(err)
	case <-time.After(cfg.ConnectTimeout + 10*time.Second):
		t.Fatal("Connect hung past ConnectTimeout+10s")
	}
}

// rvHostAuth is a HostAuthenticator recording the addresses it is started for.
type rvHostAuth struct {
	native.PasswordAuthenticator
	mu     sync.Mutex
	addrs  []string
	withDC []string // the addresses StartHost got with the node's data center
}

func (a *rvHostAuth) StartHost(host native.Host, class string) (native.AuthExchange, []byte, error) {
	a.mu.Lock()
	a.addrs = append(a.addrs, host.Addr)
	if host.DataCenter != "" {
		a.withDC = append(a.withDC, host.Addr)
	}
	a.mu.Unlock()
	return a.Start(class)
}

// TestReviewHostAuthenticator: an Authenticator implementing HostAuthenticator learns the
// node of each connection (compat/gocql's AuthProvider needs it).
func TestReviewHostAuthenticator(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	a := &rvHostAuth{PasswordAuthenticator: native.PasswordAuthenticator{Username: "alice", Password: "s3cret"}}
	var _ native.HostAuthenticator = a
	cfg := rvConfig(sim.Addrs()[0])
	cfg.Authenticator = a
	rvMustConnect(t, cfg, "Connect").Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.addrs) == 0 {
		t.Fatal("StartHost was not called")
	}
	for _, addr := range a.addrs {
		if addr != sim.Addrs()[0] {
			t.Errorf("StartHost got %q, want %q", addr, sim.Addrs()[0])
		}
	}

	// Discovered nodes: each connection names its own node.
	multi := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, Username: "alice", Password: "s3cret"})
	b := &rvHostAuth{PasswordAuthenticator: native.PasswordAuthenticator{Username: "alice", Password: "s3cret"}}
	cfg = rvConfig(multi.Addrs()[0])
	cfg.DisablePeerDiscovery = false
	cfg.Authenticator = b
	rvMustConnect(t, cfg, "Connect to two nodes").Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, want := range multi.Addrs() {
		if !slices.Contains(b.addrs, want) {
			t.Errorf("StartHost got %v, want every node of %v", b.addrs, multi.Addrs())
		}
		// The pools dial nodes the session read from the system tables: StartHost gets
		// what those say, the data center included.
		if !slices.Contains(b.withDC, want) {
			t.Errorf("StartHost got a data center for %v only, want it for every node of %v", b.withDC, multi.Addrs())
		}
	}
}

// TestReviewAuthWithCompression: authentication after a STARTUP asking for compression (the
// server compresses AUTHENTICATE, AUTH_CHALLENGE and AUTH_SUCCESS), and over TLS.
func TestReviewAuthWithCompression(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	for _, comp := range []string{"lz4", "snappy"} {
		for _, useTLS := range []bool{false, true} {
			addr := sim.Addrs()[0]
			cfg := rvConfig(addr)
			if useTLS {
				ln, roots := rvTLSListener(t, nil)
				cfg.Hosts = []string{cqltest.Serve(t, ln, func(c net.Conn) { cqltest.Relay(c, addr) })}
				cfg.TLS = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
			}
			cfg.Compression = comp
			cfg.Authenticator = &native.PasswordAuthenticator{Username: "alice", Password: "s3cret"}
			s := rvMustConnect(t, cfg, fmt.Sprintf("%s, TLS %v", comp, useTLS))
			mustExec(t, s, "SELECT release_version FROM system.local")
			s.Close()
			cfg.Authenticator = &native.PasswordAuthenticator{Username: "alice", Password: "bad"}
			_, err := native.Connect(ctxT(t), cfg)
			var ae *native.AuthenticationError
			if !errors.As(err, &ae) {
				t.Errorf("%s, TLS %v, wrong password: %v", comp, useTLS, err)
			}
		}
	}
}

// rvNilExchange returns a token but no exchange.
type rvNilExchange struct{}

func (rvNilExchange) Start(string) (native.AuthExchange, []byte, error) {
	return nil, []byte("\x00alice\x00s3cret"), nil
}

// TestReviewAuthenticatorWithoutExchange: an Authenticator whose Start returns no exchange
// fails the connection with an error instead of panicking when the server answers.
func TestReviewAuthenticatorWithoutExchange(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	cfg := rvConfig(sim.Addrs()[0])
	cfg.Authenticator = rvNilExchange{}
	s, err := native.Connect(ctxT(t), cfg)
	if err == nil {
		s.Close()
		t.Fatal("connected with an Authenticator that returned no exchange")
	}
	if !strings.Contains(err.Error(), "no AuthExchange") {
		t.Errorf("error %v", err)
	}
}

// rvPanicAuth panics in Start (or, with inSuccess, in its exchange's Success).
type rvPanicAuth struct{ inSuccess bool }

func (a rvPanicAuth) Start(string) (native.AuthExchange, []byte, error) {
	if !a.inSuccess {
		panic("rvPanicAuth: Start")
	}
	return rvPanicExchange{}, []byte("\x00alice\x00s3cret"), nil
}

type rvPanicExchange struct{}

func (rvPanicExchange) Challenge([]byte) ([]byte, error) { return nil, errors.New("no challenge") }
func (rvPanicExchange) Success([]byte) error             { panic("rvPanicExchange: Success") }

// An Authenticator that panics, in Start or in its exchange, and a typed nil
// *PasswordAuthenticator (an unset pointer in the interface), fail the connection with an
// error, as a Dialer's panic does: the panic reached Connect's caller from the control
// connection's handshake, or ended the program from a pool's background goroutine.
func TestAuthenticatorPanicFailsTheConnection(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	for name, c := range map[string]struct {
		auth native.Authenticator
		want string
	}{
		"typed nil *PasswordAuthenticator": {(*native.PasswordAuthenticator)(nil), "nil *PasswordAuthenticator"},
		"panic in Start":                   {rvPanicAuth{}, "panicked: rvPanicAuth: Start"},
		"panic in Success":                 {rvPanicAuth{inSuccess: true}, "panicked: rvPanicExchange: Success"},
	} {
		cfg := rvConfig(sim.Addrs()[0])
		cfg.Authenticator = c.auth
		var s *native.Session
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("Connect panicked (%v)", p)
				}
			}()
			s, err = native.Connect(ctxT(t), cfg)
		}()
		if err == nil {
			s.Close()
			t.Errorf("%s: connected", name)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}
