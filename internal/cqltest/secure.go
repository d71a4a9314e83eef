package cqltest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"testing"
)

// EnvSecureHosts names the nodes of a cluster started with `scripts/cassandra up --secure`
// (PasswordAuthenticator, CassandraAuthorizer and TLS with client certificates on the CQL
// port, plain CQL accepted too), in CQL_HOSTS's form. It is separate from CQL_HOSTS, whose
// nodes take no credentials.
const EnvSecureHosts = "CQL_SECURE_HOSTS"

// The files `scripts/cassandra up --secure` prints, each as NAME=FILE: the PEM certificates
// the secure nodes present (EnvTLSCA), and a client certificate they accept with its key
// (EnvTLSCert, EnvTLSKey).
const (
	EnvTLSCA   = "CQL_TLS_CA"
	EnvTLSCert = "CQL_TLS_CERT"
	EnvTLSKey  = "CQL_TLS_KEY"
)

// The secure nodes' superuser: Cassandra's default role, which `scripts/cassandra up --secure`
// waits for.
const (
	SecureUser     = "cassandra"
	SecurePassword = "cassandra"
)

// SecureCluster is what tests need to reach the secure nodes: their addresses (host:port),
// the certificates they present (CAFile, Roots) and the client certificate they accept
// (CertFile and KeyFile, loaded in ClientCert).
type SecureCluster struct {
	Hosts             []string
	CAFile            string
	Roots             *x509.CertPool
	CertFile, KeyFile string
	ClientCert        tls.Certificate
}

// TLSConfig returns a TLS configuration that trusts the nodes' certificates (which name
// their IP addresses), verifies them and presents the client certificate.
func (c SecureCluster) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: c.Roots, Certificates: []tls.Certificate{c.ClientCert}, MinVersion: tls.VersionTLS12}
}

// Secure returns the secure nodes from CQL_SECURE_HOSTS, CQL_TLS_CA, CQL_TLS_CERT and
// CQL_TLS_KEY. It skips the test, saying how to start them, when CQL_SECURE_HOSTS is unset,
// and fails it when a file is missing or unreadable.
func Secure(tb testing.TB) SecureCluster {
	tb.Helper()
	c, err := SecureFromEnv()
	if err != nil {
		tb.Fatal(err)
	}
	if len(c.Hosts) == 0 {
		tb.Skipf("%s is unset: run `scripts/cassandra up --secure` (on a machine without a plain node on 127.0.0.1) and set %s, %s, %s and %s from what it prints; `make test` does (the secure step)", EnvSecureHosts, EnvSecureHosts, EnvTLSCA, EnvTLSCert, EnvTLSKey)
	}
	return c
}

// SecureFromEnv reads CQL_SECURE_HOSTS and the files named by CQL_TLS_CA, CQL_TLS_CERT and
// CQL_TLS_KEY. With CQL_SECURE_HOSTS unset it returns a SecureCluster without hosts and no
// error.
func SecureFromEnv() (SecureCluster, error) {
	c := SecureCluster{Hosts: ParseHosts(os.Getenv(EnvSecureHosts))}
	if len(c.Hosts) == 0 {
		return c, nil
	}
	c.CAFile, c.CertFile, c.KeyFile = os.Getenv(EnvTLSCA), os.Getenv(EnvTLSCert), os.Getenv(EnvTLSKey)
	for _, v := range []struct{ name, file string }{{EnvTLSCA, c.CAFile}, {EnvTLSCert, c.CertFile}, {EnvTLSKey, c.KeyFile}} {
		if v.file == "" {
			return c, fmt.Errorf("%s is set but %s is not: set it to the file `scripts/cassandra up --secure` printed", EnvSecureHosts, v.name)
		}
	}
	pem, err := os.ReadFile(c.CAFile)
	if err != nil {
		return c, fmt.Errorf("%s: %w", EnvTLSCA, err)
	}
	c.Roots = x509.NewCertPool()
	if !c.Roots.AppendCertsFromPEM(pem) {
		return c, fmt.Errorf("%s: %s holds no PEM certificate", EnvTLSCA, c.CAFile)
	}
	if c.ClientCert, err = tls.LoadX509KeyPair(c.CertFile, c.KeyFile); err != nil {
		return c, fmt.Errorf("%s and %s: %w", EnvTLSCert, EnvTLSKey, err)
	}
	return c, nil
}
