package native_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// reviewKeyspace is the keyspace the paging review tests use on a real server (CQL_HOSTS).
const reviewKeyspace = "review_native"

// reviewSession connects to the server of CQL_HOSTS, in keyspace review_native, or else to
// an embedded cqlsim node. It returns the session, its hosts and a table name unique to the
// test (not created).
func reviewSession(t *testing.T, mod ...func(*native.Config)) (*native.Session, []string, string) {
	t.Helper()
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		hosts = cqlsim.StartT(t, cqlsim.Options{}).Addrs()[:1]
	}
	adminExec(t, hosts, "CREATE KEYSPACE IF NOT EXISTS "+reviewKeyspace+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	var b [4]byte
	_, _ = rand.Read(b[:])
	table := "t" + hex.EncodeToString(b[:])
	cfg := native.Config{Hosts: hosts, Keyspace: reviewKeyspace, Timeout: 30 * time.Second}
	for _, m := range mod {
		m(&cfg)
	}
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		if err := adminExecErr(hosts, "DROP TABLE IF EXISTS "+reviewKeyspace+"."+table); err != nil {
			t.Logf("dropping %s: %v", table, err)
		}
	})
	return s, hosts, table
}

// ExecuteAsync's doc promises that binding errors complete the Pending immediately: it is
// already complete, with a *BindError, when ExecuteAsync returns.
func TestReviewExecuteAsyncBindErrorCompletesImmediately(t *testing.T) {
	s, _, table := reviewSession(t)
	mustExec(t, s, fmt.Sprintf("CREATE TABLE %s (k int PRIMARY KEY, v text)", table))
	ins := mustPrepare(t, s, fmt.Sprintf("INSERT INTO %s (k, v) VALUES (?, ?)", table))
	for name, stmt := range map[string]native.Statement{
		"count":  ins.Bind(1),
		"type":   ins.Bind("one", "x"),
		"simple": native.Query(fmt.Sprintf("INSERT INTO %s (k, v) VALUES (?, ?)", table), 1, struct{}{}),
	} {
		for range 20 {
			p := s.ExecuteAsync(ctxT(t), stmt)
			select {
			case <-p.Done():
			default:
				t.Fatalf("%s: the Pending of a statement that cannot be bound is not complete when ExecuteAsync returns", name)
			}
			var be *native.BindError
			if _, err := p.Result(); !errors.As(err, &be) {
				t.Fatalf("%s: %v, want a *BindError", name, err)
			}
		}
	}
}

// Get[int] of a bigint that does not fit in an int fails with ErrOutOfRange as Scan does,
// instead of truncating it. Only 32-bit platforms (int of 32 bits) can truncate; on 64-bit
// ones the test checks that Get and Scan agree on the value.
func TestReviewGetIntOutOfRange(t *testing.T) {
	s, _, table := reviewSession(t)
	mustExec(t, s, fmt.Sprintf("CREATE TABLE %s (k int PRIMARY KEY, b bigint)", table))
	const big = int64(1) << 40
	mustExec(t, s, fmt.Sprintf("INSERT INTO %s (k, b) VALUES (1, %d)", table, big))
	row, ok := mustExec(t, s, fmt.Sprintf("SELECT b FROM %s WHERE k = 1", table)).First()
	if !ok {
		t.Fatal("no row")
	}
	var scanned int
	scanErr := row.Scan(&scanned)
	got, err := native.Get[int](row, 0)
	if (scanErr == nil) != (err == nil) {
		t.Fatalf("Scan into int: %d, %v; Get[int]: %d, %v", scanned, scanErr, got, err)
	}
	if err == nil && int64(got) != big {
		t.Fatalf("Get[int] = %d, want %d", got, big)
	}
	if err != nil && !errors.Is(err, cqltype.ErrOutOfRange) {
		t.Fatalf("Get[int]: %v, want ErrOutOfRange", err)
	}
}
