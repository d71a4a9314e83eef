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
// drivers and compares what each does: the panic gocql v1.7.0 raises when no host resolves
// (none given, or only names the resolver does not know) or a port does not parse, and
// otherwise which addresses the filter accepts.
func TestWhiteListHostFilterLikeGocql(t *testing.T) {
	addrs := []string{"127.0.0.1", "::1", "10.0.0.1", "10.0.0.2", "10.0.0.3"}
	run := func(build func() func(ip net.IP) bool) (out string) {
		defer func() {
			if r := recover(); r != nil {
				out = fmt.Sprintf("panic %T: %v", r, r)
			}
		}()
		accept := build()
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
		legacy := run(func() func(net.IP) bool {
			f := gocqlv1.WhiteListHostFilter(hosts...)
			return func(ip net.IP) bool { return f.Accept((&gocqlv1.HostInfo{}).SetConnectAddress(ip)) }
		})
		shim := run(func() func(net.IP) bool {
			f := gocql.WhiteListHostFilter(hosts...)
			return func(ip net.IP) bool { return f.Accept((&gocql.HostInfo{}).SetConnectAddress(ip)) }
		})
		if diff := cmp.Diff(legacy, shim); diff != "" {
			t.Errorf("WhiteListHostFilter(%q) (-gocql +shim):\n%s", hosts, diff)
		}
	}
}
