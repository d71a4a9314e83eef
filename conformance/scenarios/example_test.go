package scenarios_test

import (
	"fmt"
	"strings"

	"github.com/cqlbridge/cqlbridge/conformance/scenarios"
)

// Scenarios are grouped by the prefix of their names.
func ExampleAll() {
	groups := map[string]bool{}
	for _, s := range scenarios.All() {
		group, _, _ := strings.Cut(s.Name, "/")
		groups[group] = true
	}
	fmt.Println(groups["types"], groups["paging"], groups["cas"])
	// Output: true true true
}
