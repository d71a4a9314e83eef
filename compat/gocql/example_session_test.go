package gocql_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// NewCluster starts from gocql v1.7.0's defaults.
func ExampleNewCluster() {
	cluster := gocql.NewCluster("127.0.0.1")
	fmt.Println(cluster.Consistency, cluster.PageSize, cluster.Timeout, cluster.Port)
	// Output: QUORUM 5000 11s 9042
}

// Builder methods change the query they are called on and return it; WithContext is the
// exception and returns a copy.
func ExampleQuery_PageState() {
	var session *gocql.Session // from cluster.CreateSession()
	if session == nil {
		return
	}
	iter := session.Query("SELECT id FROM users").PageSize(100).Iter()
	state := iter.PageState() // resume point after the first page
	iter.Close()
	// Later: read the next page only (PageState disables automatic paging).
	iter = session.Query("SELECT id FROM users").PageSize(100).PageState(state).Iter()
	var id int
	for iter.Scan(&id) {
		fmt.Println(id)
	}
	if err := iter.Close(); err != nil {
		log.Print(err)
	}
}

// A complete program against the cluster named by CQL_HOSTS.
func Example() {
	hosts := os.Getenv("CQL_HOSTS")
	if hosts == "" {
		return
	}
	cluster := gocql.NewCluster(strings.Split(hosts, ",")...)
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	var version string
	if err := session.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		log.Fatal(err)
	}
	fmt.Println("connected to Cassandra", version)
}
