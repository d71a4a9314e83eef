package doccheck_test

import (
	"fmt"
	"log"

	"github.com/cqlbridge/cqlbridge/internal/doccheck"
)

// Example checks this package's own directory.
func Example() {
	problems, err := doccheck.Dir(".")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("problems:", len(problems))
	// Output:
	// problems: 0
}
