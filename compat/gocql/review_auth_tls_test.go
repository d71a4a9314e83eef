package gocql

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

const rvPasswordClass = "org.apache.cassandra.auth.PasswordAuthenticator"

// rvCreate runs CreateSession, bounded: it must end within ConnectTimeout's bound plus 10 s.
func rvCreate(t *testing.T, cfg *ClusterConfig) (*Session, error) {
	t.Helper()
	type out struct {
		s   *Session
		err error
	}
	done := make(chan out, 1)
	go func() {
		s, err := cfg.CreateSession()
		done <- out{s, err}
	}()
	select {
	case o := <-done:
		if o.s != nil {
			t.Cleanup(o.s.Close)
		}
		return o.s, o.err
	case <-time.After(2*cfg.ConnectTimeout + cfg.Timeout + 10*time.Second):
		t.Fatal("CreateSession hung")
		return nil, nil
	}
}

func rvCluster(addrs ...string) *ClusterConfig {
	cfg := NewCluster(addrs...)
	cfg.DisableInitialHostLookup = true
	cfg.NumConns = 1
	cfg.ConnectTimeout = 5 * time.Second
	cfg.Timeout = 20 * time.Second
	return cfg
}

// TestReviewCreateSessionAuthErrors: gocql v1.7.0 fails CreateSession with the server's
// message, or its own, under the step it was at; never ErrNoConnectionsStarted.
func TestReviewCreateSessionAuthErrors(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	for _, v := range []int{0, 4} {
		step := "unable to discover protocol version: "
		if v == 4 {
			step = "unable to connect to initial hosts: "
		}
		cases := []struct {
			name string
			auth Authenticator
			want string
		}{
			{"wrong password", PasswordAuthenticator{Username: "alice", Password: "wrong"}, "Provided username and/or password are incorrect"},
			{"no authenticator", nil, fmt.Sprintf("authentication required (using %q)", rvPasswordClass)},
			{"class not allowed", PasswordAuthenticator{Username: "alice", Password: "s3cret", AllowedAuthenticators: []string{"x.Y"}},
				fmt.Sprintf("unexpected authenticator %q", rvPasswordClass)},
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("v%d %s", v, c.name), func(t *testing.T) {
				cfg := rvCluster(sim.Addrs()...)
				cfg.ProtoVersion = v
				cfg.Authenticator = c.auth
				_, err := rvCreate(t, cfg)
				if want := "gocql: unable to create session: " + step + c.want; err == nil || err.Error() != want {
					t.Fatalf("CreateSession: %v\nwant %s", err, want)
				}
			})
		}
	}
	cfg := rvCluster(sim.Addrs()...)
	cfg.Authenticator = PasswordAuthenticator{Username: "alice", Password: "s3cret"}
	s, err := rvCreate(t, cfg)
	if err != nil {
		t.Fatalf("right password: %v", err)
	}
	if err := s.Query("SELECT key FROM system.local").Exec(); err != nil {
		t.Fatal(err)
	}
	// An authenticator for a server without authentication is not used.
	plain := cqlsim.StartT(t, cqlsim.Options{})
	cfg = rvCluster(plain.Addrs()...)
	cfg.Authenticator = PasswordAuthenticator{Username: "alice", Password: "wrong"}
	if _, err := rvCreate(t, cfg); err != nil {
		t.Fatalf("authenticator for a server without authentication: %v", err)
	}
}

// TestReviewAuthProviderGetsTheHost: gocql calls AuthProvider with the host being connected
// to; a provider that looks at it must not crash.
func TestReviewAuthProviderGetsTheHost(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	host, port, _ := net.SplitHostPort(sim.Addrs()[0])
	var mu sync.Mutex
	var seen []string
	cfg := rvCluster(sim.Addrs()...)
	cfg.AuthProvider = func(h *HostInfo) (Authenticator, error) {
		if h == nil {
			return nil, errors.New("AuthProvider called with a nil host")
		}
		mu.Lock()
		seen = append(seen, net.JoinHostPort(h.ConnectAddress().String(), fmt.Sprint(h.Port())))
		mu.Unlock()
		return PasswordAuthenticator{Username: "alice", Password: "s3cret"}, nil
	}
	if _, err := rvCreate(t, cfg); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("AuthProvider not called")
	}
	for _, a := range seen {
		if a != net.JoinHostPort(host, port) {
			t.Errorf("AuthProvider got host %s, want %s", a, net.JoinHostPort(host, port))
		}
	}
	// An AuthProvider error fails CreateSession with it, as in gocql.
	cfg = rvCluster(sim.Addrs()...)
	cfg.AuthProvider = func(*HostInfo) (Authenticator, error) { return nil, errors.New("no credentials for you") }
	if _, err := rvCreate(t, cfg); err == nil || err.Error() != "gocql: unable to create session: unable to discover protocol version: no credentials for you" {
		t.Fatalf("AuthProvider error: %v", err)
	}
}

