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
