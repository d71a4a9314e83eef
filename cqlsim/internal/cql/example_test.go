package cql_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

func ExampleParse() {
	p, err := cql.Parse("SELECT k, v FROM ks.t WHERE k = ? LIMIT 10")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := p.Stmt.(*cql.Select)
	fmt.Println(s.Table.Keyspace, s.Table.Name, len(s.Selectors), p.Markers)

	_, err = cql.Parse("SELECT * FORM t")
	fmt.Println(err)
	// Output:
	// ks t 2 1
	// line 1:9 mismatched input 'FORM' expecting K_FROM (SELECT * [FORM]...)
}