// rvConn is the server side of one connection of a review fake server.
type rvConn struct{ nc net.Conn }

func (c *rvConn) read() (proto.Header, []byte, error) {
	f, err := cqltest.ReadFrame(c.nc)
	return proto.Header{Stream: f.Stream, Opcode: proto.Opcode(f.Opcode), Length: len(f.Body)}, f.Body, err
}

func (c *rvConn) send(stream int16, op proto.Opcode, body []byte) error {
	return cqltest.WriteFrame(c.nc, stream, byte(op), body)
}

// rvServe accepts connections on ln and runs serve on each until cleanup.
func rvServe(t *testing.T, ln net.Listener, serve func(c *rvConn)) string {
	return cqltest.Serve(t, ln, func(nc net.Conn) { serve(&rvConn{nc: nc}) })
}

// rvAuthFront is cqltest.AuthFront with auth running on an rvConn.
func rvAuthFront(t *testing.T, target, class string, auth func(c *rvConn) bool) string {
	return cqltest.AuthFront(t, target, class, func(nc net.Conn) bool { return auth(&rvConn{nc: nc}) })
}

// rvRounds answers each AUTH_RESPONSE in turn with challenges "c1".."cN" then AUTH_SUCCESS
// with final; the responses it receives are recorded.
func rvRounds(n int, final string, got *[]string, mu *sync.Mutex) func(c *rvConn) bool {
	return func(c *rvConn) bool {
		for i := 0; ; i++ {
			h, body, err := c.read()
			if err != nil || h.Opcode != proto.OpAuthResponse || len(body) < 4 {
				return false
			}
			mu.Lock()
			*got = append(*got, string(body[4:]))
			mu.Unlock()
			if i == n {
				return c.send(h.Stream, proto.OpAuthSuccess, proto.AppendBytes(nil, []byte(final))) == nil
			}
			if c.send(h.Stream, proto.OpAuthChallenge, proto.AppendBytes(nil, []byte(fmt.Sprintf("c%d", i+1)))) != nil {
				return false
			}
		}
	}
}

// rvStep is a gocql Authenticator of a multi-round mechanism: it answers "r<name>" and hands
// over to next (nil: none), recording every call in log.
type rvStep struct {
	rvStepLog
	next Authenticator
}

// rvStepLog is the name of a step of rvStep or rvStepV1 and the log its calls go to.
type rvStepLog struct {
	name string
	log  *[]string
	mu   *sync.Mutex
}

// record logs the call name.method(arg), and returns the step's answer to a challenge.
func (l *rvStepLog) record(method string, arg []byte) []byte {
	l.mu.Lock()
	*l.log = append(*l.log, l.name+"."+method+"("+string(arg)+")")
	l.mu.Unlock()
	return []byte("r" + l.name)
}

// Success is the Success of rvStep and rvStepV1.
func (l *rvStepLog) Success(data []byte) error {
	l.record("Success", data)
	return nil
}

func (a *rvStep) Challenge(req []byte) ([]byte, Authenticator, error) {
	return a.record("Challenge", req), a.next, nil
}

