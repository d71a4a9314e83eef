package policy_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/native/internal/policy"
)

// A plan for a request whose partition lives on nodes 2 and 0 of a four-node cluster.
func ExamplePlan() {
	p := policy.NewPlan([]int32{2, 0}, 4, nil, 0)
	for {
		n, ok := p.Next()
		if !ok {
			break
		}
		fmt.Print(n, " ")
	}
	fmt.Println()
	// Output: 2 0 1 3
}
