package native_test

import (
	"context"
	"errors"
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

// Connect with a node that accepts connections but never answers (frozen): it returns a
// working session when the node's pool gives up, after ConnectTimeout, or when ctx ends
// while the pools open (the healthy node's pool is open by then); a frozen first contact
// point with the context ending fails with each contact point's cause.
func TestConnectWithHungNode(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	if err := cl.FreezeNode(1); err != nil {
		t.Fatal(err)
	}
	defer cl.ThawNode(1)
	query := func(s *native.Session) {
		t.Helper()
		if _, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local")); err != nil {
			t.Errorf("query on the session: %v", err)
		}
		s.Close()
	}

	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], ConnectTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatalf("Connect with ConnectTimeout 300ms: %v", err)
	}
	query(s)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	s, err = native.Connect(ctx, native.Config{Hosts: cl.Addrs()[:1]})
	if err != nil {
		t.Fatalf("Connect with a context of 300ms: %v", err)
	}
	if waited := time.Since(start); waited >= native.DefaultConnectTimeout {
		t.Errorf("Connect waited %v: the context's end did not end the wait for the frozen node", waited)
	}
	query(s)

	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = native.Connect(ctx, native.Config{Hosts: []string{cl.Addrs()[1], cl.Addrs()[0]}})
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || len(nh.Errors) != 2 {
		t.Errorf("Connect with the frozen node first and a context of 300ms: %v, want a NoHostAvailableError naming both contact points", err)
	}
}
