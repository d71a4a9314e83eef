package smoke

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

func newSession(t *testing.T, keyspace string, hosts []string) *gocql.Session {
	t.Helper()
	cluster := gocql.NewCluster(hosts...)
	cluster.Keyspace = keyspace
	cluster.Consistency = gocql.One
	cluster.Timeout = 20 * time.Second
	cluster.ConnectTimeout = 20 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("gocql.CreateSession(%v): %v", hosts, err)
	}
	t.Cleanup(session.Close)
	return session
}

// TestGocqlSmoke runs the legacy driver against the node: create a table, insert with a prepared
// statement, read back, and page through 1,000 rows with page size 100.
func TestGocqlSmoke(t *testing.T) {
	ks, hosts := cqltest.Keyspace(t)
	s := newSession(t, ks, hosts)

	if err := s.Query(`CREATE TABLE kv (p int, c int, v text, PRIMARY KEY (p, c))`).Exec(); err != nil {
		t.Fatalf("create table: %v", err)
	}
	const rows = 1000
	for i := 0; i < rows; i++ {
		// gocql prepares every DML statement with bind values.
		if err := s.Query(`INSERT INTO kv (p, c, v) VALUES (?, ?, ?)`, i%10, i, "v"+strconv.Itoa(i)).Exec(); err != nil {
			t.Fatalf("insert row %d: %v", i, err)
		}
	}

	var v string
	if err := s.Query(`SELECT v FROM kv WHERE p = ? AND c = ?`, 7, 417).Scan(&v); err != nil {
		t.Fatalf("read back: %v", err)
	}
	if v != "v417" {
		t.Fatalf("read back v = %q, want %q", v, "v417")
	}

	iter := s.Query(`SELECT p, c, v FROM kv`).PageSize(100).Iter()
	seen := make(map[int]bool, rows)
	pages := 1
	var p, c int
	for iter.Scan(&p, &c, &v) {
		if seen[c] {
			t.Fatalf("row c=%d returned twice", c)
		}
		seen[c] = true
		if want := "v" + strconv.Itoa(c); v != want || p != c%10 {
			t.Fatalf("row c=%d: p=%d v=%q, want p=%d v=%q", c, p, v, c%10, want)
		}
		if iter.WillSwitchPage() {
			pages++
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("paging: %v", err)
	}
	if len(seen) != rows {
		t.Fatalf("paged read returned %d distinct rows, want %d", len(seen), rows)
	}
	if pages < rows/100 {
		t.Fatalf("paged read used %d pages, want at least %d with page size 100", pages, rows/100)
	}
}

// TestGocqlSeesAllNodes checks a multi-node cluster (scripts/cassandra up --nodes 3): gocql must
// discover every node. It runs only when CQL_EXPECT_NODES is set: scripts/test's cluster step
// sets it (on three nodes), its other steps run on one node.
func TestGocqlSeesAllNodes(t *testing.T) {
	want := os.Getenv("CQL_EXPECT_NODES")
	if want == "" {
		t.Skip("set CQL_EXPECT_NODES=3 after `scripts/cassandra up --nodes 3` to run this test")
	}
	n, err := strconv.Atoi(want)
	if err != nil {
		t.Fatalf("CQL_EXPECT_NODES=%q is not a number", want)
	}
	hosts := cqltest.Hosts(t)
	s := newSession(t, "", hosts[:1]) // discovery must find the others from one contact point
	var peers []string
	iter := s.Query(`SELECT peer FROM system.peers`).Iter()
	var peer string
	for iter.Scan(&peer) {
		peers = append(peers, peer)
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("system.peers: %v", err)
	}
	if len(peers)+1 != n {
		t.Fatalf("system.peers lists %v (+1 local) = %d nodes, want %d", peers, len(peers)+1, n)
	}
	// Each node must answer as coordinator through the session's pools.
	addrs := map[string]bool{}
	for i := 0; i < 50 && len(addrs) < n; i++ {
		iter := s.Query(`SELECT rpc_address FROM system.local`).Iter()
		var addr string
		iter.Scan(&addr)
		if err := iter.Close(); err != nil {
			t.Fatalf("system.local: %v", err)
		}
		addrs[addr] = true
	}
	if len(addrs) != n {
		keys := make([]string, 0, len(addrs))
		for a := range addrs {
			keys = append(keys, a)
		}
		t.Fatalf("queries reached %d coordinators (%s), want %d", len(addrs), strings.Join(keys, ","), n)
	}
	fmt.Fprintf(os.Stderr, "gocql reached %d nodes\n", n)
}
