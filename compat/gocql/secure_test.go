package gocql

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// secureLogin is how a secure-cluster session is opened: credentials ("" for none) and, when
// caFile or config is set, SslOptions with CaPath caFile, CertPath and KeyPath certFile and
// keyFile, Config config and EnableHostVerification unless noVerify.
type secureLogin struct {
	user, password    string
	keyspace          string
	caFile            string
	certFile, keyFile string
	config            *tls.Config
	noVerify          bool
}

// secureSession is the part of a session the secure trace uses, for gocql and for the shim.
type secureSession interface {
	scan(stmt string, values []any, dest ...any) error
	exec(stmt string, values ...any) error
	close()
}

type legacySecure struct{ s *gocqlv1.Session }

func (l legacySecure) scan(stmt string, values []any, dest ...any) error {
	return l.s.Query(stmt, values...).Scan(dest...)
}
func (l legacySecure) exec(stmt string, values ...any) error {
	return l.s.Query(stmt, values...).Exec()
}
func (l legacySecure) close() { l.s.Close() }

type shimSecure struct{ s *Session }

func (c shimSecure) scan(stmt string, values []any, dest ...any) error {
	return c.s.Query(stmt, values...).Scan(dest...)
}
func (c shimSecure) exec(stmt string, values ...any) error { return c.s.Query(stmt, values...).Exec() }
func (c shimSecure) close()                                { c.s.Close() }

func legacySecureConnect(hosts []string, l secureLogin) (secureSession, error) {
	cfg := gocqlv1.NewCluster(hosts...)
	cfg.Keyspace = l.keyspace
	cfg.NumConns = 1
	cfg.Timeout, cfg.ConnectTimeout = 20*time.Second, 10*time.Second
	if l.user != "" {
		cfg.Authenticator = gocqlv1.PasswordAuthenticator{Username: l.user, Password: l.password}
	}
	if l.caFile != "" || l.config != nil {
		cfg.SslOpts = &gocqlv1.SslOptions{CaPath: l.caFile, CertPath: l.certFile, KeyPath: l.keyFile, Config: l.config, EnableHostVerification: !l.noVerify}
	}
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, err
	}
	return legacySecure{s}, nil
}

func shimSecureConnect(hosts []string, l secureLogin) (secureSession, error) {
	cfg := NewCluster(hosts...)
	cfg.Keyspace = l.keyspace
	cfg.NumConns = 1
	cfg.Timeout, cfg.ConnectTimeout = 20*time.Second, 10*time.Second
	if l.user != "" {
		cfg.Authenticator = PasswordAuthenticator{Username: l.user, Password: l.password}
	}
	if l.caFile != "" || l.config != nil {
		cfg.SslOpts = &SslOptions{CaPath: l.caFile, CertPath: l.certFile, KeyPath: l.keyFile, Config: l.config, EnableHostVerification: !l.noVerify}
	}
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, err
	}
	return shimSecure{s}, nil
}

// requestFailure is what an application reads of a failed request: gocql's RequestError
// interface (the server's code and message) when errors.As finds it, whether errors.As finds a
// *tls.CertificateVerificationError, and the error's text.
type requestFailure struct {
	Code       int
	Message    string
	TLSFailure bool
	Text       string
}

func failure(err error) *requestFailure {
	if err == nil {
		return nil
	}
	f := &requestFailure{Text: err.Error()}
	var cve *tls.CertificateVerificationError
	f.TLSFailure = errors.As(err, &cve)
	var legacy gocqlv1.RequestError
	var shim RequestError
	switch {
	case errors.As(err, &legacy):
		f.Code, f.Message = legacy.Code(), legacy.Message()
	case errors.As(err, &shim):
		f.Code, f.Message = shim.Code(), shim.Message()
	}
	return f
}

