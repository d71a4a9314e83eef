package native_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// v5Session opens a session speaking protocol v5 on a fresh keyspace: on the nodes of
// CQL_HOSTS (Cassandra 4.0 and later speak v5), or on a cqlsim node serving v5.
func v5Session(t *testing.T, mod ...func(*native.Config)) (*native.Session, string, []string) {
	t.Helper()
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		hosts = cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5}).Addrs()
	}
	ks := cqltest.KeyspaceName(t)
	adminExec(t, hosts, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { _ = adminExecErr(hosts, "DROP KEYSPACE IF EXISTS "+ks) })
	cfg := native.Config{Hosts: hosts, Keyspace: ks, Timeout: 30 * time.Second, ProtocolVersion: 5}
	for _, m := range mod {
		m(&cfg)
	}
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("Connect at v5: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if v := s.ProtocolVersion(); v != 5 {
		t.Fatalf("ProtocolVersion() = %d, want 5", v)
	}
	return s, ks, hosts
}

// TestProtocolV5Session runs the common requests at v5, with and without lz4: prepared writes
// and reads from many goroutines, paging, a batch, a conditional write, and a large value.
func TestProtocolV5Session(t *testing.T) {
	for _, comp := range []string{"", "lz4"} {
		t.Run("compression="+comp, func(t *testing.T) {
			s, _, _ := v5Session(t, func(c *native.Config) { c.Compression = comp })
			ctx := ctxT(t)
			mustExec(t, s, "CREATE TABLE kv (k int, c int, v text, PRIMARY KEY (k, c))")
			ins := mustPrepare(t, s, "INSERT INTO kv (k, c, v) VALUES (?, ?, ?)")
			var wg sync.WaitGroup
			errs := make(chan error, 200)
			for i := 0; i < 200; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					if _, err := s.Execute(ctx, ins.Bind(i%4, i, fmt.Sprint("v", i))); err != nil {
						errs <- err
					}
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}

			sel := mustPrepare(t, s, "SELECT c, v FROM kv WHERE k = ?")
			n := 0
			for row, err := range execT(t, s, sel.Bind(1).WithPageSize(7)).All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				var c int
				var v string
				if err := row.Scan(&c, &v); err != nil {
					t.Fatal(err)
				}
				if c%4 != 1 || v != fmt.Sprint("v", c) {
					t.Fatalf("row %d: c=%d v=%q", n, c, v)
				}
				n++
			}
			if n != 50 {
				t.Fatalf("read %d rows over pages of 7, want 50", n)
			}

			b := native.NewBatch(native.LoggedBatch, ins.Bind(9, 1, "a"), native.Query("INSERT INTO kv (k, c, v) VALUES (9, 2, 'b')"))
			if _, err := s.ExecuteBatch(ctx, b); err != nil {
				t.Fatalf("batch: %v", err)
			}
			if got := execT(t, s, native.Query("SELECT v FROM kv WHERE k = 9")).Len(); got != 2 {
				t.Fatalf("batch wrote %d rows, want 2", got)
			}

			lwt := native.Query("INSERT INTO kv (k, c, v) VALUES (10, 1, 'first') IF NOT EXISTS")
			for i, want := range []bool{true, false} {
				res, err := s.Execute(ctx, lwt)
				if err != nil {
					t.Fatal(err)
				}
				if applied := res.Applied(); applied != want {
					t.Fatalf("conditional insert %d: applied %v, want %v", i, applied, want)
				}
			}

			big := strings.Repeat("0123456789abcdef", 200_000) // 3.2 MB: many segments each way
			mustExec(t, s, "INSERT INTO kv (k, c, v) VALUES (11, 1, ?)", big)
			row := mustRow(t, execT(t, s, native.Query("SELECT v FROM kv WHERE k = 11")), 0)
			var got string
			if err := row.Scan(&got); err != nil || got != big {
				t.Fatalf("large value read back: %d bytes (%v), want %d", len(got), err, len(big))
			}
		})
	}
}

