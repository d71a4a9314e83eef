package gocql_test

import (
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestReviewClassNamedColumnTypes compares a column declared by a marshal class gocql v1.7.0
// reads as a CQL type ('org.apache.cassandra.db.marshal.LexicalUUIDType', a uuid compared
// byte by byte), and a duration column, which Cassandra describes by its class under protocol
// v4: the columns' TypeInfo (type, class, name), a UUID bound to the LexicalUUIDType column and
// read back. gocql v1.7.0's own TestLexicalUUIDType, which scripts/gocql-suite runs, found the
// first. Cassandra only: cqlsim does not take class-named column types.
func TestReviewClassNamedColumnTypes(t *testing.T) {
	if cqltest.HostsFromEnv() == nil {
		t.Skip("class-named column types need a real Cassandra (CQL_HOSTS)")
	}
	p := newDiffPair(t, `CREATE TABLE KS.review_lexical (k text, c 'org.apache.cassandra.db.marshal.LexicalUUIDType', d duration, PRIMARY KEY (k, c))`)
	const id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	var lt, ct trace
	{
		tr := &lt
		u, err := gocqlv1.ParseUUID(id)
		tr.add("parse", err)
		tr.add("insert", p.legacy.Query(`INSERT INTO review_lexical (k, c, d) VALUES ('legacy', ?, 1h)`, u).Exec())
		it := p.legacy.Query(`SELECT c, d FROM review_lexical WHERE k = 'legacy' AND c = ?`, u).Iter()
		for _, col := range it.Columns() {
			tr.add("column "+col.Name, int(col.TypeInfo.Type()), col.TypeInfo.Custom(), col.TypeInfo)
		}
		var got gocqlv1.UUID
		var d gocqlv1.Duration
		tr.add("scan", it.Scan(&got, &d), got.String(), d, it.Close())
	}
	{
		tr := &ct
		u, err := gocql.ParseUUID(id)
		tr.add("parse", err)
		tr.add("insert", p.compat.Query(`INSERT INTO review_lexical (k, c, d) VALUES ('compat', ?, 1h)`, u).Exec())
		it := p.compat.Query(`SELECT c, d FROM review_lexical WHERE k = 'compat' AND c = ?`, u).Iter()
		for _, col := range it.Columns() {
			tr.add("column "+col.Name, int(col.TypeInfo.Type()), col.TypeInfo.Custom(), col.TypeInfo)
		}
		var got gocql.UUID
		var d gocql.Duration
		tr.add("scan", it.Scan(&got, &d), got.String(), d, it.Close())
	}
	sameTrace(t, &lt, &ct)
}
