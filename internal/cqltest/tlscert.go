package cqltest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"
)

// CA is a throwaway certificate authority for TLS tests: an ECDSA P-256 key and a self-signed
// CA certificate, valid from an hour ago for a day.
type CA struct {
	Cert *x509.Certificate // the CA certificate (Cert.Raw is its DER encoding)
	Key  *ecdsa.PrivateKey // the CA's key
	Pool *x509.CertPool    // a pool that trusts Cert and nothing else
}

// NewCA creates a CA whose certificate has the common name name; it fails tb when it cannot.
func NewCA(tb testing.TB, name string) *CA {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(tb),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("cqltest: CA certificate: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatalf("cqltest: CA certificate: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{Cert: cert, Key: key, Pool: pool}
}

// Issue returns a certificate signed by ca, with a new ECDSA P-256 key, for the IP address ip
// (its only subject alternative name) and the extended key usage usage (ServerAuth for a
// server, ClientAuth for a client). It fails tb when it cannot.
func (ca *CA) Issue(tb testing.TB, ip string, usage x509.ExtKeyUsage) tls.Certificate {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: serial(tb),
		Subject:      pkix.Name{CommonName: "cqltest " + ip},
		IPAddresses:  []net.IP{net.ParseIP(ip)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		tb.Fatalf("cqltest: certificate for %s: %v", ip, err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// ServerCert returns a server certificate for 127.0.0.1 from a new CA and a pool that trusts
// that CA.
func ServerCert(tb testing.TB) (tls.Certificate, *x509.CertPool) {
	tb.Helper()
	ca := NewCA(tb, "cqltest CA")
	return ca.Issue(tb, "127.0.0.1", x509.ExtKeyUsageServerAuth), ca.Pool
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("cqltest: key: %v", err)
	}
	return key
}

// serial is a random 62-bit certificate serial number.
func serial(tb testing.TB) *big.Int {
	tb.Helper()
	n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		tb.Fatalf("cqltest: serial number: %v", err)
	}
	return n.Add(n, big.NewInt(1))
}
