package cqlsim_test

import (
	"fmt"
	"log"
	"net"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Start a node that emulates a ScyllaDB node of 4 shards with a shard-aware port, open three
// connections to its regular port, and print the shard each one is told in SUPPORTED (dealt
// round-robin) and the node's open connections per shard.
func ExampleOptions_shards() {
	c, err := cqlsim.Start(cqlsim.Options{Shards: 4, ShardAwarePort: true})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println("shard-aware port:", c.ShardAwarePort() > 0)

	codec := frame.NewCodec()
	for i := range 3 {
		nc, err := net.Dial("tcp", c.Addrs()[0])
		if err != nil {
			log.Fatal(err)
		}
		defer nc.Close()
		if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 0, &message.Options{}), nc); err != nil {
			log.Fatal(err)
		}
		f, err := codec.DecodeFrame(nc)
		if err != nil {
			log.Fatal(err)
		}
		opts := f.Body.Message.(*message.Supported).Options
		fmt.Printf("connection %d: shard %s of %s\n", i, opts["SCYLLA_SHARD"][0], opts["SCYLLA_NR_SHARDS"][0])
	}
	fmt.Println("open connections per shard:", c.ShardConns(0))
	// Output:
	// shard-aware port: true
	// connection 0: shard 0 of 4
	// connection 1: shard 1 of 4
	// connection 2: shard 2 of 4
	// open connections per shard: [1 1 1 0]
}