// TestReviewAuthenticatorChain: gocql answers each round with the authenticator the previous
// Challenge returned, calls Success on the last one returned, and calls no Success when the
// last Challenge returned none.
func TestReviewAuthenticatorChain(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	var mu sync.Mutex

	// Two challenges: a -> b -> c; AUTH_SUCCESS goes to c's successor... c returns none: no Success.
	var log, got []string
	chain := func() *rvStep {
		c := &rvStep{rvStepLog: rvStepLog{name: "c", log: &log, mu: &mu}}
		b := &rvStep{rvStepLog: rvStepLog{name: "b", log: &log, mu: &mu}, next: c}
		return &rvStep{rvStepLog: rvStepLog{name: "a", log: &log, mu: &mu}, next: b}
	}
	cfg := rvCluster(rvAuthFront(t, sim.Addrs()[0], "com.example.Custom", rvRounds(2, "done", &got, &mu)))
	cfg.NumConns = 1
	cfg.AuthProvider = func(*HostInfo) (Authenticator, error) { return chain(), nil }
	if _, err := rvCreate(t, cfg); err != nil {
		t.Fatalf("three-step chain: %v", err)
	}
	mu.Lock()
	if want := "a.Challenge(com.example.Custom) b.Challenge(c1) c.Challenge(c2)"; strings.Join(log[:3], " ") != want {
		t.Errorf("calls %v, want %s then the same per connection", log, want)
	}
	for _, l := range log {
		if strings.Contains(l, "Success") {
			t.Errorf("Success called although the last Challenge returned no authenticator: %v", log)
			break
		}
	}
	if strings.Join(got[:3], " ") != "ra rb rc" {
		t.Errorf("server got %v", got)
	}
	log, got = nil, nil
	mu.Unlock()

	// One challenge, the successor kept: its Success gets the token.
	okStep := &rvOK{}
	cfg = rvCluster(rvAuthFront(t, sim.Addrs()[0], "com.example.Custom", rvRounds(1, "tok", &got, &mu)))
	cfg.Authenticator = okStep
	if _, err := rvCreate(t, cfg); err != nil {
		t.Fatalf("self-chaining authenticator: %v", err)
	}
	okStep.mu.Lock()
	if okStep.challenges < 2 || len(okStep.success) == 0 || okStep.success[0] != "tok" {
		t.Errorf("self-chaining authenticator: %d challenges, success %v", okStep.challenges, okStep.success)
	}
	okStep.mu.Unlock()

	// A challenge after the authenticator returned none for the next round: gocql v1.7.0
	// panics (nil interface); here the connection fails with an error.
	cfg = rvCluster(rvAuthFront(t, sim.Addrs()[0], "com.example.Custom", rvRounds(1, "x", &got, &mu)))
	cfg.Authenticator = PasswordAuthenticator{Username: "u", Password: "p", AllowedAuthenticators: []string{"com.example.Custom"}}
	if _, err := rvCreate(t, cfg); err == nil {
		t.Fatal("a challenge to PLAIN was answered")
	}
}

// rvOK returns itself for the next round and records Success.
type rvOK struct {
	mu         sync.Mutex
	challenges int
	success    []string
}

func (a *rvOK) Challenge([]byte) ([]byte, Authenticator, error) {
	a.mu.Lock()
	a.challenges++
	a.mu.Unlock()
	return []byte("x"), a, nil
}

func (a *rvOK) Success(data []byte) error {
	a.mu.Lock()
	a.success = append(a.success, string(data))
	a.mu.Unlock()
	return nil
}

// TestReviewHandshakeHang: a server that never answers the handshake fails CreateSession with
// gocql's startup timeout error, within ConnectTimeout.
func TestReviewHandshakeHang(t *testing.T) {
	addr := rvServe(t, cqltest.Listen(t), func(c *rvConn) { _, _ = io.Copy(io.Discard, c.nc) })
	cfg := rvCluster(addr)
	cfg.ConnectTimeout = time.Second
	_, err := rvCreate(t, cfg)
	if want := "gocql: unable to create session: unable to discover protocol version: gocql: no response to connection startup within timeout"; err == nil || err.Error() != want {
		t.Fatalf("hanging handshake: %v\nwant %s", err, want)
	}

	// A server that never answers AUTH_RESPONSE.
	sim := cqlsim.StartT(t, cqlsim.Options{})
	front := rvAuthFront(t, sim.Addrs()[0], rvPasswordClass, func(c *rvConn) bool {
		_, _ = io.Copy(io.Discard, c.nc)
		return false
	})
	cfg = rvCluster(front)
	cfg.ConnectTimeout = time.Second
	cfg.Authenticator = PasswordAuthenticator{Username: "u", Password: "p"}
	_, err = rvCreate(t, cfg)
	if want := "gocql: unable to create session: unable to discover protocol version: gocql: no response to connection startup within timeout"; err == nil || err.Error() != want {
		t.Fatalf("hanging authentication: %v\nwant %s", err, want)
	}
}

