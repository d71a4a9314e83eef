package gocql

import (
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestTracerPanicOnPrepareReachesCaller pins G61: a Tracer that panics when given the trace id
// of the PREPARE a traced query needs panics in the goroutine that executes the query, where
// the application can recover it, and the session goes on (the next execution finds the
// statement prepared). gocql v1.7.0 calls the Tracer for the PREPARE in a goroutine of its
// own, so the panic ends the program: not run here.
func TestTracerPanicOnPrepareReachesCaller(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	s, _ := sessionsOn(t, sim, nil)
	calls := 0
	tracer := tracerFunc(func([]byte) {
		calls++
		if calls == 1 {
			panic("tracer failed")
		}
	})
	const stmt = "SELECT key FROM system.local WHERE key = ?"
	func() {
		defer func() {
			if r := recover(); r != "tracer failed" {
				t.Errorf("recovered %v, want the Tracer's panic in the caller", r)
			}
		}()
		_ = s.Query(stmt, "local").Trace(tracer).Exec()
		t.Error("Exec returned: the Tracer's panic was lost")
	}()
	var key string
	if err := s.Query(stmt, "local").Trace(tracer).Scan(&key); err != nil || key != "local" {
		t.Fatalf("after the panic: %q, %v; want the row", key, err)
	}
	if calls != 2 { // the panicking PREPARE, then the execution (the statement is prepared)
		t.Errorf("Tracer called %d times, want 2", calls)
	}
}
