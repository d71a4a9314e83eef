package native_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// Protocol v5 is used when asked for (Cassandra 4.0 and later speak it): checksummed framing,
// lz4 on whole segments, and statements that name their own keyspace. Here cqlsim serves v5.
func ExampleConfig_protocolV5() {
	cl, err := cqlsim.Start(cqlsim.Options{MaxProtocolVersion: 5})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()

	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs(), ProtocolVersion: 5, Compression: "lz4"})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	for _, ddl := range []string{
		"CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE shop.items (id int PRIMARY KEY, name text)",
	} {
		if _, err := sess.Execute(ctx, native.Query(ddl)); err != nil {
			log.Fatal(err)
		}
	}
	// The session has no keyspace; the statements name theirs.
	ins := native.Query("INSERT INTO items (id, name) VALUES (?, ?)", int32(1), "apple").WithKeyspace("shop")
	if _, err := sess.Execute(ctx, ins); err != nil {
		log.Fatal(err)
	}
	res, err := sess.Execute(ctx, native.Query("SELECT name FROM items WHERE id = 1").WithKeyspace("shop"))
	if err != nil {
		log.Fatal(err)
	}
	row, _ := res.First()
	var name string
	if err := row.Scan(&name); err != nil {
		log.Fatal(err)
	}
	fmt.Println("protocol", sess.ProtocolVersion(), "read", name)
	// Output: protocol 5 read apple
}
