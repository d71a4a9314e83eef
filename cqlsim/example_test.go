package cqlsim_test

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
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

// Start a cluster of two data centres with two racks in dc1, and list the nodes as a driver
// sees them (here the native core, which routes to LocalDC's nodes first).
func ExampleOptions_dataCenters() {
	c, err := cqlsim.Start(cqlsim.Options{Nodes: 3,
		NodeDataCenters: []string{"dc1", "dc1", "dc2"},
		NodeRacks:       []string{"r1", "r2", "r1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()[:1], LocalDC: "dc1"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	hosts := s.Hosts()
	slices.SortFunc(hosts, func(a, b native.Host) int { return strings.Compare(a.Addr, b.Addr) })
	for _, h := range hosts {
		fmt.Println(h.Addr[:strings.LastIndex(h.Addr, ":")], h.DataCenter, h.Rack)
	}
	// Output:
	// 127.0.0.1 dc1 r1
	// 127.0.0.2 dc1 r2
	// 127.0.0.3 dc2 r1
}
