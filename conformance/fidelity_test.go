package conformance

import (
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

func outcome(server string, scenarios ...trace.Scenario) *Outcome {
	o := &Outcome{Server: server, Legacy: map[string]trace.Scenario{}}
	for _, s := range scenarios {
		o.Legacy[s.Name] = s
		o.Order = append(o.Order, s.Name)
	}
	return o
}

func syntaxError(msg string) *trace.Error {
	return &trace.Error{Type: "gocql.errorFrame", Message: msg, Fields: map[string]string{"Code()": "0x2000", "Message()": msg}}
}

func TestCompareServers(t *testing.T) {
	ref := outcome("cassandra",
		trace.Scenario{Name: "same", Events: []trace.Event{{Step: "row", Values: []string{"int:1"}}}},
		trace.Scenario{Name: "wording", Events: []trace.Event{{Step: "exec", Err: syntaxError("line 1:0 no viable alternative")}}},
		trace.Scenario{Name: "code", Events: []trace.Event{{Step: "exec", Err: syntaxError("bad")}}},
		trace.Scenario{Name: "value", Events: []trace.Event{{Step: "row", Values: []string{"int:1"}}, {Step: "close"}}},
		trace.Scenario{Name: "only-ref"},
	)
	invalid := syntaxError("bad")
	invalid.Fields["Code()"] = "0x2200"
	other := outcome("cqlsim",
		trace.Scenario{Name: "same", Events: []trace.Event{{Step: "row", Values: []string{"int:1"}}}},
		trace.Scenario{Name: "wording", Events: []trace.Event{{Step: "exec", Err: syntaxError("cqlsim: syntax error")}}},
		trace.Scenario{Name: "code", Events: []trace.Event{{Step: "exec", Err: invalid}}},
		trace.Scenario{Name: "value", Events: []trace.Event{{Step: "row", Values: []string{"int:2"}}, {Step: "close"}}},
		trace.Scenario{Name: "only-other"},
	)
	got := map[string]FidelityRecord{}
	for _, r := range CompareServers(ref, other) {
		got[r.Name] = r
	}
	if len(got) != 6 {
		t.Fatalf("got %d records, want 6 (5 reference scenarios and 1 only on the other server): %v", len(got), got)
	}
	if r := got["same"]; !r.Same || len(r.Messages) != 0 {
		t.Errorf("same: %+v", r)
	}
	if r := got["wording"]; !r.Same || len(r.Messages) != 1 || !strings.Contains(r.Messages[0], "cqlsim: syntax error") {
		t.Errorf("wording only: want same with one message difference, got %+v", r)
	}
	if r := got["code"]; r.Same || !strings.Contains(r.Summary, "0x2200") {
		t.Errorf("a different error code must count as a difference: %+v", r)
	}
	if r := got["value"]; r.Same || !strings.Contains(r.Summary, "int:1") || !strings.Contains(r.Summary, "int:2") {
		t.Errorf("a different value must count as a difference and show both values: %+v", r)
	}
	if r := got["only-ref"]; r.Same || !strings.Contains(r.Diff, "missing on cqlsim") {
		t.Errorf("only-ref: %+v", r)
	}
	if r := got["only-other"]; r.Same || !strings.Contains(r.Diff, "missing on cassandra") {
		t.Errorf("only-other: %+v", r)
	}
}

func TestParseKnown(t *testing.T) {
	got := parseKnown("# header\n\na/b\n  c/d  # why it differs \n#e/f\n")
	if len(got) != 2 || got["a/b"] != "" || got["c/d"] != "why it differs" {
		t.Fatalf("parseKnown = %q", got)
	}
}
