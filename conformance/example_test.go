package conformance_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/conformance"
	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

// CompareServers compares the legacy traces of two servers: here both servers fail the same
// statement with the same error code, but word the message differently, which is reported
// without counting as a difference.
func ExampleCompareServers() {
	errOn := func(msg string) *trace.Error {
		return &trace.Error{Type: "gocql.errorFrame", Message: msg, Fields: map[string]string{"Code()": "0x2200", "Message()": msg}}
	}
	cassandra := &conformance.Outcome{Server: "cassandra", Order: []string{"errors/x"}, Legacy: map[string]trace.Scenario{
		"errors/x": {Name: "errors/x", Events: []trace.Event{{Step: "exec", Err: errOn("Undefined column name nope")}}},
	}}
	sim := &conformance.Outcome{Server: "cqlsim", Order: []string{"errors/x"}, Legacy: map[string]trace.Scenario{
		"errors/x": {Name: "errors/x", Events: []trace.Event{{Step: "exec", Err: errOn("Undefined column name nope in table t")}}},
	}}
	for _, r := range conformance.CompareServers(cassandra, sim) {
		fmt.Println(r.Name, r.Same, r.Messages)
	}
	// Output:
	// errors/x true [exec: "Undefined column name nope" vs "Undefined column name nope in table t"]
}
