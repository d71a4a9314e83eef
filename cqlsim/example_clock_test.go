package cqlsim_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// A ManualClock makes a TTL expire when the test says so, without sleeping.
func ExampleManualClock() {
	clock := cqlsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c, err := cqlsim.Start(cqlsim.Options{Now: clock.Now})
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
	for _, cql := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.kv (k int PRIMARY KEY, v text)",
		"INSERT INTO ks.kv (k, v) VALUES (1, 'short-lived') USING TTL 60",
	} {
		if _, err := s.Execute(ctx, native.Query(cql)); err != nil {
			log.Fatal(err)
		}
	}
	count := func() int {
		res, err := s.Execute(ctx, native.Query("SELECT v FROM ks.kv WHERE k = 1"))
		if err != nil {
			log.Fatal(err)
		}
		return res.Len()
	}
	fmt.Println("rows now:", count())
	clock.Advance(61 * time.Second)
	fmt.Println("rows a minute later:", count())
	// Output:
	// rows now: 1
	// rows a minute later: 0
}
