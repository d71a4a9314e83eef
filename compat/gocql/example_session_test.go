package gocql_test

import (
	"fmt"
	"log"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// NewCluster starts from gocql v1.7.0's defaults.
func ExampleNewCluster() {
	cluster := gocql.NewCluster("127.0.0.1")
	fmt.Println(cluster.Consistency, cluster.PageSize, cluster.Timeout, cluster.Port)
	// Output: QUORUM 5000 11s 9042
}

// Builder methods change the query they are called on and return it; WithContext is the
// exception and returns a copy. Here a client reads a table two rows at a time, keeping the
// paging state between calls, against an embedded cqlsim server (use your cluster's
// addresses instead of sim.Addrs()).
func ExampleQuery_PageState() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	session, err := gocql.NewCluster(sim.Addrs()...).CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	for _, stmt := range []string{
		"CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE shop.users (p int, id int, PRIMARY KEY (p, id))",
	} {
		if err := session.Query(stmt).Exec(); err != nil {
			log.Fatal(err)
		}
	}
	for id := 1; id <= 5; id++ {
		if err := session.Query("INSERT INTO shop.users (p, id) VALUES (0, ?)", id).Exec(); err != nil {
			log.Fatal(err)
		}
	}
	var state []byte // nil: the first page
	for page := 1; ; page++ {
		// PageState disables automatic paging: each Iter reads one page only.
		iter := session.Query("SELECT id FROM shop.users WHERE p = 0").PageSize(2).PageState(state).Iter()
		var id int
		for iter.Scan(&id) {
			fmt.Println("page", page, "id", id)
		}
		state = iter.PageState() // the resume point after this page
		if err := iter.Close(); err != nil {
			log.Fatal(err)
		}
		if len(state) == 0 {
			break // the last page
		}
	}
	// Output:
	// page 1 id 1
	// page 1 id 2
	// page 2 id 3
	// page 2 id 4
	// page 3 id 5
}

// A complete program, here against an embedded cqlsim server.
func Example() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	cluster := gocql.NewCluster(sim.Addrs()...) // your cluster's addresses
	cluster.Consistency = gocql.One
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	var key string
	if err := session.Query("SELECT key FROM system.local").Scan(&key); err != nil {
		log.Fatal(err)
	}
	fmt.Println("connected; system.local's key is", key)
	// Output: connected; system.local's key is local
}
