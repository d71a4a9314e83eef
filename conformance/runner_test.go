package conformance

import (
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

func TestAbortedSetup(t *testing.T) {
	ddlErr := &trace.Error{Type: "gocql.errorFrame", Message: "no viable alternative"}
	for _, tc := range []struct {
		name    string
		s       trace.Scenario
		aborted bool
	}{
		{"ended at its set-up", trace.Scenario{Events: []trace.Event{{Step: "setup CREATE TABLE t (k int PRIMARY KEY)", Err: ddlErr}}}, true},
		{"ended at a later set-up", trace.Scenario{Events: []trace.Event{{Step: "insert"}, {Step: "setup INSERT INTO t (k) VALUES (1)", Err: ddlErr}}}, true},
		// counter/invalid_operations records a refused CREATE TABLE and goes on.
		{"went on after a failed set-up", trace.Scenario{Events: []trace.Event{{Step: "setup CREATE TABLE t_mixed", Err: ddlErr}, {Step: "mixed table", Err: ddlErr}}}, false},
		{"a failed step that is not set-up", trace.Scenario{Events: []trace.Event{{Step: "select", Err: ddlErr}}}, false},
		{"no events", trace.Scenario{}, false},
		{"a panic", trace.Scenario{Events: []trace.Event{{Step: "setup X", Err: ddlErr}}, Panic: "boom"}, false},
	} {
		if got := abortedSetup(tc.s) != ""; got != tc.aborted {
			t.Errorf("%s: aborted = %v, want %v", tc.name, got, tc.aborted)
		}
	}
}

// Identical traces are the same, unless the shim panicked (even as gocql does: a panic is
// never conformance) or both stopped at a failed set-up step; different traces are not.
func TestCompareTraces(t *testing.T) {
	ok := trace.Scenario{Events: []trace.Event{{Step: "select"}}}
	panicked := trace.Scenario{Events: []trace.Event{{Step: "select"}}, Panic: "runtime error: invalid memory address or nil pointer dereference"}
	other := trace.Scenario{Events: []trace.Event{{Step: "select", Err: &trace.Error{Type: "x", Message: "y"}}}}
	for _, tc := range []struct {
		name     string
		l, s     trace.Scenario
		same     bool
		shim     string
		diffHint string
	}{
		{"identical", ok, ok, true, "pass", ""},
		{"different", ok, other, false, "pass", "select"},
		{"both panic alike", panicked, panicked, false, "fail", "the shim panicked"},
		{"only gocql panics", panicked, ok, false, "pass", "nil pointer"},
	} {
		rec := compareTraces(Record{Name: tc.name}, tc.l, tc.s)
		if rec.Same != tc.same || rec.Shim != tc.shim || !strings.Contains(rec.Diff, tc.diffHint) {
			t.Errorf("%s: same %v, shim %q, diff %q; want same %v, shim %q, a diff containing %q", tc.name, rec.Same, rec.Shim, rec.Diff, tc.same, tc.shim, tc.diffHint)
		}
	}
}
