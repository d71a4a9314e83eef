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
