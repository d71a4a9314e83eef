package native

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// hostAddrs returns the Addr of every host the session knows, sorted.
func hostAddrs(s *Session) []string {
	var out []string
	for _, h := range s.Hosts() {
		out = append(out, h.Addr)
	}
	slices.Sort(out)
	return out
}

// Config.TranslateContactPoints: the node the control connection reached through a contact
// point is dialled at the contact point's translation, once; without it (or with
// DisablePeerDiscovery) at the contact point. The translator sends node 0 to a proxy and the
// proxy nowhere, so that translating node 0 twice would lose it.
func TestTranslateContactPoints(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	node0, node1 := sim.Addrs()[0], sim.Addrs()[1]
	proxy := cqltest.NewProxy(t, node0)
	const nowhere = "127.0.3.10:1"
	translate := func(addr string) string {
		switch addr {
		case node0:
			return proxy.Addr()
		case proxy.Addr():
			return nowhere
		}
		return addr
	}
	connect := func(t *testing.T, mod func(*Config)) *Session {
		cfg := Config{Hosts: []string{node0}, Timeout: 10 * time.Second, AddressTranslator: translate}
		mod(&cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := Connect(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	want := func(t *testing.T, s *Session, addrs ...string) {
		t.Helper()
		slices.Sort(addrs)
		if got := hostAddrs(s); !slices.Equal(got, addrs) {
			t.Errorf("hosts %q, want %q", got, addrs)
		}
	}

	t.Run("off", func(t *testing.T) {
		want(t, connect(t, func(*Config) {}), node0, node1)
	})
	t.Run("disable peer discovery", func(t *testing.T) {
		want(t, connect(t, func(c *Config) { c.TranslateContactPoints, c.DisablePeerDiscovery = true, true }), node0)
	})
	t.Run("on", func(t *testing.T) {
		s := connect(t, func(c *Config) { c.TranslateContactPoints = true })
		want(t, s, proxy.Addr(), node1)
		sent := proxy.Sent()
		for range 4 {
			if _, err := s.Execute(context.Background(), Query("SELECT key FROM system.local")); err != nil {
				t.Fatal(err)
			}
		}
		if proxy.Sent() == sent {
			t.Error("no query reached node 0 through its translated address")
		}
		// Reopened to a known node (node 0 at its translated address first, as known
		// nodes are tried in order), the control connection's node keeps its address.
		s.control.mu.Lock()
		old := s.control.c
		s.control.mu.Unlock()
		old.Close()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s.control.mu.Lock()
			c := s.control.c
			s.control.mu.Unlock()
			if c != old && c != nil {
				if c.Addr() != proxy.Addr() {
					t.Logf("control connection reopened to %s", c.Addr())
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the control connection was not reopened")
			}
			time.Sleep(20 * time.Millisecond)
		}
		want(t, s, proxy.Addr(), node1)
	})
}

// A translator that sends the only node nowhere: the control connection opens on the contact
// point, the node's pool does not, and Connect says so (ErrNoPoolOpened, with the node's
// error in a *NoHostAvailableError).
func TestTranslateContactPointsNowhere(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Connect(ctx, Config{
		Hosts: sim.Addrs(), Timeout: 10 * time.Second, TranslateContactPoints: true,
		AddressTranslator: func(string) string { return "127.0.3.10:1" },
	})
	if err == nil {
		s.Close()
		t.Fatal("Connect succeeded")
	}
	var nh *NoHostAvailableError
	if !errors.Is(err, ErrNoPoolOpened) || !errors.As(err, &nh) || len(nh.Errors) != 1 || nh.Errors[0].Host != "127.0.3.10:1" {
		t.Errorf("Connect: %v", err)
	}
}
