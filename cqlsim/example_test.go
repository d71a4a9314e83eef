package cqlsim_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Start a three-node cluster on random ports of 127.0.0.1-3, print that it is ready, and close it.
func Example() {
	c, err := cqlsim.Start(cqlsim.Options{Nodes: 3})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	addrs := c.Addrs()
	fmt.Printf("cqlsim ready with %d nodes\n", len(addrs))
	for _, a := range addrs {
		host := a[:strings.LastIndex(a, ":")]
		fmt.Println(host)
	}
	// Output:
	// cqlsim ready with 3 nodes
	// 127.0.0.1
	// 127.0.0.2
	// 127.0.0.3
}
