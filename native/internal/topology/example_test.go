package topology_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/native/internal/ring"
	"github.com/cqlbridge/cqlbridge/native/internal/topology"
)

// A two-node snapshot routing a token of keyspace "shop".
func ExampleBuild() {
	nodes := []topology.Node{
		{Addr: "10.0.0.1:9042", Tokens: []string{"-4611686018427387904", "4611686018427387904"}},
		{Addr: "10.0.0.2:9042", Tokens: []string{"0"}},
	}
	snap, err := topology.Build(nodes, map[string]ring.Replication{"shop": {Class: "SimpleStrategy", Factor: 1}})
	if err != nil {
		panic(err)
	}
	for _, i := range snap.Replicas("shop", 42) {
		fmt.Println(snap.Nodes[i].Addr)
	}
	// Output: 10.0.0.1:9042
}
