package drivertest_test

import (
	"fmt"
	"log"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Example connects the legacy gocql driver, with its default settings, to a three-node cqlsim
// cluster, writes a logged batch and pages through the rows three at a time.
func Example() {
	c, err := cqlsim.Start(cqlsim.Options{Nodes: 3})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	cfg := gocql.NewCluster(c.Addrs()...)
	cfg.Port = c.Port() // for the peers gocql discovers in system.peers
	s, err := cfg.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	for _, cql := range []string{
		"CREATE KEYSPACE ex WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ex.kv (p int, c int, v text, PRIMARY KEY (p, c))",
	} {
		if err := s.Query(cql).Exec(); err != nil {
			log.Fatal(err)
		}
	}
	b := s.NewBatch(gocql.LoggedBatch)
	for i := range 10 {
		b.Query("INSERT INTO ex.kv (p, c, v) VALUES (?, ?, ?)", 1, i, fmt.Sprint("v", i))
	}
	if err := s.ExecuteBatch(b); err != nil {
		log.Fatal(err)
	}

	var state []byte
	for page := 1; ; page++ {
		it := s.Query("SELECT c FROM ex.kv WHERE p = ?", 1).PageSize(3).PageState(state).Iter()
		var cs []int
		var c int
		for it.Scan(&c) {
			cs = append(cs, c)
		}
		state = it.PageState()
		if err := it.Close(); err != nil {
			log.Fatal(err)
		}
		fmt.Println("page", page, cs)
		if len(state) == 0 {
			break
		}
	}
	// Output:
	// page 1 [0 1 2]
	// page 2 [3 4 5]
	// page 3 [6 7 8]
	// page 4 [9]
}
