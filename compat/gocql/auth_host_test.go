package gocql

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// authHostSeen is what an AuthProvider can read of the host it is asked about.
type authHostSeen struct {
	Addr, DC, Rack string
	HasHostID      bool
}

func (a authHostSeen) String() string {
	return fmt.Sprintf("%s dc=%q rack=%q hostID=%v", a.Addr, a.DC, a.Rack, a.HasHostID)
}

// authHostLog collects the distinct hosts an AuthProvider was called with.
type authHostLog struct {
	mu   sync.Mutex
	seen []authHostSeen
}

func (l *authHostLog) add(a authHostSeen) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Contains(l.seen, a) {
		l.seen = append(l.seen, a)
	}
}

func (l *authHostLog) sorted() []authHostSeen {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.seen)
	slices.SortFunc(out, func(a, b authHostSeen) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// TestAuthProviderSeesTheNodesDataCenterLikeGocql: gocql v1.7.0 calls AuthProvider with the
// ring's host for the connections of its pools, data center, rack and host id included, so a
// provider can pick credentials by data center. The shim must hand it the same hosts.
func TestAuthProviderSeesTheNodesDataCenterLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, Username: "alice", Password: "s3cret"})
	contact := sim.Addrs()[:1]

	var legacy authHostLog
	lcfg := gocqlv1.NewCluster(contact...)
	lcfg.NumConns = 1
	lcfg.Timeout, lcfg.ConnectTimeout = 20*time.Second, 5*time.Second
	lcfg.AuthProvider = func(h *gocqlv1.HostInfo) (gocqlv1.Authenticator, error) {
		legacy.add(authHostSeen{fmt.Sprintf("%s:%d", h.ConnectAddress(), h.Port()), h.DataCenter(), h.Rack(), h.HostID() != ""})
		return gocqlv1.PasswordAuthenticator{Username: "alice", Password: "s3cret"}, nil
	}
	ls, err := lcfg.CreateSession()
	if err != nil {
		t.Fatalf("gocql: %v", err)
	}
	defer ls.Close()

	var shim authHostLog
	cfg := NewCluster(contact...)
	cfg.NumConns = 1
	cfg.Timeout, cfg.ConnectTimeout = 20*time.Second, 5*time.Second
	cfg.AuthProvider = func(h *HostInfo) (Authenticator, error) {
		shim.add(authHostSeen{fmt.Sprintf("%s:%d", h.ConnectAddress(), h.Port()), h.DataCenter(), h.Rack(), h.HostID() != ""})
		return PasswordAuthenticator{Username: "alice", Password: "s3cret"}, nil
	}
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatalf("shim: %v", err)
	}
	defer s.Close()

	// Both sessions have dialled every node's pool once CreateSession returned (gocql fills
	// its pools before returning); wait until each provider saw both nodes with a data center.
	withDC := func(l *authHostLog) int {
		n := 0
		for _, a := range l.sorted() {
			if a.DC != "" {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); withDC(&legacy) < 2 || withDC(&shim) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			break
		}
	}
	want, got := legacy.sorted(), shim.sorted()
	t.Logf("gocql's AuthProvider saw %v", want)
	if withDC(&legacy) < 2 {
		t.Fatalf("gocql's AuthProvider saw %v: fewer than 2 hosts with a data center, the test no longer shows what it pins", want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("hosts AuthProvider was called with (-gocql +shim):\n%s", diff)
	}
}

// TestAuthProviderOnlyWhenTheServerAsks pins deviation G37: gocql v1.7.0 calls AuthProvider
// for every connection it dials, before it knows whether the server wants authentication, so
// a provider's error fails CreateSession even against a server without authentication. compat
// calls AuthProvider when the server asks for authentication (AUTHENTICATE), once per
// connection as gocql does, and not at all for a server without authentication.
func TestAuthProviderOnlyWhenTheServerAsks(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	var legacyCalls, shimCalls int
	var mu sync.Mutex
	lcfg := gocqlv1.NewCluster(sim.Addrs()...)
	lcfg.ConnectTimeout = 5 * time.Second
	lcfg.AuthProvider = func(*gocqlv1.HostInfo) (gocqlv1.Authenticator, error) {
		mu.Lock()
		legacyCalls++
		mu.Unlock()
		return nil, errors.New("no credentials here")
	}
	if ls, err := lcfg.CreateSession(); err == nil {
		ls.Close()
		t.Fatal("gocql v1.7.0 created a session although AuthProvider failed: it no longer calls AuthProvider before the server asks; docs/deviations.md G37 is stale")
	}
	cfg := NewCluster(sim.Addrs()...)
	cfg.ConnectTimeout = 5 * time.Second
	cfg.AuthProvider = func(*HostInfo) (Authenticator, error) {
		mu.Lock()
		shimCalls++
		mu.Unlock()
		return nil, errors.New("no credentials here")
	}
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatalf("compat against a server without authentication: %v", err)
	}
	defer s.Close()
	if err := s.Query("SELECT key FROM system.local").Exec(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if legacyCalls == 0 || shimCalls != 0 {
		t.Fatalf("AuthProvider calls against a server without authentication: gocql %d (want some), compat %d (want none)", legacyCalls, shimCalls)
	}
}
