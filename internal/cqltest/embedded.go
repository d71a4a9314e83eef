package cqltest

import (
	"fmt"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// embeddedServer is the one cqlsim cluster a test binary shares when CQL_HOSTS is unset. It is
// started on first use and lives until the process exits (tests in one binary share it; each
// test's keyspace keeps them apart).
var embeddedServer struct {
	once  sync.Once
	hosts []string
	err   error
}

// EmbeddedHosts starts (once per test binary) an in-process cqlsim node on a random port of
// 127.0.0.1 and returns its address. It returns an error when cqlsim cannot start or does not yet
// answer a query on system.local.
func EmbeddedHosts() ([]string, error) {
	s := &embeddedServer
	s.once.Do(func() {
		c, err := cqlsim.Start(cqlsim.Options{})
		if err != nil {
			s.err = fmt.Errorf("starting the embedded cqlsim: %w", err)
			return
		}
		if err := ExecErr(c.Addrs()[0], "SELECT release_version FROM system.local"); err != nil {
			_ = c.Close()
			s.err = fmt.Errorf("the embedded cqlsim does not answer queries: %w", err)
			return
		}
		s.hosts = c.Addrs()
	})
	return s.hosts, s.err
}

// GoleakOptions returns the goleak options that ignore the goroutines of the shared embedded
// cqlsim server (its accept loop outlives every test). Tests that check for leaked goroutines
// with goleak and may run against the embedded server pass these.
func GoleakOptions() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("github.com/cqlbridge/cqlbridge/cqlsim.(*node).acceptLoop"),
	}
}

// LeakCheck returns a function that fails tb if goroutines are left other than those running
// when LeakCheck was called, the shared embedded server's (GoleakOptions) and those that serve
// a cqlsim cluster's connections: for tests that start a cluster of their own (cqlsim.StartT
// closes it only after the test) and check for leaked goroutines before it closes.
func LeakCheck(tb testing.TB) func() {
	opts := append(GoleakOptions(),
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/cqlbridge/cqlbridge/cqlsim.(*conn).worker"),
		goleak.IgnoreAnyFunction("github.com/cqlbridge/cqlbridge/cqlsim.(*conn).readLoop"),
		goleak.IgnoreAnyFunction("github.com/cqlbridge/cqlbridge/cqlsim.(*conn).writeLoop"),
	)
	return func() {
		tb.Helper()
		goleak.VerifyNone(tb, opts...)
	}
}
