package gocql

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// lz4Named is a Compressor named lz4 (gocql's own lz4 compressor lives in another module);
// the shim compresses by name in the native core.
type lz4Named struct{ SnappyCompressor }

func (lz4Named) Name() string { return "lz4" }

// ProtoVersion 5 speaks protocol v5 (docs/deviations.md G46), with and without lz4: statements,
// prepared statements, paging and a batch, on the node of CQL_HOSTS and on a cqlsim node
// serving v5. gocql v1.7.0 fails to connect to the same node.
func TestProtoVersion5(t *testing.T) {
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		hosts = cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5}).Addrs()
	}
	ks := cqltest.KeyspaceName(t)
	cqltest.Exec(t, hosts[0], "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { _ = cqltest.ExecErr(hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	cqltest.Exec(t, hosts[0], "CREATE TABLE "+ks+".t (p int, c int, v text, PRIMARY KEY (p, c))")

	for _, comp := range []Compressor{nil, lz4Named{}} {
		c := NewCluster(hosts...)
		c.ProtoVersion = 5
		c.Keyspace = ks
		c.Compressor = comp
		c.Timeout = 30 * time.Second
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("CreateSession at v5 (compressor %v): %v", comp, err)
		}
		ins := "INSERT INTO t (p, c, v) VALUES (?, ?, ?)"
		for i := 0; i < 10; i++ {
			if err := s.Query(ins, 1, i, fmt.Sprint("v", i)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
		b := s.NewBatch(LoggedBatch)
		b.Query(ins, 1, 10, "b")
		b.Query("INSERT INTO t (p, c, v) VALUES (1, 11, 'b')")
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatalf("batch: %v", err)
		}
		iter := s.Query("SELECT c, v FROM t WHERE p = ?", 1).PageSize(3).Iter()
		var n, cc int
		var v string
		for iter.Scan(&cc, &v) {
			n++
		}
		if err := iter.Close(); err != nil || n != 12 {
			t.Fatalf("paged read at v5: %d rows, %v; want 12", n, err)
		}
		s.Close()
	}

	c := NewCluster(hosts...)
	c.ProtoVersion = 5
	c.Compressor = SnappyCompressor{}
	if s, err := c.CreateSession(); err == nil || !strings.Contains(err.Error(), "lz4") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("v5 with snappy: %v, want an error naming lz4", err)
	}

	legacy := gocqlv1.NewCluster(hosts...)
	legacy.ProtoVersion = 5
	legacy.ConnectTimeout = 5 * time.Second
	if s, err := legacy.CreateSession(); err == nil {
		s.Close()
		t.Fatalf("gocql v1.7.0 connected at v5: the deviation G46 no longer holds")
	}
}