// secureTrace is what one library observes on the secure cluster.
type secureTrace struct {
	SuperuserOverTLS   string // release_version, or the error
	RoleRead           string // the role's SELECT, or the error
	RoleWrite          *requestFailure
	WrongPassword      *requestFailure
	NoCredentials      *requestFailure
	NoClientCert       *requestFailure
	UntrustedCA        *requestFailure
	RoleReadAfterError string
	RoleReadRevoked    *requestFailure
	RoleReadGranted    string
	// SslOptions' combinations of Config and EnableHostVerification (gocql's setupTLSConfig):
	// the untrusted CA without host verification (connects: nothing is verified), a Config
	// trusting the nodes without EnableHostVerification (verified, with the host as server
	// name), and a Config that skips verification with EnableHostVerification (verified).
	UntrustedCANoVerify *requestFailure
	ConfigRoots         *requestFailure
	ConfigSkipButVerify *requestFailure
}

func runSecureTrace(sc cqltest.SecureCluster, otherCA, ks, role string, admin func(cql string) error, connect func([]string, secureLogin) (secureSession, error)) secureTrace {
	var tr secureTrace
	hosts := sc.Hosts
	superTLS := secureLogin{user: cqltest.SecureUser, password: cqltest.SecurePassword, caFile: sc.CAFile, certFile: sc.CertFile, keyFile: sc.KeyFile}
	attempt := func(l secureLogin) *requestFailure {
		s, err := connect(hosts, l)
		if err == nil {
			s.close()
			return &requestFailure{Text: "connected"}
		}
		return failure(err)
	}
	if s, err := connect(hosts, superTLS); err != nil {
		tr.SuperuserOverTLS = "error: " + err.Error()
	} else {
		var v string
		if err := s.scan("SELECT release_version FROM system.local", nil, &v); err != nil {
			tr.SuperuserOverTLS = "error: " + err.Error()
		} else if v != "" {
			tr.SuperuserOverTLS = "a version"
		}
		s.close()
	}
	if s, err := connect(hosts, secureLogin{user: role, password: "r3ader", keyspace: ks}); err != nil {
		tr.RoleRead = "error: " + err.Error()
	} else {
		var v string
		if err := s.scan("SELECT v FROM kv WHERE k = ?", []any{1}, &v); err != nil {
			tr.RoleRead = "error: " + err.Error()
		} else {
			tr.RoleRead = v
		}
		tr.RoleWrite = failure(s.exec("INSERT INTO kv (k, v) VALUES (?, ?)", 2, "two"))
		if err := s.scan("SELECT v FROM kv WHERE k = ?", []any{1}, &v); err != nil {
			tr.RoleReadAfterError = "error: " + err.Error()
		} else {
			tr.RoleReadAfterError = v
		}
		// The read's statement is prepared: a revoked permission fails its EXECUTE, and a
		// granted one lets it through again.
		if err := admin("REVOKE SELECT ON KEYSPACE " + ks + " FROM " + role); err != nil {
			tr.RoleReadRevoked = &requestFailure{Text: "REVOKE: " + err.Error()}
		} else {
			tr.RoleReadRevoked = failure(s.scan("SELECT v FROM kv WHERE k = ?", []any{1}, &v))
		}
		v = ""
		if err := admin("GRANT SELECT ON KEYSPACE " + ks + " TO " + role); err != nil {
			tr.RoleReadGranted = "GRANT: " + err.Error()
		} else if err := s.scan("SELECT v FROM kv WHERE k = ?", []any{1}, &v); err != nil {
			tr.RoleReadGranted = "error: " + err.Error()
		} else {
			tr.RoleReadGranted = v
		}
		s.close()
	}
	wrong := superTLS
	wrong.user, wrong.password = role, "not-it"
	tr.WrongPassword = attempt(wrong)
	tr.NoCredentials = attempt(secureLogin{})
	noCert := superTLS
	noCert.certFile, noCert.keyFile = "", ""
	tr.NoClientCert = attempt(noCert)
	untrusted := superTLS
	untrusted.caFile = otherCA
	tr.UntrustedCA = attempt(untrusted)
	untrusted.noVerify = true
	tr.UntrustedCANoVerify = attempt(untrusted)
	tr.ConfigRoots = attempt(secureLogin{user: cqltest.SecureUser, password: cqltest.SecurePassword, noVerify: true,
		config: &tls.Config{RootCAs: sc.Roots, Certificates: []tls.Certificate{sc.ClientCert}}})
	tr.ConfigSkipButVerify = attempt(secureLogin{user: cqltest.SecureUser, password: cqltest.SecurePassword,
		config: &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{sc.ClientCert}}})
	return tr
}

