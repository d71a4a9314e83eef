package native_test

import (
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// pollUntil calls f every 10 ms until it returns true, failing t after d.
func pollUntil(t *testing.T, d time.Duration, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// When the control connection's node stops, the control connection moves to another node,
// and the node, restarted, is used again. (Regression coverage: passed before the review.)
func TestReviewControlFailover(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	if err := cl.StopNode(0); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 20*time.Second, "node 0 still up", func() bool {
		for _, h := range s.Hosts() {
			if h.Addr == cl.Addrs()[0] && h.Up {
				return false
			}
		}
		return true
	})
	// The control connection's node comes first in Hosts.
	pollUntil(t, 20*time.Second, "control connection never left node 0", func() bool {
		return s.Hosts()[0].Addr != cl.Addrs()[0]
	})
	if err := cl.StartNode(0); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 20*time.Second, "node 0 never served again", func() bool {
		res, err := s.Execute(ctxT(t), native.Query("SELECT * FROM system.local").WithHost(cl.Addrs()[0]))
		return err == nil && res.Host() == cl.Addrs()[0]
	})
}

// A node removed from the topology (here by a HostFilter that starts rejecting it; a schema
// change event makes the control connection refresh) stops receiving requests; when it comes
// back it is used again. (Regression coverage: passed before the review.)
func TestReviewNodeLeavesAndRejoins(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	var exclude atomic.Value
	exclude.Store("")
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second,
		HostFilter: func(h native.Host) bool { return h.Addr != exclude.Load().(string) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	gone := cl.Addrs()[2]
	exclude.Store(gone)
	n := 0
	// The DDL only triggers the refresh. One in flight on the leaving node's connection when
	// the refresh retires its pool completes there (see TestRemovedNodeFinishesRequestsInFlight).
	ddl := func() {
		n++
		mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS k"+string(rune('a'+n%26))+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	}
	pollUntil(t, 20*time.Second, "node never left", func() bool {
		ddl()
		return len(s.Hosts()) == 2
	})
	for range 30 {
		res := mustExec(t, s, "SELECT * FROM system.local")
		if res.Host() == gone {
			t.Fatal("request went to a removed node")
		}
	}
	exclude.Store("")
	pollUntil(t, 20*time.Second, "node never rejoined", func() bool {
		ddl()
		return len(s.Hosts()) == 3
	})
	pollUntil(t, 20*time.Second, "rejoined node never served", func() bool {
		res := mustExec(t, s, "SELECT * FROM system.local")
		return res.Host() == gone
	})
}

// Nodes stopping and starting, the control connection's included, leave no goroutine behind
// after Close. (Regression coverage: passed before the review.)
func TestReviewNoLeakAfterTopologyChurn(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cl, err := cqlsim.Start(cqlsim.Options{Nodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second, ConnsPerHost: 2})
	if err != nil {
		t.Fatal(err)
	}
	waitHostsUp(t, s, 3)
	for _, i := range []int{1, 0} {
		if err := cl.StopNode(i); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			mustExec(t, s, "SELECT * FROM system.local")
		}
	}
	for _, i := range []int{1, 0} {
		if err := cl.StartNode(i); err != nil {
			t.Fatal(err)
		}
	}
	waitHostsUp(t, s, 3)
	s.Close()
	cl.Close()
}

// Close during node churn with requests running leaves no goroutine behind. (Regression
// coverage: passed before the review.)
func TestReviewCloseDuringChurn(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cl, err := cqlsim.Start(cqlsim.Options{Nodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 5 * time.Second, ConnsPerHost: 3})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	ctx := ctxT(t)
	queries := cqltest.RunWorkers(8, stop, func(int, int) bool {
		s.Execute(ctx, native.Query("SELECT * FROM system.local"))
		return true
	})
	churn := cqltest.RunWorkers(1, stop, func(_, i int) bool {
		n := i % 3
		cl.StopNode(n)
		time.Sleep(time.Duration(i%7) * time.Millisecond)
		cl.StartNode(n)
		return true
	})
	time.Sleep(300 * time.Millisecond)
	s.Close()
	close(stop)
	queries.Wait()
	churn.Wait()
	cl.Close()
}