// rvPKI is a CA with a server certificate for 127.0.0.1 and a client certificate, as PEM
// files in a temporary directory.
type rvPKI struct {
	dir                       string
	caFile, certFile, keyFile string
	serverCert                tls.Certificate
	pool                      *x509.CertPool
}

func rvNewPKI(t *testing.T) *rvPKI {
	t.Helper()
	ca := cqltest.NewCA(t, "review CA")
	p := &rvPKI{dir: t.TempDir(), pool: ca.Pool}
	p.serverCert = ca.Issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	client := ca.Issue(t, "127.0.0.1", x509.ExtKeyUsageClientAuth)
	keyDER, err := x509.MarshalECPrivateKey(client.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(p.dir, name)
		if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	p.caFile = write("ca.pem", "CERTIFICATE", ca.Cert.Raw)
	p.certFile = write("client.pem", "CERTIFICATE", client.Certificate[0])
	p.keyFile = write("client.key", "EC PRIVATE KEY", keyDER)
	return p
}

// rvTLSProxy terminates TLS (requiring a client certificate signed by the CA when
// clientAuth) and relays the plaintext to target.
func rvTLSProxy(t *testing.T, p *rvPKI, target string, clientAuth bool) string {
	cfg := &tls.Config{Certificates: []tls.Certificate{p.serverCert}, MinVersion: tls.VersionTLS12}
	if clientAuth {
		cfg.ClientCAs = p.pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cqltest.Serve(t, ln, func(c net.Conn) { cqltest.Relay(c, target) })
}

func TestReviewSslOptions(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	p := rvNewPKI(t)
	mtls := rvTLSProxy(t, p, sim.Addrs()[0], true)

	// CaPath, CertPath, KeyPath and host verification: connects.
	cfg := rvCluster(mtls)
	cfg.SslOpts = &SslOptions{CaPath: p.caFile, CertPath: p.certFile, KeyPath: p.keyFile, EnableHostVerification: true}
	s, err := rvCreate(t, cfg)
	if err != nil {
		t.Fatalf("mutual TLS: %v", err)
	}
	if err := s.Query("SELECT key FROM system.local").Exec(); err != nil {
		t.Fatal(err)
	}

	// The same through SslOptions.Config, InsecureSkipVerify overridden by
	// EnableHostVerification: the CA must still be trusted.
	cfg = rvCluster(mtls)
	cfg.SslOpts = &SslOptions{Config: &tls.Config{InsecureSkipVerify: true}, CertPath: p.certFile, KeyPath: p.keyFile, EnableHostVerification: true} //nolint:gosec // test
	_, err = rvCreate(t, cfg)
	var uae x509.UnknownAuthorityError
	if err == nil {
		t.Fatal("EnableHostVerification did not override Config.InsecureSkipVerify")
	}
	if want := "gocql: unable to create session: unable to discover protocol version: tls: failed to verify certificate: x509: certificate signed by unknown authority"; err.Error() != want || !errors.As(err, &uae) {
		t.Errorf("untrusted certificate: %v\nwant %s", err, want)
	}

	// A certificate for 127.0.0.1 under another name: gocql's host name error.
	_, port, _ := net.SplitHostPort(mtls)
	cfg = rvCluster(net.JoinHostPort("localhost", port))
	cfg.SslOpts = &SslOptions{CaPath: p.caFile, CertPath: p.certFile, KeyPath: p.keyFile, EnableHostVerification: true}
	_, err = rvCreate(t, cfg)
	var hne x509.HostnameError
	if want := "gocql: unable to create session: unable to discover protocol version: tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match localhost"; err == nil || err.Error() != want || !errors.As(err, &hne) {
		t.Errorf("host name mismatch: %v\nwant %s", err, want)
	}

	// Without host verification and without a CA, the certificate is not checked.
	cfg = rvCluster(mtls)
	cfg.SslOpts = &SslOptions{CertPath: p.certFile, KeyPath: p.keyFile}
	if _, err := rvCreate(t, cfg); err != nil {
		t.Fatalf("TLS without verification: %v", err)
	}

	// No client certificate for a server that requires one: fails, bounded.
	cfg = rvCluster(mtls)
	cfg.SslOpts = &SslOptions{CaPath: p.caFile, EnableHostVerification: true}
	if _, err := rvCreate(t, cfg); err == nil {
		t.Fatal("connected without the client certificate the server requires")
	}

	// TLS to a plaintext server, and plaintext to a TLS server: fail, bounded. cqlsim, as
	// Cassandra 5.0.9 does, answers a TLS ClientHello at once (its first byte is no protocol
	// version) and closes the connection.
	cfg = rvCluster(sim.Addrs()...)
	cfg.ConnectTimeout = 2 * time.Second
	cfg.SslOpts = &SslOptions{}
	if _, err := rvCreate(t, cfg); err == nil || !strings.Contains(err.Error(), "tls: first record does not look like a TLS handshake") {
		t.Fatalf("TLS to a plaintext server: %v", err)
	}
	// A plaintext server that reads the ClientHello and never answers: gocql v1.7.0 waits
	// for the TLS handshake without a deadline; here ConnectTimeout bounds it, with gocql's
	// startup timeout error.
	silent := cqltest.Serve(t, cqltest.Listen(t), func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	cfg = rvCluster(silent)
	cfg.ConnectTimeout = 2 * time.Second
	cfg.SslOpts = &SslOptions{}
	if _, err := rvCreate(t, cfg); err == nil || err.Error() != "gocql: unable to create session: unable to discover protocol version: gocql: no response to connection startup within timeout" {
		t.Fatalf("TLS to a silent plaintext server: %v", err)
	}
	cfg = rvCluster(mtls)
	cfg.ConnectTimeout = 2 * time.Second
	if _, err := rvCreate(t, cfg); err == nil {
		t.Fatal("plaintext to a TLS server connected")
	}
}

// TestReviewSslOptionsFileErrors: gocql's errors for unreadable CA, CA and key files.
func TestReviewSslOptionsFileErrors(t *testing.T) {
	p := rvNewPKI(t)
	missing := filepath.Join(p.dir, "missing.pem")
	_, openErr := os.ReadFile(missing)
	garbage := filepath.Join(p.dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, pairErr := tls.LoadX509KeyPair(p.certFile, garbage)
	for _, c := range []struct {
		opts SslOptions
		want string
	}{
		{SslOptions{CaPath: missing}, "gocql: unable to create session: connectionpool: unable to open CA certs: " + openErr.Error()},
		{SslOptions{CaPath: garbage}, "gocql: unable to create session: connectionpool: failed parsing or CA certs"},
		{SslOptions{CertPath: p.certFile, KeyPath: garbage}, "gocql: unable to create session: connectionpool: unable to load X509 key pair: " + pairErr.Error()},
	} {
		cfg := rvCluster("127.0.0.1:1")
		opts := c.opts
		cfg.SslOpts = &opts
		if _, err := rvCreate(t, cfg); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v\nwant %s", c.opts, err, c.want)
		}
	}
}

// TestReviewAuthErrorsLikeGocql runs the authentication failures on gocql v1.7.0 and on the
// shim, against the same server, and compares CreateSession's errors.
func TestReviewAuthErrorsLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Username: "alice", Password: "s3cret"})
	type authCase struct {
		name   string
		legacy func(c *gocqlv1.ClusterConfig)
		compat func(c *ClusterConfig)
	}
	cases := []authCase{
		{"wrong password",
			func(c *gocqlv1.ClusterConfig) {
				c.Authenticator = gocqlv1.PasswordAuthenticator{Username: "alice", Password: "x"}
			},
			func(c *ClusterConfig) { c.Authenticator = PasswordAuthenticator{Username: "alice", Password: "x"} }},
		{"no authenticator", func(*gocqlv1.ClusterConfig) {}, func(*ClusterConfig) {}},
		{"class not allowed",
			func(c *gocqlv1.ClusterConfig) {
				c.Authenticator = gocqlv1.PasswordAuthenticator{Username: "alice", Password: "s3cret", AllowedAuthenticators: []string{"a.B"}}
			},
			func(c *ClusterConfig) {
				c.Authenticator = PasswordAuthenticator{Username: "alice", Password: "s3cret", AllowedAuthenticators: []string{"a.B"}}
			}},
		{"provider error",
			func(c *gocqlv1.ClusterConfig) {
				c.AuthProvider = func(*gocqlv1.HostInfo) (gocqlv1.Authenticator, error) { return nil, errors.New("no creds") }
			},
			func(c *ClusterConfig) {
				c.AuthProvider = func(*HostInfo) (Authenticator, error) { return nil, errors.New("no creds") }
			}},
		{"right password",
			func(c *gocqlv1.ClusterConfig) {
				c.Authenticator = gocqlv1.PasswordAuthenticator{Username: "alice", Password: "s3cret"}
			},
			func(c *ClusterConfig) { c.Authenticator = PasswordAuthenticator{Username: "alice", Password: "s3cret"} }},
	}
	render := func(err error) string {
		if err == nil {
			return "<nil>"
		}
		return err.Error()
	}
	for _, v := range []int{0, 4} {
		for _, c := range cases {
			lc := gocqlv1.NewCluster(sim.Addrs()...)
			lc.ProtoVersion, lc.NumConns, lc.ConnectTimeout, lc.Timeout = v, 1, 5*time.Second, 20*time.Second
			lc.Logger = rvNoLog{}
			c.legacy(lc)
			ls, lerr := lc.CreateSession()
			if ls != nil {
				ls.Close()
			}
			cc := rvCluster(sim.Addrs()...)
			cc.ProtoVersion = v
			cc.DisableInitialHostLookup = false
			cc.Logger = rvNoLog{}
			c.compat(cc)
			_, cerr := rvCreate(t, cc)
			if render(lerr) != render(cerr) {
				t.Errorf("v%d %s:\ngocql:  %s\ncompat: %s", v, c.name, render(lerr), render(cerr))
			}
		}
	}
}