// TestProtocolV5StatementKeyspace runs statements and a batch in another keyspace than the
// session's, which only v5 can say; a prepared statement refuses it.
func TestProtocolV5StatementKeyspace(t *testing.T) {
	s, _, hosts := v5Session(t)
	ctx := ctxT(t)
	other := cqltest.KeyspaceName(t) + "_other"
	adminExec(t, hosts, "CREATE KEYSPACE "+other+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { _ = adminExecErr(hosts, "DROP KEYSPACE IF EXISTS "+other) })
	adminExec(t, hosts, "CREATE TABLE "+other+".t (k int PRIMARY KEY, v text)")
	mustExec(t, s, "CREATE TABLE t (k int PRIMARY KEY, v text)") // the session keyspace's t

	if _, err := s.Execute(ctx, native.Query("INSERT INTO t (k, v) VALUES (1, 'other')").WithKeyspace(other)); err != nil {
		t.Fatalf("insert with WithKeyspace: %v", err)
	}
	b := native.NewBatch(native.LoggedBatch, native.Query("INSERT INTO t (k, v) VALUES (2, 'other')")).WithKeyspace(other)
	if _, err := s.ExecuteBatch(ctx, b); err != nil {
		t.Fatalf("batch with WithKeyspace: %v", err)
	}
	if n := execT(t, s, native.Query("SELECT k FROM t")).Len(); n != 0 {
		t.Fatalf("the session keyspace's table has %d rows, want 0", n)
	}
	res := execT(t, s, native.Query("SELECT k, v FROM t WHERE k IN (1, 2)").WithKeyspace(other))
	if res.Len() != 2 {
		t.Fatalf("WithKeyspace read %d rows of the other keyspace, want 2", res.Len())
	}
	inner := native.NewBatch(native.LoggedBatch, native.Query("INSERT INTO t (k, v) VALUES (3, 'x')").WithKeyspace(other))
	if _, err := s.ExecuteBatch(ctx, inner); !errors.Is(err, native.ErrUnsupported) {
		t.Fatalf("a batch statement with its own keyspace: %v, want ErrUnsupported (only the batch's is sent)", err)
	}
	p := mustPrepare(t, s, "SELECT v FROM t WHERE k = ?")
	if _, err := s.Execute(ctx, p.Bind(1).WithKeyspace(other)); !errors.Is(err, native.ErrUnsupported) {
		t.Fatalf("a prepared statement with WithKeyspace: %v, want ErrUnsupported", err)
	}
}

// TestProtocolV5ResultMetadataChange: a column is added to the table of a prepared SELECT *,
// and another client prepares the statement again on every node (nodes forget a table's
// statements when it changes). Executing the statement, whose id the node knows again, with its old result
// metadata id, gets the new columns with a new id, which the session keeps: no re-prepare (at
// v4 the rows would come without metadata and the session would have to prepare again), and
// the rows and Prepared.Columns have the new column.
func TestProtocolV5ResultMetadataChange(t *testing.T) {
	var mu sync.Mutex
	reprepares := 0
	s, ks, hosts := v5Session(t, func(c *native.Config) {
		c.Observer = func(_ context.Context, a native.Attempt) {
			if a.Reprepare {
				mu.Lock()
				reprepares++
				mu.Unlock()
			}
		}
	})
	other, err := native.Connect(ctxT(t), native.Config{Hosts: hosts, Keyspace: ks, ProtocolVersion: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 'x')")
	const cql = "SELECT * FROM kv WHERE k = ?"
	sel := mustPrepare(t, s, cql)
	execT(t, s, sel.Bind(1))
	mustExec(t, s, "ALTER TABLE kv ADD w int")
	mustExec(t, s, "UPDATE kv SET w = 7 WHERE k = 1")
	// The other session prepares the statement again on one node (it forgot it), and this
	// session's executions go to that node, which knows the id. (On a cluster, a node this
	// session reached otherwise could answer UNPREPARED, and the session would prepare again,
	// as designed.)
	node := s.Hosts()[0].Addr
	execT(t, other, mustPrepare(t, other, cql).Bind(1).WithHost(node))
	before := sel.Columns()
	mu.Lock()
	reprepares = 0 // before the ALTER, a node this session had not prepared on may have asked
	mu.Unlock()
	for i := 0; i < 3; i++ {
		res := execT(t, s, sel.Bind(1).WithHost(node))
		m, err := mustRow(t, res, 0).Map()
		if err != nil {
			t.Fatal(err)
		}
		if m["w"] != int32(7) || len(res.Columns()) != 3 || len(sel.Columns()) != 3 {
			t.Fatalf("execution %d after ALTER: row %v, result columns %v, prepared columns %v (before: %v)", i, m, res.Columns(), sel.Columns(), before)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if reprepares != 0 {
		t.Errorf("%d re-prepares after the column was added, want none at v5", reprepares)
	}
}

func TestProtocolV5Refusals(t *testing.T) {
	_, err := native.Connect(context.Background(), native.Config{Hosts: []string{"127.0.0.1:1"}, ProtocolVersion: 5, Compression: "snappy"})
	if err == nil || !strings.Contains(err.Error(), "lz4") {
		t.Errorf("v5 with snappy: %v, want an error naming lz4", err)
	}
	_, err = native.Connect(context.Background(), native.Config{Hosts: []string{"127.0.0.1:1"}, ProtocolVersion: 6})
	if err == nil || !strings.Contains(err.Error(), "3, 4 and 5") {
		t.Errorf("ProtocolVersion 6: %v", err)
	}
}

// execT executes st and fails the test on an error.
func execT(t *testing.T, s *native.Session, st native.Statement) *native.Result {
	t.Helper()
	res, err := s.Execute(ctxT(t), st)
	if err != nil {
		t.Fatalf("%s: %v", st.CQL(), err)
	}
	return res
}
