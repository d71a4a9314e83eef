package native_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// adminExec runs set-up CQL on the test server (see adminExecErr).
func adminExec(t testing.TB, hosts []string, cql string) {
	t.Helper()
	if err := adminExecErr(hosts, cql); err != nil {
		t.Fatal(err)
	}
}

// adminExecErr runs one statement for test set-up on the first host through cqltest, whose
// DDL waits for schema agreement, independently of the code under test.
func adminExecErr(hosts []string, cql string) error {
	return cqltest.ExecErr(hosts[0], cql)
}

// testKeyspace creates a keyspace for the test (replication factor rf) and drops it at the end.
func testKeyspace(t testing.TB, rf int) (string, []string) {
	t.Helper()
	hosts := cqltest.Hosts(t)
	ks := cqltest.KeyspaceName(t)
	adminExec(t, hosts, fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}", ks, rf))
	t.Cleanup(func() {
		if err := adminExecErr(hosts, "DROP KEYSPACE IF EXISTS "+ks); err != nil {
			t.Logf("dropping %s: %v", ks, err)
		}
	})
	return ks, hosts
}

// connect opens a session on a fresh keyspace of the test server.
func connect(t testing.TB, mod ...func(*native.Config)) (*native.Session, string) {
	t.Helper()
	ks, hosts := testKeyspace(t, 1)
	cfg := native.Config{Hosts: hosts, Keyspace: ks, Timeout: 30 * time.Second}
	for _, m := range mod {
		m(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := native.Connect(ctx, cfg)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ks
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustExec(t testing.TB, s *native.Session, cql string, values ...any) *native.Result {
	t.Helper()
	res, err := s.Execute(ctxT(t), native.Query(cql, values...))
	if err != nil {
		t.Fatalf("%s: %v", cql, err)
	}
	return res
}

func TestSmoke(t *testing.T) {
	s, _ := connect(t)
	res := mustExec(t, s, "SELECT release_version FROM system.local")
	t.Logf("kind %s, %d rows, cols %v, host %s", res.Kind(), res.Len(), res.Columns(), res.Host())
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	p, err := s.Prepare(ctxT(t), "INSERT INTO kv (k, v) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(ctxT(t), p.Bind(1, "one")); err != nil {
		t.Fatal(err)
	}
	sel, err := s.Prepare(ctxT(t), "SELECT k, v FROM kv WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.Execute(ctxT(t), sel.Bind(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Len(), s.Hosts())
}
