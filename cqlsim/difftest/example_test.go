package difftest_test

import (
	"fmt"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/cqlsim/difftest"
)

// ExampleRun runs a short scenario against an embedded cqlsim cluster and prints the outcomes
// that the differential test compares with a real node.
func ExampleRun() {
	sim, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		panic(err)
	}
	defer sim.Close()
	cluster := gocql.NewCluster(sim.Addrs()[0])
	cluster.ProtoVersion = 4
	s, err := cluster.CreateSession()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	out := difftest.Run(s, "example", []difftest.Step{
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TABLE {ks}.t (k int PRIMARY KEY, v text)"},
		{Query: "INSERT INTO {ks}.t (k, v) VALUES (?, ?) IF NOT EXISTS", Args: []any{1, "one"}},
		{Query: "INSERT INTO {ks}.t (k, v) VALUES (?, ?) IF NOT EXISTS", Args: []any{1, "uno"}},
		{Query: "SELECT * FROM {ks}.t"},
		{Query: "SELECT * FROM {ks}.nope"},
	})
	for _, o := range out[2:] {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(o.Columns, o.Rows, o.Code, o.Error)))
	}
	// Output:
	// [[applied] boolean] [[applied]=true] 0
	// [[applied] boolean k int v varchar] [[applied]=false k=1 v=one] 0
	// [k int v varchar] [k=1 v=one] 0
	// [] [] 8704 table nope does not exist
}
