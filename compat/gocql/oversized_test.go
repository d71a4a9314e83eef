package gocql

import (
	"crypto/rand"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestQueryAfterOversizedQueryAnsweredUnlikeGocql pins deviation G67: Cassandra 5.0.9 answers a
// v3/v4 request over its frame limit (native_transport_max_frame_size, 16 MiB) with INVALID
// "Request is too big: ...", but leaves a request that reached it in the same read as the end
// of that frame unread until more bytes arrive on the connection. With gocql v1.7.0 such a
// query waits for the connection's next heartbeat (gocql sends one every 5 s), or fails at its
// timeout first; the native core sends an OPTIONS on the connection when it sees that answer,
// and the query is answered at once. A dialer sends the query in the same write as the
// oversized frame's end, so that the node reads them together. Needs a Cassandra node
// (CQL_HOSTS).
func TestQueryAfterOversizedQueryAnsweredUnlikeGocql(t *testing.T) {
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		t.Skipf("%s is unset: the test needs a Cassandra node, whose bug it is about", cqltest.EnvHosts)
	}
	b := make([]byte, 17<<20)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = 'a' + b[i]%26
	}
	big := "SELECT '" + string(b) + "' FROM system.local"
	const small = "SELECT release_version FROM system.local"
	// run sends the oversized query, then, once its frame is written but for its end, the
	// small one, and returns their errors.
	run := func(d *cqltest.TailJoiner, exec func(stmt string) error) (bigErr, smallErr error) {
		done := make(chan error, 1)
		go func() { done <- exec(big) }()
		deadline := time.Now().Add(30 * time.Second)
		for d.Held.Load() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the oversized query was not written")
			}
			time.Sleep(time.Millisecond)
		}
		smallErr = exec(small)
		return <-done, smallErr
	}
	isTooBig := func(err error) bool {
		return err != nil && strings.HasPrefix(err.Error(), "Request is too big: length ")
	}

	d := &cqltest.TailJoiner{MinLen: 1 << 20}
	c := NewCluster(hosts[0])
	c.ProtoVersion = 4
	c.NumConns = 1
	c.Timeout = 3 * time.Second // fails the test, instead of hanging, when the query waits
	c.Dialer = d
	c.HostFilter = WhiteListHostFilter(hosts[0]) // one connection carries both queries
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bigErr, smallErr := run(d, func(stmt string) error { return s.Query(stmt).Exec() })
	if !isTooBig(bigErr) {
		t.Errorf("the oversized query: %v, want Request is too big", bigErr)
	}
	if smallErr != nil {
		t.Errorf("the query after the oversized one: %v", smallErr)
	}

	ld := &cqltest.TailJoiner{MinLen: 1 << 20}
	l := gocqlv1.NewCluster(hosts[0])
	l.ProtoVersion = 4
	l.NumConns = 1
	l.Timeout = 10 * time.Second // beyond gocql's heartbeat interval (5 s)
	l.RetryPolicy = nil
	l.Dialer = ld
	l.HostFilter = gocqlv1.WhiteListHostFilter(hosts[0])
	ls, err := l.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	bigErr, smallErr = run(ld, func(stmt string) error { return ls.Query(stmt).Exec() })
	if !isTooBig(bigErr) {
		t.Errorf("gocql v1.7.0: the oversized query: %v, want Request is too big", bigErr)
	}
	if smallErr != nil {
		t.Errorf("gocql v1.7.0: the query after the oversized one: %v", smallErr)
	}
	// Its answer came only once the connection had written again: gocql's heartbeat.
	if ld.After.Load() == 0 {
		t.Error("gocql v1.7.0: the query after the oversized one was answered with nothing written after it")
	}
}
