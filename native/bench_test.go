package native_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// benchSessions opens a native session and a gocql v1.7.0 session on the same keyspace of
// the same server, with a table kv (k int PRIMARY KEY, v text) holding row 1.
func benchSessions(b *testing.B) (*native.Session, *gocql.Session) {
	b.Helper()
	ks, hosts := testKeyspace(b, 1)
	adminExec(b, hosts, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	adminExec(b, hosts, "INSERT INTO "+ks+".kv (k, v) VALUES (1, 'hello world')")
	ns, err := native.Connect(context.Background(), native.Config{Hosts: hosts, Keyspace: ks, Consistency: native.One})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ns.Close() })
	cluster := gocql.NewCluster(hosts...)
	cluster.Keyspace = ks
	cluster.Consistency = gocql.One
	gs, err := cluster.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(gs.Close)
	return ns, gs
}

const (
	benchSelect = "SELECT k, v FROM kv WHERE k = ?"
	benchInsert = "INSERT INTO kv (k, v) VALUES (?, ?)"
)

// BenchmarkReadPrepared reads one row (an int and a text column) with a prepared statement
// and scans both columns into Go values.
func BenchmarkReadPrepared(b *testing.B) {
	ns, gs := benchSessions(b)
	ctx := context.Background()
	b.Run("native", func(b *testing.B) {
		sel, err := ns.Prepare(ctx, benchSelect)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			res, err := ns.Execute(ctx, sel.Bind(1))
			if err != nil {
				b.Fatal(err)
			}
			row, ok := res.First()
			if !ok {
				b.Fatal("no row")
			}
			k, err := native.Get[int](row, 0)
			if err != nil {
				b.Fatal(err)
			}
			v, err := native.Get[string](row, 1)
			if err != nil || k != 1 || v != "hello world" {
				b.Fatal(k, v, err)
			}
		}
	})
	b.Run("native-scan", func(b *testing.B) {
		sel, err := ns.Prepare(ctx, benchSelect)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			res, err := ns.Execute(ctx, sel.Bind(1))
			if err != nil {
				b.Fatal(err)
			}
			row, _ := res.First()
			var k int
			var v string
			if err := row.Scan(&k, &v); err != nil || k != 1 {
				b.Fatal(k, v, err)
			}
		}
	})
	b.Run("gocql", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var k int
			var v string
			if err := gs.Query(benchSelect, 1).Scan(&k, &v); err != nil || k != 1 {
				b.Fatal(k, v, err)
			}
		}
	})
}

// BenchmarkInsertPrepared inserts one row (an int and a text column) with a prepared
// statement.
func BenchmarkInsertPrepared(b *testing.B) {
	ns, gs := benchSessions(b)
	ctx := context.Background()
	b.Run("native", func(b *testing.B) {
		ins, err := ns.Prepare(ctx, benchInsert)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if _, err := ns.Execute(ctx, ins.Bind(i, "a value")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gocql", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			if err := gs.Query(benchInsert, i, "a value").Exec(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadPreparedParallel is BenchmarkReadPrepared with many goroutines sharing one
// session (64 per CPU), which measures throughput rather than latency.
func BenchmarkReadPreparedParallel(b *testing.B) {
	ns, gs := benchSessions(b)
	ctx := context.Background()
	b.Run("native", func(b *testing.B) { readParallel(b, ns) })
	b.Run("native-v5", func(b *testing.B) {
		// The same on a protocol v5 session: the cost of v5's checksummed segments.
		v5, err := native.Connect(ctx, native.Config{Hosts: cqltest.Hosts(b), Keyspace: ns.Keyspace(), Consistency: native.One, ProtocolVersion: 5})
		if err != nil {
			b.Skipf("the server does not speak protocol v5: %v", err)
		}
		defer v5.Close()
		readParallel(b, v5)
	})
	b.Run("gocql", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(64)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				var k int
				var v string
				if err := gs.Query(benchSelect, 1).Scan(&k, &v); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// readParallel reads row 1 with a prepared statement from 64 goroutines per processor.
func readParallel(b *testing.B, s *native.Session) {
	sel, err := s.Prepare(context.Background(), benchSelect)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := s.Execute(context.Background(), sel.Bind(1))
			if err != nil {
				b.Error(err)
				return
			}
			row, _ := res.First()
			if v, err := native.Get[string](row, 1); err != nil || v != "hello world" {
				b.Error(v, err)
				return
			}
		}
	})
}

// reportCPU reports the process's CPU time per operation since start as "cpu-ns/op" (on
// Linux). With CQL_HOSTS set the server is another process and this is the client's cost; on
// the embedded cqlsim it includes the server's.
func reportCPU(b *testing.B, start time.Duration) {
	if end := processCPU(); end > 0 && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkReadPreparedAsync reads row 1 as BenchmarkReadPreparedParallel does, but from one
// goroutine that keeps 64 requests in flight with ExecuteAsync (a pipeline): the cost of the
// asynchronous API next to the synchronous one at the same concurrency ("sync"). Against a
// server in another process (CQL_HOSTS), cpu-ns/op compares the client's CPU per request.
func BenchmarkReadPreparedAsync(b *testing.B) {
	ns, _ := benchSessions(b)
	ctx := context.Background()
	sel, err := ns.Prepare(ctx, benchSelect)
	if err != nil {
		b.Fatal(err)
	}
	check := func(res *native.Result, err error) bool {
		if err != nil {
			b.Error(err)
			return false
		}
		row, _ := res.First()
		if v, err := native.Get[string](row, 1); err != nil || v != "hello world" {
			b.Error(v, err)
			return false
		}
		return true
	}
	const window = 64
	b.Run("async", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		ring := make([]*native.Pending, 0, window)
		for i := range b.N {
			if len(ring) == window {
				if !check(ring[i%window].Result()) {
					return
				}
				ring[i%window] = ns.ExecuteAsync(ctx, sel.Bind(1))
				continue
			}
			ring = append(ring, ns.ExecuteAsync(ctx, sel.Bind(1)))
		}
		for _, p := range ring {
			if !check(p.Result()) {
				return
			}
		}
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism((window + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		defer reportCPU(b, processCPU())
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !check(ns.Execute(ctx, sel.Bind(1))) {
					return
				}
			}
		})
	})
}

// batchSink keeps BenchmarkBuildBatch's batches alive, so that building them is not optimized
// away.
var batchSink native.Batch

// BenchmarkBuildBatch binds a prepared statement 10 times into a slice and makes a batch of
// them with options compat sets on every batch, without executing it: the cost
// of the statements' memory (allocating, clearing and scanning it). The values are made
// beforehand, so that their allocation does not hide it.
func BenchmarkBuildBatch(b *testing.B) {
	s, _ := connect(b)
	if _, err := s.Execute(context.Background(), native.Query("CREATE TABLE kv (k int PRIMARY KEY, v text)")); err != nil {
		b.Fatal(err)
	}
	ins, err := s.Prepare(context.Background(), benchInsert)
	if err != nil {
		b.Fatal(err)
	}
	var values [10][]any
	for i := range values {
		values[i] = []any{int32(i), "a value"}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		stmts := make([]native.Statement, 0, len(values))
		for _, v := range values {
			stmts = append(stmts, ins.Bind(v...))
		}
		batchSink = native.NewBatch(native.UnloggedBatch, stmts...).
			WithConsistency(native.One).WithIdempotent(true).WithTimeout(time.Second)
	}
}
