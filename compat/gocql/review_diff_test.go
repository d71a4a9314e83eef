package gocql_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// The tests in the review_*_test.go files run the same operations through gocql v1.7.0 and
// through compat against the same server (the embedded cqlsim, or CQL_HOSTS) and compare what
// an application sees with go-cmp.

// reviewKeyspace is the keyspace the differential tests create their tables in.
const reviewKeyspace = "review_compat"

// diffPair is a gocql v1.7.0 session and a compat session on the same server and keyspace.
type diffPair struct {
	legacy *gocqlv1.Session
	compat *gocql.Session
	hosts  []string
}

// newDiffPair connects both drivers to the test server in reviewKeyspace, after creating the
// tables given with the legacy driver (KS. is replaced by the keyspace name; each table is
// dropped first).
func newDiffPair(t *testing.T, ddl ...string) *diffPair {
	t.Helper()
	return newDiffPairOn(t, false, ddl...)
}

// newDiffPairOneNode is newDiffPair with both sessions held to the first test host (a
// HostFilter accepting only it), for scenarios whose outcome depends on the node that runs
// each statement, such as those of gocql's per-host prepared cache (docs/deviations.md G19).
// On a single node it is newDiffPair.
func newDiffPairOneNode(t *testing.T, ddl ...string) *diffPair {
	t.Helper()
	return newDiffPairOn(t, true, ddl...)
}

func newDiffPairOn(t *testing.T, oneNode bool, ddl ...string) *diffPair {
	t.Helper()
	hosts := cqltest.Hosts(t)
	admin := legacySession(t, hosts, "", nil)
	defer admin.Close()
	if err := admin.Query("CREATE KEYSPACE IF NOT EXISTS " + reviewKeyspace +
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatalf("creating %s: %v", reviewKeyspace, err)
	}
	for _, stmt := range ddl {
		stmt = strings.ReplaceAll(stmt, "KS.", reviewKeyspace+".")
		if f := strings.Fields(stmt); len(f) > 2 && strings.EqualFold(f[0], "CREATE") && strings.EqualFold(f[1], "TABLE") {
			if err := admin.Query("DROP TABLE IF EXISTS " + f[2]).Exec(); err != nil {
				t.Fatalf("dropping %s: %v", f[2], err)
			}
		}
		if err := admin.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var legacyFilter gocqlv1.HostFilter
	var compatFilter gocql.HostFilter
	if oneNode {
		// By address alone: gocql gives a node it read from system.local the configured port
		// (9042), not the contact point's, and the nodes of a test cluster differ by address.
		only := hostIP(t, hosts[0])
		hosts = hosts[:1]
		legacyFilter = gocqlv1.HostFilterFunc(func(h *gocqlv1.HostInfo) bool { return h.ConnectAddress().Equal(only) })
		compatFilter = gocql.HostFilterFunc(func(h *gocql.HostInfo) bool { return h.ConnectAddress().Equal(only) })
	}
	p := &diffPair{legacy: legacySession(t, hosts, reviewKeyspace, legacyFilter), hosts: hosts}
	t.Cleanup(p.legacy.Close)
	c := gocql.NewCluster(hosts...)
	c.Keyspace = reviewKeyspace
	c.ProtoVersion = 4
	c.Timeout = 30 * time.Second
	c.HostFilter = compatFilter
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("compat CreateSession: %v", err)
	}
	t.Cleanup(s.Close)
	p.compat = s
	return p
}

// hostIP returns the IP address of a test host (host:port, as cqltest.Hosts gives them).
func hostIP(t *testing.T, hostport string) net.IP {
	t.Helper()
	host, _, err := net.SplitHostPort(hostport)
	ip := net.ParseIP(host)
	if err != nil || ip == nil {
		t.Fatalf("test host %q is not an IP address and port", hostport)
	}
	return ip
}

// legacySession connects gocql v1.7.0 to hosts in keyspace ks (none when empty), with filter
// as its HostFilter when not nil.
func legacySession(t *testing.T, hosts []string, ks string, filter gocqlv1.HostFilter) *gocqlv1.Session {
	t.Helper()
	c := gocqlv1.NewCluster(hosts...)
	c.Keyspace = ks
	c.ProtoVersion = 4
	c.Timeout = 30 * time.Second
	c.HostFilter = filter
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("gocql v1.7.0 CreateSession: %v", err)
	}
	return s
}

// trace records what one driver showed, step by step.
type trace struct{ steps []string }

// add records one step: a label and values rendered by show.
func (tr *trace) add(label string, values ...interface{}) {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = show(v)
	}
	tr.steps = append(tr.steps, label+": "+strings.Join(parts, " | "))
}

// show renders a value so that equal behaviour of the two drivers gives equal text: errors as
// their type, message and exported fields; byte slices with nil distinct from empty.
func show(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case error:
		return showErr(x)
	case []byte:
		if x == nil {
			return "[]byte(nil)"
		}
		return fmt.Sprintf("%x", x)
	case []string:
		if x == nil {
			return "[]string(nil)"
		}
		return fmt.Sprintf("%q", x)
	case map[string][]byte:
		if x == nil {
			return "map(nil)"
		}
		return fmt.Sprintf("%v", x)
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("map{")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s:%s(%T) ", k, show(x[k]), x[k])
		}
		return b.String() + "}"
	}
	return fmt.Sprintf("%v", v)
}

// showErr renders an error as its dynamic type, message, RequestError code and exported
// fields (gocql and compat are both package gocql, so the type names compare).
func showErr(err error) string {
	s := fmt.Sprintf("%T %q", err, err.Error())
	type coder interface{ Code() int }
	if c, ok := err.(coder); ok {
		s += fmt.Sprintf(" code=%#x", c.Code())
	}
	rv := reflect.ValueOf(err)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct {
		rv = rv.Elem()
		for i := 0; i < rv.NumField(); i++ {
			f := rv.Type().Field(i)
			if f.IsExported() && !f.Anonymous {
				s += fmt.Sprintf(" %s=%v", f.Name, rv.Field(i).Interface())
			}
		}
	}
	return s
}

// sameTrace fails the test when the two traces differ.
func sameTrace(t *testing.T, legacy, compat *trace) {
	t.Helper()
	if os.Getenv("REVIEW_DUMP") != "" {
		t.Logf("gocql v1.7.0 trace:\n%s", strings.Join(legacy.steps, "\n"))
	}
	if diff := cmp.Diff(legacy.steps, compat.steps); diff != "" {
		t.Errorf("compat differs from gocql v1.7.0 (-gocql +compat):\n%s", diff)
	}
}

// isSentinel reports which of the sentinel errors err is (by ==), for comparisons of identity.
func isSentinel(err error, sentinels map[string]error) string {
	for name, s := range sentinels {
		if err == s {
			return name
		}
	}
	if err != nil && errors.Unwrap(err) != nil {
		return "wrapped"
	}
	return "-"
}
