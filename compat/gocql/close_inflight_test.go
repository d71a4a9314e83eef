package gocql

import (
	"errors"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
)

// TestPinG63CloseFailsQueriesInFlightWithErrSessionClosed pins deviation G63: a query in
// flight on a node that does not answer (cqlsim FreezeNode) when Session.Close runs fails with
// ErrSessionClosed in compat, with ErrConnectionClosed ("connection closed waiting for
// response") in gocql v1.7.0.
func TestPinG63CloseFailsQueriesInFlightWithErrSessionClosed(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		sim := pinCluster(t, 2)
		var exec func() error
		var closeF func()
		if legacy {
			cfg := gocqlv1.NewCluster(sim.Addrs()...)
			cfg.Port = sim.Port()
			cfg.Timeout = 10 * time.Second
			s, err := cfg.CreateSession()
			if err != nil {
				t.Fatal(err)
			}
			exec = func() error { return s.Query("SELECT v FROM pins.t WHERE k = 1").Exec() }
			closeF = s.Close
		} else {
			cfg := NewCluster(sim.Addrs()...)
			cfg.Port = sim.Port()
			cfg.Timeout = 10 * time.Second
			s, err := cfg.CreateSession()
			if err != nil {
				t.Fatal(err)
			}
			exec = func() error { return s.Query("SELECT v FROM pins.t WHERE k = 1").Exec() }
			closeF = s.Close
		}
		// Both nodes serve before one hangs.
		for range 10 {
			if err := exec(); err != nil {
				t.Fatal(err)
			}
		}
		if err := sim.FreezeNode(1); err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 8)
		for range 8 {
			go func() { errs <- exec() }()
		}
		time.Sleep(300 * time.Millisecond) // those sent to the frozen node wait
		closeF()
		hung := 0
		for range 8 {
			err := <-errs
			if err == nil {
				continue
			}
			hung++
			if legacy && !errors.Is(err, gocqlv1.ErrConnectionClosed) {
				t.Errorf("gocql v1.7.0: a query in flight at Close failed with %v, not ErrConnectionClosed: docs/deviations.md G63 is stale", err)
			}
			if !legacy && !errors.Is(err, ErrSessionClosed) {
				t.Errorf("compat: a query in flight at Close failed with %v, want ErrSessionClosed", err)
			}
		}
		if hung == 0 {
			t.Errorf("legacy=%v: no query was in flight on the frozen node at Close", legacy)
		}
		if err := sim.ThawNode(1); err != nil {
			t.Fatal(err)
		}
	}
}
