package cqltest_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// ParseHosts turns a CQL_HOSTS value into dialable addresses.
func ExampleParseHosts() {
	fmt.Println(cqltest.ParseHosts("127.0.0.1, 127.0.0.2:9043"))
	// Output: [127.0.0.1:9042 127.0.0.2:9043]
}
