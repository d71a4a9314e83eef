package cqltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// EnvHosts is the environment variable that names the servers integration tests run against:
// comma-separated host or host:port entries (port 9042 when omitted).
const EnvHosts = "CQL_HOSTS"

// DefaultPort is the CQL native port used when a host in CQL_HOSTS has no port.
const DefaultPort = "9042"

// Hosts returns the contact points from CQL_HOSTS as host:port strings. When CQL_HOSTS is unset
// it returns the address of an embedded cqlsim server shared by the whole test binary (see
// EmbeddedHosts); only when that cannot start does it skip the test, with a message saying how to
// provide a server.
func Hosts(tb testing.TB) []string {
	tb.Helper()
	hosts := HostsFromEnv()
	if len(hosts) == 0 {
		var err error
		if hosts, err = EmbeddedHosts(); err != nil {
			tb.Skipf("%s is unset and the embedded cqlsim is unavailable (%v): run `make test` (starts Apache Cassandra) or set %s=127.0.0.1", EnvHosts, err, EnvHosts)
		}
	}
	return hosts
}

// HostsFromEnv parses CQL_HOSTS into host:port strings; it returns nil when the variable is unset
// or empty.
func HostsFromEnv() []string {
	return ParseHosts(os.Getenv(EnvHosts))
}

// ParseHosts splits a comma-separated host list and adds the default port where none is given.
func ParseHosts(s string) []string {
	var out []string
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), DefaultPort)
		}
		out = append(out, h)
	}
	return out
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// EnvKeyspacePrefix is the environment variable that replaces the "t_" prefix of the keyspace
// names KeyspaceName returns (lower-case letters, digits and underscores), so that runs sharing
// one Cassandra node can tell their keyspaces apart.
const EnvKeyspacePrefix = "CQL_KEYSPACE_PREFIX"

// KeyspaceName returns a keyspace name unique to this test run, derived from the test's name:
// lower case, "t_" (or CQL_KEYSPACE_PREFIX) and at most 36 characters of the name and 9 of a
// random suffix, safe to use unquoted in CQL.
func KeyspaceName(tb testing.TB) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	base := unsafeChars.ReplaceAllString(strings.ToLower(tb.Name()), "_")
	base = strings.Trim(base, "_")
	if len(base) > 36 {
		base = base[:36]
	}
	prefix := "t_"
	if p := unsafeChars.ReplaceAllString(strings.ToLower(os.Getenv(EnvKeyspacePrefix)), ""); p != "" {
		prefix = p
	}
	return prefix + base + "_" + hex.EncodeToString(b[:])
}

// Keyspace creates a uniquely named keyspace (SimpleStrategy, replication factor 1) on the
// servers from Hosts and drops it when the test ends. It returns the keyspace name and the hosts.
func Keyspace(tb testing.TB) (keyspace string, hosts []string) {
	tb.Helper()
	hosts = Hosts(tb)
	keyspace = KeyspaceName(tb)
	Exec(tb, hosts[0], fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", keyspace))
	tb.Cleanup(func() {
		if err := ExecErr(hosts[0], "DROP KEYSPACE IF EXISTS "+keyspace); err != nil {
			tb.Logf("cqltest: dropping keyspace %s: %v", keyspace, err)
		}
	})
	return keyspace, hosts
}

// Exec runs one CQL statement on host (host:port) at consistency ONE over a fresh connection and
// fails the test on error. It is meant for test set-up (DDL, fixtures), not for the code under test.
func Exec(tb testing.TB, host, cql string) {
	tb.Helper()
	if err := ExecErr(host, cql); err != nil {
		tb.Fatalf("cqltest: %v", err)
	}
}

// ExecErr is Exec returning the error instead of failing a test.
func ExecErr(host, cql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rawExec(ctx, host, cql); err != nil {
		return fmt.Errorf("executing %q on %s: %w", cql, host, err)
	}
	return nil
}
