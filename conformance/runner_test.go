package conformance

import (
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
