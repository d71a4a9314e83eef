package gocql

import (
	"context"
	"maps"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// Close does not wait for the control connection's lookup of a contact point's name (when it
// falls back to the contact points) to give up on a name server that does not answer: the
// lookup ends with the session, as gocql v1.7.0's Close does not wait for it either.
func TestCloseDoesNotWaitForContactNameLookup(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 1})
	ip0 := netip.MustParseAddr(ipOfAddr(t, sim.Addrs()[0]))
	const name = "silent.cqlbridge.test"
	fakeDNS(t, map[string][]netip.Addr{name: {ip0}})
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	silentAddr := silent.LocalAddr().String()
	c := NewCluster(net.JoinHostPort(name, strconv.Itoa(sim.Port())))
	c.DisableInitialHostLookup, c.Logger = true, nopLogger{}
	c.ConnectTimeout = 500 * time.Millisecond
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	l := gocqlv1.NewCluster(net.JoinHostPort(name, strconv.Itoa(sim.Port())))
	l.DisableInitialHostLookup, l.Logger = true, nopLogger{}
	l.ConnectTimeout = 500 * time.Millisecond
	ls, err := l.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	fakeDNSServer.Store(&silentAddr) // the DNS server stops answering
	if err := sim.StopNode(0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the control connection is now resolving again
	start := time.Now()
	ls.Close()
	t.Logf("gocql v1.7.0 Close took %v", time.Since(start))
	start = time.Now()
	s.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v (blocked on the control goroutine's DNS lookup)", d)
	}
}

// With DisableInitialHostLookup, a contact point name that moved to two new addresses: after
// the fallback to the contact points, both new nodes serve queries, in gocql v1.7.0 and in
// compat (the old address is dropped).
func TestContactNameMovedToTwoAddressesLikeGocql(t *testing.T) {
	const name = "moving2.cqlbridge.test"
	sim, ip, set, s, ls := namedContactSessions(t, 3, name)
	set(name, ip(1), ip(2))
	if err := sim.StopNode(0); err != nil {
		t.Fatal(err)
	}
	eventually(t, "gocql", func() bool { return ls.Query("SELECT key FROM system.local").Exec() == nil })
	eventually(t, "compat", func() bool { return s.Query("SELECT key FROM system.local").Exec() == nil })
	// The nodes that serve queries, once both new ones do (pools open in the background).
	serving := func(query func() string) []string {
		seen := map[string]bool{}
		for i := 0; i < 60; i++ {
			if h := query(); h != "" {
				seen[h] = true
			}
		}
		return slices.Sorted(maps.Keys(seen))
	}
	want := []string{ip(1).String(), ip(2).String()}
	var lh, sh []string
	eventually(t, "gocql served by both new nodes", func() bool {
		lh = serving(func() string {
			it := ls.Query("SELECT key FROM system.local").Iter()
			defer it.Close()
			return hostAddr(it.Host())
		})
		return slices.Equal(lh, want)
	})
	// compat must come to the same nodes, the dead address dropped.
	deadline := time.Now().Add(failoverDeadline)
	for {
		sh = serving(func() string {
			it := s.Query("SELECT key FROM system.local").Iter()
			defer it.Close()
			return hostAddr(it.Host())
		})
		if slices.Equal(sh, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var ch []string
	for _, h := range s.native.Hosts() {
		ch = append(ch, h.Addr)
	}
	if !slices.Equal(sh, lh) {
		t.Errorf("nodes serving queries differ: gocql %v, compat %v (compat's nodes %v)", lh, sh, ch)
	}
}

func TestContactPointKeepsIPv6Zone(t *testing.T) {
	cfg := NewCluster("[fe80::1%lo]:9042", "fe80::2%lo")
	cfg.Logger = nopLogger{}
	addrs, _, err := contactPoints(context.Background(), cfg)
	if want := []string{"[fe80::1%lo]:9042", "[fe80::2%lo]:9042"}; err != nil || !slices.Equal(addrs, want) {
		t.Errorf("contactPoints: %v (%v), want %v", addrs, err, want)
	}
}

// hostAddr is the connect address of a gocql v1.7.0 or compat host, "" for none.
func hostAddr(h interface{ ConnectAddress() net.IP }) string {
	if h == nil || reflect.ValueOf(h).IsNil() {
		return ""
	}
	return h.ConnectAddress().String()
}