// TestSecureClusterLikeGocql runs the same steps with gocql v1.7.0 and with the shim against
// real Cassandra nodes that require a password and serve TLS (scripts/cassandra up --secure;
// the secure step of scripts/test), and compares what each observes: a superuser session over
// verified TLS (SslOptions with CaPath, host verification and a client certificate), a role's
// session in plain CQL whose write without MODIFY permission fails, and sessions refused for a
// wrong password, no credentials, no client certificate and a server certificate no trusted
// root signs.
func TestSecureClusterLikeGocql(t *testing.T) {
	sc := cqltest.Secure(t)
	other := filepath.Join(t.TempDir(), "other-ca.pem")
	ca := cqltest.NewCA(t, "not the cluster's CA")
	if err := os.WriteFile(other, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	su, err := shimSecureConnect(sc.Hosts, secureLogin{user: cqltest.SecureUser, password: cqltest.SecurePassword, caFile: sc.CAFile, certFile: sc.CertFile, keyFile: sc.KeyFile})
	if err != nil {
		t.Fatalf("superuser session: %v", err)
	}
	ks := cqltest.KeyspaceName(t)
	role := ks + "_reader"
	t.Cleanup(func() {
		for _, cql := range []string{"DROP ROLE IF EXISTS " + role, "DROP KEYSPACE IF EXISTS " + ks} {
			if err := su.exec(cql); err != nil {
				t.Logf("%s: %v", cql, err)
			}
		}
		su.close()
	})
	for _, cql := range []string{
		"CREATE ROLE " + role + " WITH PASSWORD = 'r3ader' AND LOGIN = true",
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v text)",
		"INSERT INTO " + ks + ".kv (k, v) VALUES (1, 'one')",
		"GRANT SELECT ON KEYSPACE " + ks + " TO " + role,
	} {
		if err := su.exec(cql); err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
	}

	legacy := runSecureTrace(sc, other, ks, role, func(cql string) error { return su.exec(cql) }, legacySecureConnect)
	shim := runSecureTrace(sc, other, ks, role, func(cql string) error { return su.exec(cql) }, shimSecureConnect)
	for _, f := range []*requestFailure{legacy.WrongPassword, legacy.NoCredentials, legacy.NoClientCert, legacy.UntrustedCA, shim.WrongPassword, shim.NoCredentials, shim.NoClientCert, shim.UntrustedCA} {
		if f != nil {
			t.Logf("%+v", *f)
		}
	}
	// docs/deviations.md G68: CreateSession's error keeps its cause reachable with errors.As
	// (the server's refusal of the password, crypto/tls's verification error), where gocql's
	// is flat; the texts are the same. Pinned on both sides, then set aside for the comparison.
	if w := legacy.WrongPassword; w == nil || w.Code != 0 || w.Message != "" {
		t.Errorf("gocql: a wrong password's error %+v: gocql now exposes the server's error (G68 is stale)", w)
	}
	if w := shim.WrongPassword; w == nil || w.Code != ErrCodeCredentials || !strings.Contains(w.Message, "and/or password are incorrect") {
		t.Errorf("shim: a wrong password's error %+v, want the server's code %#x and message (G68)", w, ErrCodeCredentials)
	} else if legacy.WrongPassword != nil {
		legacy.WrongPassword.Code, legacy.WrongPassword.Message = w.Code, w.Message
	}
	for _, p := range []struct {
		name   string
		legacy *requestFailure
		shim   *requestFailure
	}{
		{"an untrusted certificate", legacy.UntrustedCA, shim.UntrustedCA},
		{"a Config that skips verification, with EnableHostVerification", legacy.ConfigSkipButVerify, shim.ConfigSkipButVerify},
	} {
		if p.legacy == nil || p.legacy.TLSFailure {
			t.Errorf("gocql: %s: error %+v: gocql now exposes crypto/tls's error (G68 is stale)", p.name, p.legacy)
		}
		if p.shim == nil || !p.shim.TLSFailure {
			t.Errorf("shim: %s: error %+v, want a *tls.CertificateVerificationError within (G68)", p.name, p.shim)
		} else if p.legacy != nil {
			p.legacy.TLSFailure = true
		}
	}
	// A node that wants a client certificate refuses the connection with a TLS alert after the
	// handshake, which both of gocql v1.7.0's startup goroutines can see: the connection's
	// reader, which closes the connection and so ends the startup's context, and the OPTIONS
	// exchange, which returns the alert. setupConn then picks between its two ready cases at
	// random: the alert ("remote error: tls: certificate required") or, for the ended context,
	// "gocql: no response to connection startup within timeout" at once (seen in one CI run of
	// many). The shim reports the alert every time (docs/deviations.md G68); gocql's other
	// outcome is set aside for the comparison.
	const startupRace = "gocql: no response to connection startup within timeout"
	if l, sh := legacy.NoClientCert, shim.NoClientCert; l != nil && sh != nil && strings.HasSuffix(l.Text, startupRace) {
		if !strings.Contains(sh.Text, "tls: certificate required") {
			t.Errorf("shim: no client certificate: %+v, want the node's TLS alert", sh)
		}
		t.Logf("gocql reported its startup race (%q) for a missing client certificate", l.Text)
		legacy.NoClientCert = sh
	}
	if diff := cmp.Diff(legacy, shim); diff != "" {
		t.Errorf("secure cluster: gocql (-) and the shim (+) differ:\n%s", diff)
	}
	// The comparison alone would pass if both failed alike: pin what must have happened.
	if shim.SuperuserOverTLS != "a version" || shim.RoleRead != "one" || shim.RoleReadAfterError != "one" {
		t.Errorf("shim: superuser over TLS %q, role's read %q and %q", shim.SuperuserOverTLS, shim.RoleRead, shim.RoleReadAfterError)
	}
	if shim.RoleWrite == nil || shim.RoleWrite.Code != ErrCodeUnauthorized {
		t.Errorf("shim: the role's write without MODIFY gave %+v, want code %#x", shim.RoleWrite, ErrCodeUnauthorized)
	}
	if shim.RoleReadRevoked == nil || shim.RoleReadRevoked.Code != ErrCodeUnauthorized || shim.RoleReadGranted != "one" {
		t.Errorf("shim: the role's read after REVOKE gave %+v, after GRANT %q; want code %#x, then one", shim.RoleReadRevoked, shim.RoleReadGranted, ErrCodeUnauthorized)
	}
	for name, f := range map[string]*requestFailure{"wrong password": shim.WrongPassword, "no credentials": shim.NoCredentials, "no client certificate": shim.NoClientCert, "untrusted CA": shim.UntrustedCA, "a Config that skips verification, with EnableHostVerification": shim.ConfigSkipButVerify} {
		if f == nil || f.Text == "connected" {
			t.Errorf("shim: %s: connected", name)
		}
	}
	for name, f := range map[string]*requestFailure{"untrusted CA without host verification": shim.UntrustedCANoVerify, "a Config trusting the nodes": shim.ConfigRoots} {
		if f == nil || f.Text != "connected" {
			t.Errorf("shim: %s: %+v, want connected", name, f)
		}
	}
}
