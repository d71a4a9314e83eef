package native_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// tlsProxy terminates TLS with a self-signed certificate for 127.0.0.1 and forwards the
// plaintext to target. It returns its address and a pool trusting its certificate.
func tlsProxy(t *testing.T, target string) (string, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "cqlbridge test"},
		IPAddresses:  []net.IP{net.IP(netip.MustParseAddr("127.0.0.1").AsSlice())},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(up, c); up.Close() }()
			go func() { defer wg.Done(); _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String(), pool
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
}
