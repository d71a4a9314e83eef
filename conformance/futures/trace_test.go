package futures_test

import (
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/conformance/futures"
)

func rows(r ...string) *[]string { return &r }

func TestCompare(t *testing.T) {
	py := futures.Trace{
		Callbacks: []futures.Event{{Kind: "callback", ID: "cb1", Page: 1, Rows: rows("1")}, {Kind: "errback", ID: "eb1", Page: 1, Error: "CallbackRaised"}},
		Steps:     []futures.Event{{Op: "warnings", Value: []byte("[\n \"w\"\n]")}},
	}
	same := futures.Trace{
		Callbacks: []futures.Event{{Kind: "callback", ID: "cb1", Page: 1, Rows: rows("1")}, {Kind: "errback", ID: "eb1", Page: 1, Error: "CallbackRaised"}},
		Steps:     []futures.Event{{Op: "warnings", Value: []byte(`["w"]`)}},
	}
	if d, err := futures.Compare(futures.Scenario{}, py, same); err != nil || d != "" {
		t.Fatalf("equal traces (modulo JSON spacing) differ: %v\n%s", err, d)
	}
	goOnlyCb := futures.Trace{
		Callbacks: []futures.Event{{Kind: "callback", ID: "cb1", Page: 1, Rows: rows("1")}, {Kind: "callback", ID: "cb2", Page: 1, Rows: rows("1")}},
		Steps:     same.Steps,
	}
	d, err := futures.Compare(futures.Scenario{}, py, goOnlyCb)
	if err != nil || !strings.Contains(d, "cb2") || !strings.Contains(d, "eb1") {
		t.Fatalf("a different trace compared equal or unclear: %v\n%s", err, d)
	}
	dev := futures.Scenario{Deviation: &futures.Deviation{
		ID:         "x",
		PythonOnly: futures.Trace{Callbacks: []futures.Event{{Kind: "errback", ID: "eb1", Page: 1, Error: "CallbackRaised"}}},
		GoOnly:     futures.Trace{Callbacks: []futures.Event{{Kind: "callback", ID: "cb2", Page: 1, Rows: rows("1")}}},
	}}
	if d, err := futures.Compare(dev, py, goOnlyCb); err != nil || d != "" {
		t.Fatalf("the documented deviation was not accepted: %v\n%s", err, d)
	}
	// The documented difference is required: if Go behaved like Python, the deviation is stale.
	if _, err := futures.Compare(dev, py, same); err == nil || !strings.Contains(err.Error(), "go-only") {
		t.Fatalf("a deviation that did not happen was accepted: %v", err)
	}
}

func TestRaced(t *testing.T) {
	sc := futures.Scenario{RerunIf: []futures.Event{{Kind: "callback", ID: "cb1", Page: 2, Rows: rows("4")}}}
	lost := futures.Trace{Callbacks: []futures.Event{{Kind: "callback", ID: "cb1", Page: 1, Rows: rows("1")}, {Kind: "callback", ID: "cb1", Page: 2, Rows: rows("4")}}}
	held := futures.Trace{Callbacks: []futures.Event{{Kind: "callback", ID: "cb1", Page: 1, Rows: rows("1")}, {Kind: "callback", ID: "cb1", Page: 3, Rows: rows("4")}}}
	if !sc.Raced(lost) {
		t.Error("a trace holding a rerun_if event is not reported as raced")
	}
	if sc.Raced(held) {
		t.Error("a trace without rerun_if events is reported as raced")
	}
	if (futures.Scenario{}).Raced(lost) {
		t.Error("a scenario without rerun_if reported a race")
	}
	scs, err := futures.Load("scenarios.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scs {
		if s.Name == "double_start_fetching_next_page" && len(s.RerunIf) == 0 {
			t.Error("double_start_fetching_next_page lost its rerun_if: the page may arrive between the two calls")
		}
		if s.Name == "callback_sees_its_own_page" && len(s.RerunIf) == 0 {
			t.Error("callback_sees_its_own_page lost its rerun_if: page 1 may complete before cb2 is registered")
		}
	}

	// A step event in rerun_if matches a step of the same op and error, whatever its counts.
	waits := futures.Scenario{RerunIf: []futures.Event{{Op: "wait", Error: "WaitTimeout"}}}
	timedOut := futures.Trace{Steps: []futures.Event{{Op: "wait", Error: "WaitTimeout", Have: 4, Want: 6}, {Op: "result"}}}
	if !waits.Raced(timedOut) {
		t.Error("a trace whose wait timed out is not reported as raced by a wait rerun_if")
	}
	if waits.Raced(futures.Trace{Steps: []futures.Event{{Op: "result", Error: "WaitTimeout"}}, Callbacks: held.Callbacks}) {
		t.Error("a step of another op is reported as raced")
	}
}
