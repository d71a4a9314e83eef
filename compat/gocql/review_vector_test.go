package gocql_test

import (
	"testing"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestReviewUnknownTypeColumns compares RowData, MapScan and SliceMap on a column of a type
// gocql v1.7.0 has no Go type for (a vector, a custom type to protocol v4). Cassandra 5 only.
func TestReviewUnknownTypeColumns(t *testing.T) {
	if cqltest.HostsFromEnv() == nil {
		t.Skip("vectors need a real Cassandra 5 (CQL_HOSTS)")
	}
	p := newDiffPair(t, "CREATE TABLE KS.review_vec (p int PRIMARY KEY, v vector<float, 2>)")
	if err := p.legacy.Query("INSERT INTO review_vec (p, v) VALUES (1, [1.0, 2.0])").Exec(); err != nil {
		t.Fatal(err)
	}
	const sel = "SELECT p, v FROM review_vec"
	var lt, ct trace
	{
		tr := &lt
		rd, err := p.legacy.Query(sel).Iter().RowData()
		tr.add("rowdata", rd.Columns, len(rd.Values), err)
		it := p.legacy.Query(sel).Iter()
		m := map[string]interface{}{}
		tr.add("mapscan", it.MapScan(m), m, it.Close())
		rows, err := p.legacy.Query(sel).Iter().SliceMap()
		tr.add("slicemap", rows == nil, len(rows), err)
		m = map[string]interface{}{}
		tr.add("query mapscan", p.legacy.Query(sel).MapScan(m), m)
	}
	{
		tr := &ct
		rd, err := p.compat.Query(sel).Iter().RowData()
		tr.add("rowdata", rd.Columns, len(rd.Values), err)
		it := p.compat.Query(sel).Iter()
		m := map[string]interface{}{}
		tr.add("mapscan", it.MapScan(m), m, it.Close())
		rows, err := p.compat.Query(sel).Iter().SliceMap()
		tr.add("slicemap", rows == nil, len(rows), err)
		m = map[string]interface{}{}
		tr.add("query mapscan", p.compat.Query(sel).MapScan(m), m)
	}
	sameTrace(t, &lt, &ct)
}
