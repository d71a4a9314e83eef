package gocql

import (
	"context"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// BenchmarkQueryScan measures a prepared single-row read through the gocql API (int and text
// columns scanned into Go values) against the test server.
func BenchmarkQueryScan(b *testing.B) {
	s, _ := newTestSessionTB(b, "CREATE TABLE KS.kv (p int, c int, v text, PRIMARY KEY (p, c))")
	benchScan(b, s, 1, nil)
}

// benchScan writes one row under partition key p and reads it b.N times, each query passed
// through wrap when it is not nil.
func benchScan(b *testing.B, s *Session, p int, wrap func(*Query) *Query) {
	if err := s.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", p, 1, "one").Exec(); err != nil {
		b.Fatal(err)
	}
	var c int
	var v string
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := s.Query("SELECT c, v FROM kv WHERE p = ? AND c = ?", p, 1)
		if wrap != nil {
			q = wrap(q)
		}
		if err := q.Scan(&c, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryExecInsert measures a prepared insert through the gocql API.
func BenchmarkQueryExecInsert(b *testing.B) {
	s, _ := newTestSessionTB(b, "CREATE TABLE KS.kv (p int, c int, v text, PRIMARY KEY (p, c))")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 1, i, "v").Exec(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryScanContext is BenchmarkQueryScan written as cmd/cqlbench's compat driver
// does it: WithContext (a shallow copy of the query) and a key above 255, whose boxing
// allocates.
func BenchmarkQueryScanContext(b *testing.B) {
	s, _ := newTestSessionTB(b, "CREATE TABLE KS.kv (p int, c int, v text, PRIMARY KEY (p, c))")
	ctx := context.Background()
	benchScan(b, s, 1000, func(q *Query) *Query { return q.WithContext(ctx) })
}

// BenchmarkQueryScanTokenAware is BenchmarkQueryScan with TokenAwareHostPolicy: the routing
// key, the replica lookup on the cached token ring and the plan add to each query.
func BenchmarkQueryScanTokenAware(b *testing.B) {
	_, ks := newTestSessionTB(b, "CREATE TABLE KS.kv (p int, c int, v text, PRIMARY KEY (p, c))")
	cluster := NewCluster(cqltest.Hosts(b)...)
	cluster.Keyspace = ks
	cluster.Timeout = 30 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = TokenAwareHostPolicy(RoundRobinHostPolicy())
	s, err := cluster.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchScan(b, s, 1000, nil)
}

// BenchmarkIterScanPages reads a 1000-row partition in pages of 100 through Iter.Scan, as
// cqlbench's read_page workload does; allocations are per 1000 rows.
func BenchmarkIterScanPages(b *testing.B) {
	s, _ := newTestSessionTB(b, "CREATE TABLE KS.kv (p int, c int, v text, PRIMARY KEY (p, c))")
	for c := range 1000 {
		if err := s.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 7, c, "value-of-some-length").Exec(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		iter := s.Query("SELECT c, v FROM kv WHERE p = ?", 7).PageSize(100).Iter()
		var c, rows int
		var v string
		for iter.Scan(&c, &v) {
			rows++
		}
		if err := iter.Close(); err != nil {
			b.Fatal(err)
		}
		if rows != 1000 {
			b.Fatalf("read %d rows, want 1000", rows)
		}
	}
}
