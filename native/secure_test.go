package native_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// firstBytes is a Dialer that records the first byte each of its connections writes: 0x16
// opens a TLS handshake, 0x04 or 0x05 a plain CQL frame.
type firstBytes struct {
	mu    sync.Mutex
	first []byte
}

func (d *firstBytes) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &firstByteConn{Conn: c, d: d}, nil
}

func (d *firstBytes) seen() []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]byte(nil), d.first...)
}

type firstByteConn struct {
	net.Conn
	d    *firstBytes
	once sync.Once
}

func (c *firstByteConn) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.once.Do(func() {
			c.d.mu.Lock()
			c.d.first = append(c.d.first, p[0])
			c.d.mu.Unlock()
		})
	}
	return c.Conn.Write(p)
}

// TestSecureCassandra runs against real Cassandra nodes that require a password and serve TLS
// (scripts/cassandra up --secure; the secure step of scripts/test): a superuser session over
// verified TLS, a role's session in plain CQL whose missing permission comes back as an
// *UnauthorizedError, protocol v5 with lz4 over TLS, and connection attempts with a wrong
// password, no credentials, no client certificate and an untrusted server certificate, each
// failing with an error that says why.
func TestSecureCassandra(t *testing.T) {
	sc := cqltest.Secure(t)
	ctx := ctxT(t)
	dialer := &firstBytes{}
	su, err := native.Connect(ctx, native.Config{
		Hosts:         sc.Hosts,
		Authenticator: &native.PasswordAuthenticator{Username: cqltest.SecureUser, Password: cqltest.SecurePassword},
		TLS:           sc.TLSConfig(),
		Dialer:        dialer,
		Timeout:       30 * time.Second,
	})
	if err != nil {
		t.Fatalf("superuser over TLS: %v", err)
	}
	t.Cleanup(func() { su.Close() }) // after the cleanup below, which uses su
	res := mustExec(t, su, "SELECT release_version FROM system.local")
	row, ok := res.First()
	var version string
	if !ok || row.Scan(&version) != nil || version == "" {
		t.Fatalf("release_version over TLS: %v rows, %q", res.Len(), version)
	}
	first := dialer.seen()
	if len(first) == 0 {
		t.Fatal("the Dialer opened no connection")
	}
	for i, b := range first {
		if b != 0x16 {
			t.Errorf("connection %d of %d began with byte %#x, not a TLS handshake (0x16)", i+1, len(first), b)
		}
	}

	ks := cqltest.KeyspaceName(t)
	role := ks + "_reader"
	mustExec(t, su, "CREATE ROLE "+role+" WITH PASSWORD = 'r3ader' AND LOGIN = true")
	t.Cleanup(func() {
		for _, cql := range []string{"DROP ROLE IF EXISTS " + role, "DROP KEYSPACE IF EXISTS " + ks} {
			if _, err := su.Execute(context.Background(), native.Query(cql)); err != nil {
				t.Logf("%s: %v", cql, err)
			}
		}
	})
	mustExec(t, su, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, su, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	mustExec(t, su, "INSERT INTO "+ks+".kv (k, v) VALUES (1, 'one')")
	mustExec(t, su, "GRANT SELECT ON KEYSPACE "+ks+" TO "+role)

	t.Run("role in plain CQL", func(t *testing.T) {
		plain := &firstBytes{}
		s, err := native.Connect(ctxT(t), native.Config{
			Hosts:         sc.Hosts,
			Keyspace:      ks,
			Authenticator: &native.PasswordAuthenticator{Username: role, Password: "r3ader"},
			Dialer:        plain,
			Timeout:       30 * time.Second,
		})
		if err != nil {
			t.Fatalf("role %s: %v", role, err)
		}
		defer s.Close()
		for i, b := range plain.seen() {
			if b != 0x04 && b != 0x05 {
				t.Errorf("connection %d began with byte %#x, not a CQL frame", i+1, b)
			}
		}
		sel, err := s.Prepare(ctxT(t), "SELECT v FROM kv WHERE k = ?")
		if err != nil {
			t.Fatalf("prepare with SELECT permission: %v", err)
		}
		res, err := s.Execute(ctxT(t), sel.Bind(1))
		if err != nil {
			t.Fatalf("SELECT with SELECT permission: %v", err)
		}
		var v string
		if row, ok := res.First(); !ok || row.Scan(&v) != nil || v != "one" {
			t.Errorf("read %q (%d rows), want one", v, res.Len())
		}
		_, err = s.Execute(ctxT(t), native.Query("INSERT INTO kv (k, v) VALUES (2, 'two')"))
		var ue *native.UnauthorizedError
		if !errors.As(err, &ue) {
			t.Fatalf("INSERT without MODIFY: %v (%T), want an *UnauthorizedError", err, err)
		}
		if ue.Code != native.CodeUnauthorized || !strings.Contains(ue.Message, "has no MODIFY permission") || !strings.Contains(ue.Message, role) {
			t.Errorf("INSERT without MODIFY: code %v, message %q", ue.Code, ue.Message)
		}
	})

	t.Run("v5 with lz4 over TLS", func(t *testing.T) {
		// Protocol v5's checksummed segments, compressed, inside TLS records: a value over one
		// segment's 128 KiB payload travels in several.
		s, err := native.Connect(ctxT(t), native.Config{
			Hosts:           sc.Hosts,
			Keyspace:        ks,
			Authenticator:   &native.PasswordAuthenticator{Username: cqltest.SecureUser, Password: cqltest.SecurePassword},
			TLS:             sc.TLSConfig(),
			ProtocolVersion: 5,
			Compression:     "lz4",
			Timeout:         30 * time.Second,
		})
		if err != nil {
			t.Fatalf("v5, lz4, TLS: %v", err)
		}
		defer s.Close()
		if v := s.ProtocolVersion(); v != 5 {
			t.Fatalf("protocol version %d, want 5", v)
		}
		big := strings.Repeat("cqlbridge over TLS, v5 and lz4; ", 10000) // 320,000 bytes
		mustExec(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)", int32(3), big)
		res := mustExec(t, s, "SELECT v FROM kv WHERE k = ?", int32(3))
		var got string
		if row, ok := res.First(); !ok || row.Scan(&got) != nil || got != big {
			t.Errorf("read back %d bytes (%d rows), want the %d written", len(got), res.Len(), len(big))
		}
	})

	t.Run("wrong password", func(t *testing.T) {
		s, err := native.Connect(ctxT(t), native.Config{
			Hosts:         sc.Hosts,
			Authenticator: &native.PasswordAuthenticator{Username: role, Password: "not-it"},
			TLS:           sc.TLSConfig(),
		})
		if err == nil {
			s.Close()
			t.Fatal("connected with a wrong password")
		}
		var ae *native.AuthenticationError
		if !errors.As(err, &ae) {
			t.Fatalf("wrong password: %v (%T), want an *AuthenticationError", err, err)
		}
		if want := "Provided username " + role + " and/or password are incorrect"; !strings.Contains(ae.Message, want) {
			t.Errorf("wrong password: message %q, want it to contain %q", ae.Message, want)
		}
		// Every node is tried, and each refusal names the node once.
		if n := strings.Count(err.Error(), "and/or password are incorrect"); n != len(sc.Hosts) {
			t.Errorf("wrong password: the server's message appears %d times in %q, want once per node (%d)", n, err, len(sc.Hosts))
		}
		t.Logf("wrong password: %v", err)
	})

	t.Run("no credentials", func(t *testing.T) {
		s, err := native.Connect(ctxT(t), native.Config{Hosts: sc.Hosts})
		if err == nil {
			s.Close()
			t.Fatal("connected without credentials to nodes that require them")
		}
		if !strings.Contains(err.Error(), "org.apache.cassandra.auth.PasswordAuthenticator") {
			t.Errorf("no credentials: %v, want the error to name the server's authenticator", err)
		}
		t.Logf("no credentials: %v", err)
	})

	t.Run("no client certificate", func(t *testing.T) {
		// The nodes require one. At TLS 1.3 the client's handshake completes before the node
		// checks: its refusal is an alert that arrives instead of the first answer.
		start := time.Now()
		s, err := native.Connect(ctxT(t), native.Config{
			Hosts:         sc.Hosts,
			Authenticator: &native.PasswordAuthenticator{Username: cqltest.SecureUser, Password: cqltest.SecurePassword},
			TLS:           &tls.Config{RootCAs: sc.Roots},
			Timeout:       30 * time.Second,
		})
		if err == nil {
			s.Close()
			t.Fatal("connected over TLS without the client certificate the nodes require")
		}
		if !strings.Contains(err.Error(), "certificate") {
			t.Errorf("no client certificate: %v, want the error to say the node wanted a certificate", err)
		}
		t.Logf("refused after %v: %v", time.Since(start).Round(time.Millisecond), err)
	})

	t.Run("untrusted certificate", func(t *testing.T) {
		start := time.Now()
		s, err := native.Connect(ctxT(t), native.Config{
			Hosts:         sc.Hosts,
			Authenticator: &native.PasswordAuthenticator{Username: cqltest.SecureUser, Password: cqltest.SecurePassword},
			TLS:           &tls.Config{RootCAs: x509.NewCertPool(), Certificates: []tls.Certificate{sc.ClientCert}},
		})
		if err == nil {
			s.Close()
			t.Fatal("connected over TLS to a node whose certificate no root signs")
		}
		var ua x509.UnknownAuthorityError
		if !errors.As(err, &ua) {
			t.Errorf("untrusted certificate: %v (%T), want an x509.UnknownAuthorityError in the chain", err, err)
		}
		t.Logf("refused after %v: %v", time.Since(start).Round(time.Millisecond), err)
	})
}
