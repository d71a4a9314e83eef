package engine_test

import (
	"encoding/binary"
	"fmt"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
)

func Example() {
	e, err := engine.New(engine.Options{})
	if err != nil {
		panic(err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
		"INSERT INTO ks.t (k, v) VALUES (1, 'one')",
	} {
		if _, err := e.Execute(&engine.Request{Consistency: 1, Query: q}); err != nil {
			panic(err)
		}
	}
	p, err := e.Prepare("ks", "SELECT k, v FROM t WHERE k = ?")
	if err != nil {
		panic(err)
	}
	k := binary.BigEndian.AppendUint32(nil, 1)
	res, err := e.Execute(&engine.Request{Consistency: 1, Prepared: p, Values: engine.Values{Positional: []engine.Value{{Bytes: k}}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Vars[0].Name, p.PKIndexes, res.Columns[1].Name, string(res.Rows[0][1]))

	_, err = e.Execute(&engine.Request{Consistency: 1, Keyspace: "ks", Query: "SELECT nope FROM t"})
	fmt.Println(err)
	// Output:
	// k [0] v one
	// Undefined column name nope in table ks.t
}
