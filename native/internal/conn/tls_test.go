package conn

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// selfSigned returns a server certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "cqlbridge test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
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
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		b := proto.AppendInt(nil, int32(proto.ResultSetKeyspace))
		b, _ = proto.AppendString(b, "over_tls")
		_ = fc.send(h.Stream, proto.OpResult, b)
	}, func(s *fakeServer) { s.tls = &tls.Config{Certificates: []tls.Certificate{cert}} })

	c := dialFake(t, s, Config{TLS: &tls.Config{RootCAs: pool}, Compression: "lz4"})
	resp, err := c.Do(context.Background(), query("USE over_tls"))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := resp.Msg.(*proto.SetKeyspaceResult); !ok || m.Keyspace != "over_tls" {
		t.Errorf("Msg = %#v", resp.Msg)
	}
	resp.Release()

	// An untrusted certificate fails at the TLS step.
	_, err = Dial(context.Background(), s.addr(), Config{HeartbeatInterval: -1, TLS: &tls.Config{}})
	var de *DialError
	if !errors.As(err, &de) || de.Step != "tls handshake" {
		t.Fatalf("Dial with an untrusted certificate: err = %v, want a DialError at step tls handshake", err)
	}
}
