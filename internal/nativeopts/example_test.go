package nativeopts_test

import (
	"context"
	"fmt"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/nativeopts"
	"github.com/cqlbridge/cqlbridge/native"
)

// A protocol v3 session refuses statements binding native.Unset; one whose configuration went
// through SendUnsetAtV3 sends them, as gocql does, and the v3 server writes NULL.
func Example() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sim.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, send := range []bool{false, true} {
		cfg := native.Config{Hosts: sim.Addrs(), ProtocolVersion: 3}
		if send {
			nativeopts.SendUnsetAtV3(&cfg)
		}
		s, err := native.Connect(ctx, cfg)
		if err != nil {
			fmt.Println(err)
			return
		}
		_, err = s.Execute(ctx, native.Query("CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
		if err == nil {
			_, err = s.Execute(ctx, native.Query("CREATE TABLE IF NOT EXISTS ks.kv (k int PRIMARY KEY, v text)"))
		}
		if err == nil {
			_, err = s.Execute(ctx, native.Query("INSERT INTO ks.kv (k, v) VALUES (1, 'one')"))
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		_, err = s.Execute(ctx, native.Query("INSERT INTO ks.kv (k, v) VALUES (1, ?)", native.Unset))
		fmt.Println("send:", send, "refused:", err != nil)
		res, err := s.Execute(ctx, native.Query("SELECT v FROM ks.kv WHERE k = 1"))
		if err != nil {
			fmt.Println(err)
			return
		}
		row, _ := res.First()
		var v *string
		_ = row.Scan(&v)
		fmt.Println("v is NULL:", v == nil)
		s.Close()
	}
	// Output:
	// send: false refused: true
	// v is NULL: false
	// send: true refused: false
	// v is NULL: true
}
