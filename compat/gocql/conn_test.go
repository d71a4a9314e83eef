package gocql

import (
	"bytes"
	"testing"
)

func TestPasswordAuthenticatorThroughTheNativeExchange(t *testing.T) {
	cfg := NewCluster("127.0.0.1")
	cfg.Authenticator = PasswordAuthenticator{Username: "u", Password: "p"}
	x, first, err := authAdapter{cfg: cfg}.Start("org.apache.cassandra.auth.PasswordAuthenticator")
	if err != nil || !bytes.Equal(first, []byte("\x00u\x00p")) {
		t.Fatalf("initial token %q, %v", first, err)
	}
	if err := x.Success(nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := (authAdapter{cfg: cfg}).Start("com.example.UnknownAuthenticator"); err == nil {
		t.Fatal("an unknown server authenticator class was accepted")
	}
	cfg.Authenticator = PasswordAuthenticator{Username: "u", Password: "p", AllowedAuthenticators: []string{"x.Custom"}}
	if _, tok, err := (authAdapter{cfg: cfg}).Start("x.Custom"); err != nil || len(tok) == 0 {
		t.Fatalf("allowed custom class: %q, %v", tok, err)
	}
	cfg.Authenticator = nil
	if _, _, err := (authAdapter{cfg: cfg}).Start("org.apache.cassandra.auth.PasswordAuthenticator"); err == nil {
		t.Fatal("authentication without an Authenticator did not fail")
	}
}

// stepAuth answers two rounds, handing over to its successor after the first.
type stepAuth struct{ round int }

func (a *stepAuth) Challenge(req []byte) ([]byte, Authenticator, error) {
	return []byte{byte(a.round)}, &stepAuth{round: a.round + 1}, nil
}

func (a *stepAuth) Success([]byte) error { return nil }

func TestAuthenticatorHandOver(t *testing.T) {
	cfg := NewCluster("127.0.0.1")
	cfg.AuthProvider = func(*HostInfo) (Authenticator, error) { return &stepAuth{}, nil }
	x, first, err := authAdapter{cfg: cfg}.Start("any")
	if err != nil || first[0] != 0 {
		t.Fatalf("first %v, %v", first, err)
	}
	next, err := x.Challenge([]byte("challenge"))
	if err != nil || next[0] != 1 {
		t.Fatalf("second round answered %v, %v; want the successor's answer", next, err)
	}
}

func TestCompressorsAndTLSConfig(t *testing.T) {
	cfg := NewCluster("127.0.0.1")
	cfg.Compressor = SnappyCompressor{}
	n, err := nativeConfig(cfg)
	if err != nil || n.Compression != "snappy" {
		t.Fatalf("snappy: %q, %v", n.Compression, err)
	}
	enc, _ := SnappyCompressor{}.Encode([]byte("hello hello hello"))
	if dec, err := (SnappyCompressor{}).Decode(enc); err != nil || string(dec) != "hello hello hello" {
		t.Fatalf("snappy round trip: %q, %v", dec, err)
	}
	cfg.Compressor = fakeCompressor{}
	if _, err := nativeConfig(cfg); err == nil {
		t.Fatal("an unsupported compressor was accepted")
	}
	cfg.Compressor = nil
	cfg.SslOpts = &SslOptions{EnableHostVerification: true}
	n, err = nativeConfig(cfg)
	if err != nil || n.TLS == nil || n.TLS.InsecureSkipVerify {
		t.Fatalf("TLS with host verification: %+v, %v", n.TLS, err)
	}
	cfg.SslOpts = &SslOptions{CaPath: "/nonexistent/ca.pem"}
	if _, err := nativeConfig(cfg); err == nil {
		t.Fatal("a missing CA file was accepted")
	}
}

type fakeCompressor struct{}

func (fakeCompressor) Name() string                    { return "zstd" }
func (fakeCompressor) Encode(b []byte) ([]byte, error) { return b, nil }
func (fakeCompressor) Decode(b []byte) ([]byte, error) { return b, nil }
