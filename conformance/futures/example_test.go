package futures_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/conformance/futures"
)

// Compare two traces of a scenario whose documented deviation is that future runs a second
// callback the Python driver skips.
func ExampleCompare() {
	sc := futures.Scenario{
		Name: "example",
		Deviation: &futures.Deviation{
			ID: "panicking-callback",
			GoOnly: futures.Trace{Callbacks: []futures.Event{
				{Kind: "callback", ID: "cb2", Page: 1},
			}},
		},
	}
	python := futures.Trace{Callbacks: []futures.Event{{Kind: "callback", ID: "cb1", Page: 1}}}
	golang := futures.Trace{Callbacks: []futures.Event{{Kind: "callback", ID: "cb1", Page: 1}, {Kind: "callback", ID: "cb2", Page: 1}}}
	diff, err := futures.Compare(sc, python, golang)
	fmt.Printf("diff=%q err=%v\n", diff, err)

	// Without the documented deviation the extra callback is a difference.
	sc.Deviation = nil
	diff, _ = futures.Compare(sc, python, golang)
	fmt.Println(diff != "")
	// Output:
	// diff="" err=<nil>
	// true
}

// Load reads the scenarios from their JSON file.
func ExampleLoad() {
	scenarios, err := futures.Load("scenarios.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(scenarios) >= 30, scenarios[0].Name)
	// Output:
	// true callbacks_before_completion_fire_in_order
}
