package native_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// wholeClusterOutage is long enough for a reconnection backoff that keeps doubling to wait
// several seconds between attempts (the control connection's did, up to 10 s: a session came
// back up to 10 s after the cluster).
const wholeClusterOutage = 7 * time.Second

// recoveryBound is how soon after a cluster restart a session must serve queries again: the
// control connection is retried at least every second, as gocql's is; the rest is slack for a
// loaded machine.
const recoveryBound = 3 * time.Second

// After every node of the cluster was down for several seconds, the session serves queries
// again within about a second of the cluster's return, as a gocql session does, not after the
// control connection's backoff has grown to many seconds.
func TestSessionRecoversSoonAfterWholeClusterOutage(t *testing.T) {
	cl, s := stopWholeCluster(t, 2, native.Config{Timeout: 5 * time.Second, ConnectTimeout: time.Second})
	time.Sleep(wholeClusterOutage)
	if _, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local")); err == nil {
		t.Fatal("a query succeeded while every node was stopped")
	}
	for i := range 2 {
		if err := cl.StartNode(i); err != nil {
			t.Fatal(err)
		}
	}
	back := time.Now()
	for {
		_, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local"))
		if err == nil {
			t.Logf("first successful query %v after the cluster's return", time.Since(back).Round(time.Millisecond))
			return
		}
		if time.Since(back) > recoveryBound {
			t.Fatalf("no successful query within %v of the cluster's return (after a %v outage); last error: %v", recoveryBound, wholeClusterOutage, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A PREPARE that finds every node's connection closed (right after the whole cluster stopped,
// before the session saw it) fails with a NoHostAvailableError whose every cause matches
// ErrConnClosed, as a request's does; the closed-connection error of the PREPARE itself used
// to come through without ErrConnClosed.
func TestPrepareWithEveryConnectionClosedMatchesErrConnClosed(t *testing.T) {
	_, s := stopWholeCluster(t, 2, native.Config{Timeout: 5 * time.Second})
	_, err := s.Prepare(ctxT(t), "SELECT release_version FROM system.local")
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || len(nh.Errors) == 0 {
		t.Fatalf("Prepare with every node stopped: %v; want a NoHostAvailableError with the nodes' errors", err)
	}
	for _, he := range nh.Errors {
		if !errors.Is(he.Err, native.ErrConnClosed) {
			t.Errorf("%s: %v; want an error matching ErrConnClosed", he.Host, he.Err)
		}
	}
}

// stopWholeCluster starts a cqlsim cluster of n nodes, connects a session with cfg (Hosts set
// to the first node) and, once the session sees every node up, stops them all. The session is
// closed when the test ends.
func stopWholeCluster(t *testing.T, n int, cfg native.Config) (*cqlsim.Cluster, *native.Session) {
	t.Helper()
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: n})
	cfg.Hosts = cl.Addrs()[:1]
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	waitHostsUp(t, s, n)
	for i := range n {
		if err := cl.StopNode(i); err != nil {
			t.Fatal(err)
		}
	}
	return cl, s
}