type rvNoLog struct{}

func (rvNoLog) Print(...interface{})          {}
func (rvNoLog) Printf(string, ...interface{}) {}
func (rvNoLog) Println(...interface{})        {}

// rvStepV1 is rvStep for gocql v1.7.0.
type rvStepV1 struct {
	rvStepLog
	next gocqlv1.Authenticator
}

func (a *rvStepV1) Challenge(req []byte) ([]byte, gocqlv1.Authenticator, error) {
	return a.record("Challenge", req), a.next, nil
}

// TestReviewAuthenticatorChainLikeGocql: the same chained authenticators on gocql v1.7.0 and
// on the shim see the same calls on their first connection.
func TestReviewAuthenticatorChainLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	for _, rounds := range []int{0, 1, 2} {
		for _, last := range []string{"none", "self"} {
			var mu sync.Mutex
			var got []string
			front := rvAuthFront(t, sim.Addrs()[0], "com.example.Custom", rvRounds(rounds, "tok", &got, &mu))
			// a -> b -> c, c returning nil or itself.
			var llog, clog []string
			lc := &rvStepV1{rvStepLog: rvStepLog{name: "c", log: &llog, mu: &mu}}
			cc := &rvStep{rvStepLog: rvStepLog{name: "c", log: &clog, mu: &mu}}
			if last == "self" {
				lc.next, cc.next = lc, cc
			}
			legacyAuth := &rvStepV1{rvStepLog: rvStepLog{name: "a", log: &llog, mu: &mu}, next: &rvStepV1{rvStepLog: rvStepLog{name: "b", log: &llog, mu: &mu}, next: lc}}
			compatAuth := &rvStep{rvStepLog: rvStepLog{name: "a", log: &clog, mu: &mu}, next: &rvStep{rvStepLog: rvStepLog{name: "b", log: &clog, mu: &mu}, next: cc}}

			lcfg := gocqlv1.NewCluster(front)
			lcfg.NumConns, lcfg.ProtoVersion, lcfg.DisableInitialHostLookup = 1, 4, true
			lcfg.Logger = rvNoLog{}
			lcfg.Authenticator = legacyAuth
			ls, lerr := lcfg.CreateSession()
			if ls != nil {
				ls.Close()
			}
			ccfg := rvCluster(front)
			ccfg.ProtoVersion = 4
			ccfg.Authenticator = compatAuth
			_, cerr := rvCreate(t, ccfg)
			if lerr != nil || cerr != nil {
				t.Errorf("rounds %d, last %s: gocql %v, compat %v", rounds, last, lerr, cerr)
			}
			mu.Lock()
			// The first connection's calls: its Challenge calls, and Success when called.
			first := func(log []string) string {
				n := min(rounds+1, len(log))
				if n < len(log) && strings.Contains(log[n], ".Success(") {
					n++
				}
				return strings.Join(log[:n], " ")
			}
			if first(llog) != first(clog) {
				t.Errorf("rounds %d, last %s:\ngocql  %v\ncompat %v", rounds, last, llog, clog)
			}
			mu.Unlock()
		}
	}
}

