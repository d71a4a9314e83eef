package engine

import (
	"testing"
	"time"
)

func BenchmarkPreparedRead(b *testing.B) {
	e, err := New(Options{Now: func() time.Time { return time.Unix(1700000000, 0) }})
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
	} {
		if _, err := e.Execute(&Request{Consistency: 1, Query: q}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 1000; i++ {
		if _, err := e.Execute(&Request{Consistency: 1, Keyspace: "ks", Query: "INSERT INTO t (k, v) VALUES (?, 'value')", Values: Values{Positional: []Value{intVal(int32(i))}}}); err != nil {
			b.Fatal(err)
		}
	}
	p, err := e.Prepare("ks", "SELECT k, v FROM t WHERE k = ?")
	if err != nil {
		b.Fatal(err)
	}
	req := &Request{Consistency: 1, Prepared: p, Values: Values{Positional: []Value{intVal(42)}}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := e.Execute(req)
		if err != nil || len(r.Rows) != 1 {
			b.Fatal(err)
		}
	}
}
