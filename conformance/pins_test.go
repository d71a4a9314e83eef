package conformance

import (
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

// A pinned deviation passes only while the shim's side is the pinned one: a shim that changed
// how it deviates (here: ExecuteBatch(nil) succeeding instead of failing) is reported.
func TestComparePins(t *testing.T) {
	const name = "batch/execute_nil" // a pinned deviation
	pinned := trace.Scenario{Name: name, Events: []trace.Event{{Step: "execute nil batch",
		Err: &trace.Error{Type: "*errors.errorString", Message: "gocql: the batch is nil"}}}}
	pins := map[string]trace.Scenario{name: pinned}
	run := func(shim trace.Scenario) *Outcome {
		return &Outcome{Server: "cqlsim", Records: []Record{{Name: name, Server: "cqlsim"}},
			Shim: map[string]trace.Scenario{name: shim}, Order: []string{name}}
	}
	if drift := comparePins(pins, run(pinned)); len(drift) != 0 {
		t.Errorf("the pinned trace itself drifts: %+v", drift)
	}
	silent := trace.Scenario{Name: name, Events: []trace.Event{{Step: "execute nil batch"}}}
	if drift := comparePins(pins, run(silent)); len(drift) != 1 || !strings.Contains(drift[0].Diff, "the batch is nil") {
		t.Errorf("a changed shim side is not reported: %+v", drift)
	}
	if drift := comparePins(map[string]trace.Scenario{}, run(pinned)); len(drift) != 1 {
		t.Errorf("a pinned deviation without a pinned trace is not reported: %+v", drift)
	}
	stale := map[string]trace.Scenario{name: pinned, "types/int": {Name: "types/int"}}
	if drift := comparePins(stale, run(pinned)); len(drift) != 1 || drift[0].Name != "types/int" {
		t.Errorf("a pin of a scenario that is not a pinned deviation is not reported: %+v", drift)
	}
	// Ports of a scenario's own cqlsim change every run.
	a := trace.Scenario{Name: name, Events: []trace.Event{{Step: "x", Err: &trace.Error{Type: "e", Message: "<host>:35177 failed"}}}}
	b := trace.Scenario{Name: name, Events: []trace.Event{{Step: "x", Err: &trace.Error{Type: "e", Message: "<host>:33729 failed"}}}}
	if drift := comparePins(map[string]trace.Scenario{name: pinForm(a)}, run(b)); len(drift) != 0 {
		t.Errorf("a port that changes between runs makes the pin drift: %+v", drift)
	}
}

// Every pinned deviation has its shim trace pinned on cqlsim.
func TestEveryDeviationHasAPinnedShimTrace(t *testing.T) {
	pins, ok, err := ReadPins("cqlsim")
	if err != nil || !ok {
		t.Fatalf("testdata/pinned-cqlsim.json: recorded %v, %v", ok, err)
	}
	for _, d := range Deviations() {
		if _, ok := pins[d.Scenario]; !ok {
			t.Errorf("%s: no pinned shim trace in testdata/pinned-cqlsim.json (go test ./conformance -run TestConformance/cqlsim -update-pins)", d.Scenario)
		}
	}
}
