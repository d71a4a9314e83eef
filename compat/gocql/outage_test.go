package gocql

import (
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
)

// After every node of the cluster was down for several seconds, a compat session serves
// queries again about as soon as a gocql v1.7.0 session does (gocql retries its control
// connection every second and finds the nodes back from the next query), not after the native
// core's reconnection backoff (which grew to 10 s) or its next once-a-second refresh of the
// hosts. Both sessions run against the same cluster; the bound is gocql's one second plus
// slack for a loaded machine.
func TestRecoveryAfterWholeClusterOutageLikeGocql(t *testing.T) {
	const outage, bound = 7 * time.Second, 3 * time.Second
	sim, s, ls := failoverSessions(t, 2, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.ConnectTimeout, l.ConnectTimeout = time.Second, time.Second
	})
	for i := range 2 {
		if err := sim.StopNode(i); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(outage)
	if err := s.Query("SELECT key FROM system.local").Exec(); err == nil {
		t.Fatal("compat: a query succeeded while every node was stopped")
	}
	for i := range 2 {
		if err := sim.StartNode(i); err != nil {
			t.Fatal(err)
		}
	}
	back := time.Now()
	var compatAfter, gocqlAfter time.Duration
	var compatErr, gocqlErr error
	for compatAfter == 0 || gocqlAfter == 0 {
		if time.Since(back) > bound {
			t.Fatalf("within %v of the cluster's return (after a %v outage): compat recovered after %v (last error %v), gocql v1.7.0 after %v (last error %v); 0 is not yet",
				bound, outage, compatAfter, compatErr, gocqlAfter, gocqlErr)
		}
		if compatAfter == 0 {
			if compatErr = s.Query("SELECT key FROM system.local").Exec(); compatErr == nil {
				compatAfter = time.Since(back)
			}
		}
		if gocqlAfter == 0 {
			if gocqlErr = ls.Query("SELECT key FROM system.local").Exec(); gocqlErr == nil {
				gocqlAfter = time.Since(back)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("first successful query after the cluster's return: compat %v, gocql v1.7.0 %v", compatAfter.Round(time.Millisecond), gocqlAfter.Round(time.Millisecond))
}
