package native_test

import (
	"context"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// A node that stops answering without closing its connections (a paused process, a
// partition) and that the cluster reports DOWN gets no more requests once it has failed to
// answer a probe, instead of holding every request sent to it until its timeout for as long
// as its connections stay open (their heartbeat gives up after HeartbeatInterval plus its
// timeout, a minute by default). Once the node answers again, and the cluster reports it UP,
// it serves requests again.
func TestHungNodeReportedDownIsAvoided(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()[:1], Routing: native.RoundRobin,
		Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := native.Query("SELECT release_version FROM system.local")
	hung := c.Addrs()[2]
	// reaches runs queries until one is coordinated by addr.
	reaches := func(addr string, within time.Duration) bool {
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			if res, err := s.Execute(ctx, q); err == nil && res.Host() == addr {
				return true
			}
			time.Sleep(5 * time.Millisecond)
		}
		return false
	}
	if !reaches(hung, 5*time.Second) {
		t.Fatalf("no query reached %s before it hung", hung)
	}

	if err := c.FreezeNode(2); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var lastErr error
	for ok := 0; ok < 30; {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("5s after %s hung and was reported DOWN, queries still fail (%d in a row succeeded; last error: %v)", hung, ok, lastErr)
		}
		res, err := s.Execute(ctx, q)
		if err != nil {
			ok, lastErr = 0, err
			continue
		}
		if res.Host() == hung {
			t.Fatalf("the hung node %s answered", hung)
		}
		ok++
	}
	t.Logf("the hung node was avoided %v after it hung (last error before: %v)", time.Since(start).Round(time.Millisecond), lastErr)
	for _, h := range s.Hosts() {
		if h.Addr == hung && h.Up {
			t.Errorf("Hosts reports the hung node %s up", hung)
		}
	}

	if err := c.ThawNode(2); err != nil {
		t.Fatal(err)
	}
	if !reaches(hung, 10*time.Second) {
		t.Fatalf("no query reached %s in the 10s after it answered again", hung)
	}
}
