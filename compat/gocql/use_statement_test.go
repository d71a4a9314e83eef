package gocql_test

import (
	"errors"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestUseAfterSpaceOrCommentRefusedUnlikeGocql pins deviation G69. gocql v1.7.0 refuses a
// statement starting with "use" (ErrUseStmt) but sends one whose USE follows spaces or a
// comment to a connection of its pool, which then resolves the statements it prepares in that
// keyspace while the driver's other connections, and the statements prepared before, keep the
// session's: with one connection, a statement prepared before the USE still reads the session
// keyspace's table, one prepared after it reads system's. The native core would switch the whole
// session to the keyspace; the shim refuses such a statement with ErrUseStmt, as gocql refuses
// "USE ...", and the session stays in its keyspace.
func TestUseAfterSpaceOrCommentRefusedUnlikeGocql(t *testing.T) {
	ks, hosts := cqltest.Keyspace(t)
	cqltest.Exec(t, hosts[0], "CREATE TABLE "+ks+".t (k int PRIMARY KEY)")
	cqltest.Exec(t, hosts[0], "INSERT INTO "+ks+".t (k) VALUES (1)")
	only := hostIP(t, hosts[0])
	uses := []string{
		"  USE system",
		"\n\tuse system;",
		"/* a comment */ USE system",
		"-- a comment\nUSE \"system\"",
		"// a comment\r\nuse system",
	}

	// gocql v1.7.0, with one connection to one node: each USE is sent, and the connection's
	// statements then depend on when they were prepared.
	lc := gocqlv1.NewCluster(hosts[0])
	lc.Keyspace = ks
	lc.NumConns = 1
	lc.Timeout = 30 * time.Second
	lc.HostFilter = gocqlv1.HostFilterFunc(func(h *gocqlv1.HostInfo) bool { return h.ConnectAddress().Equal(only) })
	l, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var n int
	if err := l.Query("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("gocql: reading t before the USE: %d, %v", n, err)
	}
	for _, stmt := range uses {
		if err := l.Query(stmt).Exec(); err != nil {
			t.Errorf("gocql: %q: %v, want it executed (nil)", stmt, err)
		}
	}
	if err := l.Query("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("gocql: the statement prepared before the USE: %d, %v, want 1 row of %s.t", n, err, ks)
	}
	var key string
	if err := l.Query("SELECT key FROM local").Scan(&key); err != nil || key != "local" {
		t.Errorf("gocql: a statement prepared after the USE: %q, %v, want system.local's key", key, err)
	}

	// The shim refuses each USE, before sending it, and the session stays in its keyspace.
	cc := gocql.NewCluster(hosts[0])
	cc.Keyspace = ks
	cc.Timeout = 30 * time.Second
	c, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, stmt := range uses {
		if err := c.Query(stmt).Exec(); !errors.Is(err, gocql.ErrUseStmt) {
			t.Errorf("shim: %q: Exec: %v, want ErrUseStmt", stmt, err)
		}
		if err := c.Query(stmt).Iter().Close(); !errors.Is(err, gocql.ErrUseStmt) {
			t.Errorf("shim: %q: Iter: %v, want ErrUseStmt", stmt, err)
		}
		if _, err := c.Query(stmt).ExecAsync().Result(); !errors.Is(err, gocql.ErrUseStmt) {
			t.Errorf("shim: %q: ExecAsync: %v, want ErrUseStmt", stmt, err)
		}
	}
	if err := c.Query("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("shim: reading t after the refused USEs: %d, %v, want 1 row of %s.t", n, err, ks)
	}
	// Statements that are no USE, though they start with those letters after a comment, run.
	if err := c.Query("/* use */ SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("shim: a SELECT after a comment naming use: %d, %v", n, err)
	}
	if err := c.Query("  SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("shim: a SELECT after spaces: %d, %v", n, err)
	}
}
