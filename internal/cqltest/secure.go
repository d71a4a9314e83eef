package cqltest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"testing"
)

// EnvSecureHosts names the nodes of a cluster started with `scripts/cassandra up --secure`
// (PasswordAuthenticator, CassandraAuthorizer and TLS on the CQL port, plain CQL accepted
// too), in CQL_HOSTS's form. It is separate from CQL_HOSTS, whose nodes take no credentials.
const EnvSecureHosts = "CQL_SECURE_HOSTS"

// EnvTLSCA names the PEM file of the certificates the secure nodes present, which
// `scripts/cassandra up --secure` prints as CQL_TLS_CA=FILE.
const EnvTLSCA = "CQL_TLS_CA"

// The secure nodes' superuser: Cassandra's default role, which `scripts/cassandra up --secure`
// waits for.
const (
	SecureUser     = "cassandra"
	SecurePassword = "cassandra"
)

// SecureCluster is what tests need to reach the secure nodes: their addresses (host:port),
// the certificates they present and the file those came from.
type SecureCluster struct {
	Hosts  []string
	CAFile string
	Roots  *x509.CertPool
}

// TLSConfig returns a TLS configuration that trusts the nodes' certificates (which name
// their IP addresses) and verifies them.
func (c SecureCluster) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: c.Roots, MinVersion: tls.VersionTLS12}
}

// Secure returns the secure nodes from CQL_SECURE_HOSTS and CQL_TLS_CA. It skips the test,
// saying how to start them, when CQL_SECURE_HOSTS is unset, and fails it when the CA file is
// missing or holds no certificate.
func Secure(tb testing.TB) SecureCluster {
	tb.Helper()
	c, err := SecureFromEnv()
	if err != nil {
		tb.Fatal(err)
	}
	if len(c.Hosts) == 0 {
		tb.Skipf("%s is unset: run `scripts/cassandra up --secure` (on a machine without a plain node on 127.0.0.1) and set %s and %s from what it prints; `make test` does (the secure step)", EnvSecureHosts, EnvSecureHosts, EnvTLSCA)
	}
	return c
}

// SecureFromEnv reads CQL_SECURE_HOSTS and CQL_TLS_CA. With CQL_SECURE_HOSTS unset it returns a
// SecureCluster without hosts and no error.
func SecureFromEnv() (SecureCluster, error) {
	c := SecureCluster{Hosts: ParseHosts(os.Getenv(EnvSecureHosts))}
	if len(c.Hosts) == 0 {
		return c, nil
	}
	c.CAFile = os.Getenv(EnvTLSCA)
	if c.CAFile == "" {
		return c, fmt.Errorf("%s is set but %s is not: set it to the CQL_TLS_CA file `scripts/cassandra up --secure` printed", EnvSecureHosts, EnvTLSCA)
	}
	pem, err := os.ReadFile(c.CAFile)
	if err != nil {
		return c, fmt.Errorf("%s: %w", EnvTLSCA, err)
	}
	c.Roots = x509.NewCertPool()
	if !c.Roots.AppendCertsFromPEM(pem) {
		return c, fmt.Errorf("%s: %s holds no PEM certificate", EnvTLSCA, c.CAFile)
	}
	return c, nil
}
