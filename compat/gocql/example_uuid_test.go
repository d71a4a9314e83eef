package gocql_test

import (
	"fmt"
	"time"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

func ExampleParseUUID() {
	u, err := gocql.ParseUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(u.Version(), u.Time().Format(time.RFC3339Nano))
	// Output: 1 1998-02-04T22:13:53.1511824Z
}

func ExampleParseConsistencyWrapper() {
	c, err := gocql.ParseConsistencyWrapper("local_quorum")
	fmt.Println(c, err)
	_, err = gocql.ParseConsistencyWrapper("quorom")
	fmt.Println(err)
	// Output:
	// LOCAL_QUORUM <nil>
	// invalid consistency "QUOROM"
}
