package native_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// A request whose connection fails before its frame is written (here a write of the
// connection's writer goroutine, which carries frames too large for their caller to write)
// was not sent, so it goes to the next node even when it is not idempotent and no retry
// policy is set. (Requests written before the connection failed keep its error: conn's
// TestFailedWriteCompletesUnsentCallsWithErrNotSent.)
func TestUnsentRequestGoesToNextNode(t *testing.T) {
	for _, v := range []int{4, 5} { // at v5 the frames travel in segments
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testUnsentRequestGoesToNextNode(t, v) })
	}
}

func testUnsentRequestGoesToNextNode(t *testing.T, version int) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, MaxProtocolVersion: version})
	big := strings.Repeat("v", 8<<10) // above what a caller writes itself
	// Only a write holding an INSERT's frame breaks: a handshake or a heartbeat taking the
	// arm would let the INSERT through on another connection to the same node.
	d := &cqltest.WriteBreaker{Addr: cl.Addrs()[1], MinLen: len(big)}
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: d, Timeout: 30 * time.Second, ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v text)")
	deadline := time.Now().Add(20 * time.Second)
	for k := 0; d.Broken.Load() < 3; k++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes to %s failed in 20s", d.Broken.Load(), d.Addr)
		}
		d.Armed.Store(true)
		before := d.Broken.Load()
		res, err := s.Execute(ctxT(t), native.Query("INSERT INTO ns.t (k, v) VALUES (?, ?)", int32(k), big))
		if err != nil {
			t.Fatalf("key %d (writes failed so far: %d): %v", k, d.Broken.Load(), err)
		}
		if d.Broken.Load() != before && res.Host() == d.Addr {
			t.Fatalf("key %d: answered by %s, whose write failed", k, res.Host())
		}
	}
}
