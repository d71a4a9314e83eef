package conn_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native/internal/conn"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Dial a node (here an embedded cqlsim one), run a query and read the rows in place.
func ExampleDial() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := conn.Dial(ctx, sim.Addrs()[0], conn.Config{Compression: "lz4"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	resp, err := c.Do(ctx, &proto.Query{
		Query:  "SELECT cluster_name, release_version FROM system.local",
		Params: proto.QueryParams{Consistency: proto.One},
	})
	if err != nil {
		log.Fatal(err) // a server ERROR is a *proto.ErrorResponse
	}
	defer resp.Release()
	rows := resp.Msg.(*proto.RowsResult)
	for rows.Next() {
		fmt.Printf("%s runs Cassandra %s\n", rows.Cell(0), rows.Cell(1))
	}
	// Output:
	// cqlsim runs Cassandra 5.0.0
}

// Start many requests from one goroutine, then collect them: the writer sends everything
// queued in one write.
func ExampleConn_Start() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	ctx := context.Background()
	c, err := conn.Dial(ctx, sim.Addrs()[0], conn.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	q := &proto.Query{Query: "SELECT now() FROM system.local", Params: proto.QueryParams{Consistency: proto.One}}
	calls := make([]*conn.Call, 100)
	for i := range calls {
		if calls[i], err = c.Start(ctx, q); err != nil {
			log.Fatal(err)
		}
	}
	rows := 0
	for _, call := range calls {
		<-call.Done()
		call.Received()
		resp, err := call.Response()
		if err != nil {
			log.Fatal(err)
		}
		rows += resp.Msg.(*proto.RowsResult).RowCount
		call.Release()
	}
	fmt.Println("requests:", len(calls), "rows:", rows)
	// Output:
	// requests: 100 rows: 100
}