// TestReviewWrapTLSLikeGocql: WrapTLS returns crypto/tls's error as it is, and sets
// ServerName (so sends SNI) only when it verifies the server, as gocql v1.7.0 does.
func TestReviewWrapTLSLikeGocql(t *testing.T) {
	p := rvNewPKI(t)
	sni := make(chan string, 16)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{p.serverCert}, MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) { sni <- h.ServerName; return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := rvServe(t, ln, func(c *rvConn) { _, _ = io.Copy(io.Discard, c.nc) })
	_, port, _ := net.SplitHostPort(addr)
	named := net.JoinHostPort("localhost", port)
	type wrapFn func(conn net.Conn, cfg *tls.Config) (net.Conn, error)
	legacy := func(conn net.Conn, cfg *tls.Config) (net.Conn, error) {
		d, err := gocqlv1.WrapTLS(context.Background(), conn, named, cfg)
		if err != nil {
			return nil, err
		}
		return d.Conn, nil
	}
	shim := func(conn net.Conn, cfg *tls.Config) (net.Conn, error) {
		d, err := WrapTLS(context.Background(), conn, named, cfg)
		if err != nil {
			return nil, err
		}
		return d.Conn, nil
	}
	run := func(wrap wrapFn, cfg *tls.Config) (string, string) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c, err := wrap(nc, cfg)
		got := ""
		select {
		case got = <-sni:
		case <-time.After(30 * time.Second):
			t.Fatal("no ClientHello")
		}
		if c != nil {
			c.Close()
		}
		if err != nil {
			return got, err.Error()
		}
		return got, "<nil>"
	}
	for _, cfg := range []*tls.Config{
		{InsecureSkipVerify: true}, //nolint:gosec // test
		{RootCAs: p.pool},
		{},
	} {
		ls, le := run(legacy, cfg)
		cs, ce := run(shim, cfg)
		if ls != cs || le != ce {
			t.Errorf("InsecureSkipVerify %v: gocql SNI %q, %s; compat SNI %q, %s", cfg.InsecureSkipVerify, ls, le, cs, ce)
		}
	}
}

