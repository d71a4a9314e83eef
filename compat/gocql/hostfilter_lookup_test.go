package gocql_test

import (
	"fmt"
	"net"
	"testing"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// TestLookupIPLikeGocql compares the exported LookupIP with gocql v1.7.0's: a name that does
// not resolve (the reserved .invalid domain) fails with the resolver's own *net.DNSError, its
// text unchanged, and a name that does gives the same addresses.
func TestLookupIPLikeGocql(t *testing.T) {
	describe := func(ips []net.IP, err error) string {
		_, isDNS := err.(*net.DNSError)
		return fmt.Sprintf("%v %T dns=%v %v", ips, err, isDNS, err)
	}
	for _, name := range []string{"nonexistent.invalid", "localhost", "127.0.0.1"} {
		legacy := describe(gocqlv1.LookupIP(name))
		shim := describe(gocql.LookupIP(name))
		if diff := cmp.Diff(legacy, shim); diff != "" {
			t.Errorf("LookupIP(%q) (-gocql +shim):\n%s", name, diff)
		}
	}
}

// TestWhiteListHostFilterLikeGocql builds WhiteListHostFilter from the same hosts with both
// drivers and compares which addresses each filter accepts. Where gocql v1.7.0 panics (no host
// resolves: none given, or only names the resolver does not know; or a port does not parse),
// the shim's filter accepts no address and CreateSession with it fails with gocql's panic
// message (docs/deviations.md G72); the test checks that gocql still panics there.
func TestWhiteListHostFilterLikeGocql(t *testing.T) {
	addrs := []string{"127.0.0.1", "::1", "10.0.0.1", "10.0.0.2", "10.0.0.3"}
	accepted := func(accept func(ip net.IP) bool) (out string) {
		for _, a := range addrs {
			out += fmt.Sprintf("%s=%v ", a, accept(net.ParseIP(a)))
		}
		return out
	}
	for _, hosts := range [][]string{
		nil,
		{"nonexistent.invalid"},
		{"127.0.0.1:x"},
		{"10.0.0.1", "nonexistent.invalid"},
		{"10.0.0.1:9042", "10.0.0.3"},
		{"localhost"},
		{"[::1]:9042"},
	} {
		var legacy string
		panicked := func() (msg any) {
			defer func() { msg = recover() }()
			f := gocqlv1.WhiteListHostFilter(hosts...)
			legacy = accepted(func(ip net.IP) bool { return f.Accept((&gocqlv1.HostInfo{}).SetConnectAddress(ip)) })
			return nil
		}()
		f := gocql.WhiteListHostFilter(hosts...)
		shim := accepted(func(ip net.IP) bool { return f.Accept((&gocql.HostInfo{}).SetConnectAddress(ip)) })
		if panicked == nil {
			if diff := cmp.Diff(legacy, shim); diff != "" {
				t.Errorf("WhiteListHostFilter(%q) accepts (-gocql +shim):\n%s", hosts, diff)
			}
			continue
		}
		if none := accepted(func(net.IP) bool { return false }); shim != none {
			t.Errorf("WhiteListHostFilter(%q), where gocql panics (%v): the shim's filter accepts %s", hosts, panicked, shim)
		}
		// CreateSession refuses the filter before it dials: no node is needed.
		cluster := gocql.NewCluster("127.0.0.1")
		cluster.HostFilter = f
		s, err := cluster.CreateSession()
		if err == nil {
			s.Close()
			t.Errorf("WhiteListHostFilter(%q): CreateSession with the filter gocql panics building succeeded", hosts)
			continue
		}
		if want := fmt.Sprintf("gocql: unable to create session: %v", panicked); err.Error() != want {
			t.Errorf("WhiteListHostFilter(%q): CreateSession failed with %q, want %q", hosts, err, want)
		}
	}
}
