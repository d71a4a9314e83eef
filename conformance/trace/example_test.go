package trace_test

import (
	"errors"
	"fmt"

	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

// A scenario records each call with its returned values (typed) and error.
func ExampleRecorder() {
	r := trace.NewRecorder(nil)
	r.Record("iter.Scan", nil, true, 42, "v42")
	r.Record("iter.Close", errors.New("not found"))
	for _, ev := range r.Events() {
		fmt.Println(ev.Step, ev.Values, ev.Err != nil)
	}
	// Output:
	// iter.Scan [bool:true int:42 string:v42] false
	// iter.Close [] true
}