// TestReviewHandshakeFailuresLikeGocql: a TLS server refusing the client (no client
// certificate, TLS 1.2 and 1.3), a plaintext client of a TLS server and a server closing the
// connection at each handshake step fail CreateSession with gocql v1.7.0's errors.
func TestReviewHandshakeFailuresLikeGocql(t *testing.T) {
	p := rvNewPKI(t)
	type target struct {
		name string
		addr string
		ssl  bool
	}
	var targets []target
	for _, maxv := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{p.serverCert},
			MinVersion: tls.VersionTLS12, MaxVersion: maxv, ClientCAs: p.pool, ClientAuth: tls.RequireAndVerifyClientCert})
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, target{fmt.Sprintf("no client certificate, TLS %x", maxv), rvServe(t, ln, func(c *rvConn) {
			// Read what the client sends until it closes, so that the server's alert is not
			// lost to a reset.
			tc := c.nc.(*tls.Conn)
			if tc.Handshake() != nil {
				_, _ = io.Copy(io.Discard, tc.NetConn())
			}
		}), true})
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{p.serverCert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	targets = append(targets, target{"plaintext to TLS", rvServe(t, ln, func(c *rvConn) {
		// Refuse the plaintext, as a TLS server does, but read it all first so that closing
		// ends the connection cleanly (no reset).
		tc := c.nc.(*tls.Conn)
		if tc.Handshake() != nil {
			_ = tc.NetConn().SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			_, _ = io.Copy(io.Discard, tc.NetConn())
		}
	}), false})
	for _, at := range []proto.Opcode{proto.OpOptions, proto.OpStartup, proto.OpAuthResponse} {
		targets = append(targets, target{"server closes at " + at.String(), rvServe(t, cqltest.Listen(t), func(c *rvConn) {
			for {
				h, _, err := c.read()
				if err != nil || h.Opcode == at {
					return
				}
				switch h.Opcode {
				case proto.OpOptions:
					_ = c.send(h.Stream, proto.OpSupported, cqltest.SupportedBody())
				case proto.OpStartup:
					b, _ := proto.AppendString(nil, rvPasswordClass)
					_ = c.send(h.Stream, proto.OpAuthenticate, b)
				}
			}
		}), false})
	}
	for _, tg := range targets {
		for _, v := range []int{0, 4} {
			lc := gocqlv1.NewCluster(tg.addr)
			lc.ProtoVersion, lc.ConnectTimeout, lc.Logger = v, 5*time.Second, rvNoLog{}
			lc.Authenticator = gocqlv1.PasswordAuthenticator{Username: "u", Password: "p"}
			cc := rvCluster(tg.addr)
			cc.ProtoVersion, cc.DisableInitialHostLookup, cc.Logger = v, false, rvNoLog{}
			cc.Authenticator = PasswordAuthenticator{Username: "u", Password: "p"}
			if tg.ssl {
				lc.SslOpts = &gocqlv1.SslOptions{CaPath: p.caFile, EnableHostVerification: true}
				cc.SslOpts = &SslOptions{CaPath: p.caFile, EnableHostVerification: true}
			}
			ls, lerr := lc.CreateSession()
			if ls != nil {
				ls.Close()
			}
			_, cerr := rvCreate(t, cc)
			if lerr == nil || cerr == nil || lerr.Error() != cerr.Error() {
				t.Errorf("%s, v%d:\ngocql:  %v\ncompat: %v", tg.name, v, lerr, cerr)
			}
		}
	}
}

