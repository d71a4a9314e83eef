package inflate_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/internal/inflate"
)

// Example refuses a 5-byte snappy body that announces 200 MiB before allocating anything.
func Example() {
	announced, body := int64(200<<20), 5
	if announced > inflate.MaxSnappy(body) {
		fmt.Printf("refused: %d bytes cannot inflate to %d\n", body, announced)
	}
	// Output: refused: 5 bytes cannot inflate to 209715200
}
