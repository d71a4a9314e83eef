package native_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// tlsProxy terminates TLS with a certificate for 127.0.0.1 and forwards the plaintext to
// target. It returns its address and a pool trusting its certificate.
func tlsProxy(t *testing.T, target string) (string, *x509.CertPool) {
	t.Helper()
	cert, pool := cqltest.ServerCert(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	return cqltest.Serve(t, ln, func(c net.Conn) { cqltest.Relay(c, target) }), pool
}

func TestTLS(t *testing.T) {
	ks, hosts := testKeyspace(t, 1)
	addr, roots := tlsProxy(t, hosts[0])
	s, err := native.Connect(ctxT(t), native.Config{Hosts: []string{addr}, Keyspace: ks, DisablePeerDiscovery: true,
		TLS: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatalf("Connect over TLS: %v", err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)", int32(1), "secret")
	if v, err := native.ScanOne[string](mustExec(t, s, "SELECT v FROM kv WHERE k = 1")); err != nil || v != "secret" {
		t.Fatalf("over TLS: %q, %v", v, err)
	}
	// A client that does not trust the certificate is refused.
	_, err = native.Connect(ctxT(t), native.Config{Hosts: []string{addr}, DisablePeerDiscovery: true, TLS: &tls.Config{MinVersion: tls.VersionTLS12}})
	var uae x509.UnknownAuthorityError
	if err == nil || !errors.As(err, &uae) {
		t.Errorf("untrusted certificate: %v", err)
	}
	// TLSServerName names the server to verify (the certificate is for 127.0.0.1 only), and
	// an empty name leaves it to the address.
	var mu sync.Mutex
	var got []native.Host
	named := func(name string) native.Config {
		return native.Config{Hosts: []string{addr}, DisablePeerDiscovery: true,
			TLS:           &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
			TLSServerName: func(h native.Host) string { mu.Lock(); got = append(got, h); mu.Unlock(); return name }}
	}
	_, err = native.Connect(ctxT(t), named("db.example"))
	var hne x509.HostnameError
	if err == nil || !errors.As(err, &hne) || hne.Host != "db.example" {
		t.Errorf("TLSServerName db.example, a certificate for 127.0.0.1: %v", err)
	}
	mu.Lock()
	if len(got) == 0 || got[0].Addr != addr {
		t.Errorf("TLSServerName got %v, want the contact point %s", got, addr)
	}
	mu.Unlock()
	s2, err := native.Connect(ctxT(t), named(""))
	if err != nil {
		t.Fatalf("TLSServerName empty: %v", err)
	}
	s2.Close()
}
