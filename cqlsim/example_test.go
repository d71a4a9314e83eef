package cqlsim_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

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

// Make node 2 slow and watch a request with a 50 ms timeout fail on it, while node 1 answers.
func ExampleCluster_SetNodeDelay() {
	c, err := cqlsim.Start(cqlsim.Options{Nodes: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.SetNodeDelay(1, time.Second); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()[:1]}) // the control connection on node 1
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for i, addr := range c.Addrs() {
		q := native.Query("SELECT release_version FROM system.local").WithHost(addr).WithTimeout(50 * time.Millisecond)
		_, err := s.Execute(ctx, q)
		fmt.Printf("node %d timed out: %v\n", i+1, errors.Is(err, native.ErrTimeout))
	}
	// Output:
	// node 1 timed out: false
	// node 2 timed out: true
}

// Make node 1 answer the next two reads of a table with a read timeout, as a coordinator does
// when too few replicas answered in time.
func ExampleCluster_InjectFault() {
	c, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for _, ddl := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
	} {
		if _, err := s.Execute(ctx, native.Query(ddl)); err != nil {
			log.Fatal(err)
		}
	}
	err = c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t", Times: 2, Error: &message.ReadTimeout{
		ErrorMessage: "Operation timed out - received only 1 responses.",
		Consistency:  primitive.ConsistencyLevelQuorum, Received: 1, BlockFor: 2,
	}})
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		_, err := s.Execute(ctx, native.Query("SELECT v FROM ks.t WHERE k = 1"))
		var rt *native.ReadTimeoutError
		if errors.As(err, &rt) {
			fmt.Printf("read timeout: %d of %d replicas answered\n", rt.Received, rt.BlockFor)
		} else {
			fmt.Println("served:", err == nil)
		}
	}
	// Output:
	// read timeout: 1 of 2 replicas answered
	// read timeout: 1 of 2 replicas answered
	// served: true
}
