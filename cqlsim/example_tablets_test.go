package cqlsim_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"net"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Start a node of 2 shards whose tables have 4 tablets, connect to shard 0 opting in to
// ScyllaDB's tablets routing, and execute a statement on a partition before and after
// MoveTablets. The partition's tablet (tablet 1) has its replica on shard 1 at first, so the
// result's tablets-routing-v1 custom payload names the tablet's range and its replica; once
// the tablet moved to shard 0, the statement reaches the replica's shard and the result
// carries no routing information.
func ExampleCluster_MoveTablets() {
	c, err := cqlsim.Start(cqlsim.Options{Shards: 2, Tablets: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	nc, err := net.Dial("tcp", c.Addrs()[0]) // the node's first connection: shard 0
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	codec := frame.NewCodec()
	request := func(msg message.Message) *frame.Frame {
		if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 0, msg), nc); err != nil {
			log.Fatal(err)
		}
		f, err := codec.DecodeFrame(nc)
		if err != nil {
			log.Fatal(err)
		}
		if e, ok := f.Body.Message.(message.Error); ok {
			log.Fatal(e.GetErrorMessage())
		}
		return f
	}
	request(&message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "TABLETS_ROUTING_V1": ""}})
	request(&message.Query{Query: "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"})
	request(&message.Query{Query: "CREATE TABLE ks.t (k int PRIMARY KEY, v int)"})
	id := request(&message.Prepare{Query: "INSERT INTO ks.t (k, v) VALUES (?, ?)"}).Body.Message.(*message.PreparedResult).PreparedQueryId
	key := primitive.NewValue([]byte{0, 0, 0, 1}) // k = 1, in tablet 1 of 4

	for range 2 {
		f := request(&message.Execute{QueryId: id, Options: &message.QueryOptions{
			Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{key, key}}})
		v, ok := f.Body.CustomPayload["tablets-routing-v1"]
		if !ok {
			fmt.Println("no routing information")
		} else {
			// tuple<bigint, bigint, list<tuple<uuid, int>>>, each element after its [int]
			// length: first token at 4, last token at 16, the list's length at 24 and its
			// element count at 28, then the first replica: its length, [int] 16, the host id,
			// [int] 4 and the shard at 60.
			first := int64(binary.BigEndian.Uint64(v[4:]))
			last := int64(binary.BigEndian.Uint64(v[16:]))
			replicas := binary.BigEndian.Uint32(v[28:])
			shard := binary.BigEndian.Uint32(v[60:])
			fmt.Printf("tablet (%d, %d], %d replica, on shard %d\n", first, last, replicas, shard)
		}
		c.MoveTablets()
	}
	fmt.Printf("%+v\n", c.TabletStats())
	// Output:
	// tablet (-4611686018427387905, -1], 1 replica, on shard 1
	// no routing information
	// {OnReplica:1 OffReplica:1 Payloads:1}
}
