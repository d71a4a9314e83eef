package native_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// On ScyllaDB the session keeps a connection per shard and sends each request whose partition
// it knows to the shard that owns it; nothing to configure. Here cqlsim emulates a ScyllaDB
// node with four shards and counts where the requests arrived.
func ExampleConfig_shardAwareness() {
	cl, err := cqlsim.Start(cqlsim.Options{Shards: 4, ShardAwarePort: true})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()

	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	for _, ddl := range []string{
		"CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE shop.stock (item int PRIMARY KEY, count int)",
	} {
		if _, err := sess.Execute(ctx, native.Query(ddl)); err != nil {
			log.Fatal(err)
		}
	}
	ins, err := sess.Prepare(ctx, "INSERT INTO shop.stock (item, count) VALUES (?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	for item := range 100 {
		if _, err := sess.Execute(ctx, ins.Bind(item, 10)); err != nil {
			log.Fatal(err)
		}
	}
	stats := cl.ShardStats()
	fmt.Println("on the owning shard:", stats.OnShard, "on another:", stats.OffShard)
	// Output:
	// on the owning shard: 100 on another: 0
}