// TestReviewTLSHandshakeHangIsBounded pins deviation G31: gocql v1.7.0 runs the TLS handshake
// with a context that has no deadline, so TLS to a server that accepts and never answers
// hangs CreateSession for ever; the shim's handshake is bounded by ConnectTimeout and fails.
func TestReviewTLSHandshakeHangIsBounded(t *testing.T) {
	addr := rvServe(t, cqltest.Listen(t), func(c *rvConn) { _, _ = io.Copy(io.Discard, c.nc) })
	cfg := rvCluster(addr)
	cfg.ConnectTimeout = time.Second
	cfg.SslOpts = &SslOptions{Config: &tls.Config{InsecureSkipVerify: true}}
	s, err := rvCreate(t, cfg) // fails the test if CreateSession does not return
	if err == nil {
		s.Close()
		t.Fatal("CreateSession over TLS to a silent server succeeded")
	}
	t.Logf("TLS to a silent server: %v", err)
	if !strings.HasPrefix(err.Error(), "gocql: unable to create session: ") {
		t.Errorf("error %q does not say CreateSession failed", err)
	}
}

// TestReviewAwaitSchemaAgreementAfterClose pins deviation G32: gocql v1.7.0 waits the whole
// MaxWaitSchemaAgreement (60 s by default) on a closed session; the shim returns
// ErrSessionClosed at once.
func TestReviewAwaitSchemaAgreementAfterClose(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	s, err := rvCreate(t, rvCluster(sim.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.AwaitSchemaAgreement(ctx); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("AwaitSchemaAgreement after Close: %v, want ErrSessionClosed", err)
	}
}
