package gocql

import (
	"context"
	"encoding/binary"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// fakeDNS answers the process's DNS queries for the names in records (A and AAAA records of
// their addresses; any other name does not exist) until the test ends, and returns a function
// that changes a name's addresses. It points net.DefaultResolver, which gocql v1.7.0 and
// compat both resolve contact points with (net.LookupIP), at a DNS server on the loopback
// interface: a name can resolve to several addresses, IPv4 and IPv6, whatever /etc/hosts says
// of localhost (on many machines, this one included, localhost is only 127.0.0.1). Tests
// using it must not run in parallel.
func fakeDNS(t *testing.T, records map[string][]netip.Addr) (set func(name string, addrs ...netip.Addr)) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fake DNS: %v", err)
	}
	var mu sync.Mutex
	records = maps.Clone(records)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			mu.Lock()
			resp := dnsAnswer(buf[:n], records)
			mu.Unlock()
			if resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	}()
	fakeDNSOnce.Do(routeDNSThroughFake)
	addr := pc.LocalAddr().String()
	fakeDNSServer.Store(&addr)
	t.Cleanup(func() {
		fakeDNSServer.Store(nil)
		pc.Close()
		wg.Wait()
	})
	return func(name string, addrs ...netip.Addr) {
		mu.Lock()
		records[name] = addrs
		mu.Unlock()
	}
}

// fakeDNSServer is the address of the fake DNS server of the running test (see fakeDNS), nil
// when none runs; fakeDNSOnce points net.DefaultResolver at it once for the test binary
// (routeDNSThroughFake). net.DefaultResolver's fields are written only then: a lookup still
// running when its test ends (the resolver finishes lookups in the background after their
// context ends) may read them at any time.
var (
	fakeDNSServer atomic.Pointer[string]
	fakeDNSOnce   sync.Once
)

// routeDNSThroughFake makes Go's own resolver (PreferGo) send its queries to fakeDNSServer
// while one runs, and where it would have sent them otherwise.
func routeDNSThroughFake() {
	r := net.DefaultResolver
	dial := r.Dial
	r.PreferGo = true // Dial is only used by Go's own resolver
	r.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		var d net.Dialer
		if a := fakeDNSServer.Load(); a != nil {
			return d.DialContext(ctx, "udp", *a)
		}
		if dial != nil {
			return dial(ctx, network, address)
		}
		return d.DialContext(ctx, network, address)
	}
}

// dnsAnswer returns the response to the DNS query q from records (see fakeDNS), nil for a
// packet that is no query.
func dnsAnswer(q []byte, records map[string][]netip.Addr) []byte {
	if len(q) < 12 || q[2]&0x80 != 0 || binary.BigEndian.Uint16(q[4:]) != 1 {
		return nil
	}
	// The question: the name's labels, then its type and class.
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if l > 63 || i+1+l > len(q) {
			return nil
		}
		labels = append(labels, strings.ToLower(string(q[i+1:i+1+l])))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	end := i + 5
	addrs, known := records[strings.Join(labels, ".")]
	resp := append([]byte(nil), q[:end]...)
	binary.BigEndian.PutUint16(resp[2:], 0x8580) // a response, authoritative, recursion desired and available
	if !known {
		resp[3] |= 3 // NXDOMAIN
	}
	var answers uint16
	for _, a := range addrs {
		rtype, rdata := uint16(1), a.AsSlice() // A
		if a.Is6() {
			rtype = 28 // AAAA
		}
		if rtype != qtype {
			continue
		}
		resp = append(resp, 0xC0, 12) // the question's name
		resp = binary.BigEndian.AppendUint16(resp, rtype)
		resp = binary.BigEndian.AppendUint16(resp, 1) // IN
		resp = binary.BigEndian.AppendUint32(resp, 60)
		resp = binary.BigEndian.AppendUint16(resp, uint16(len(rdata)))
		resp = append(resp, rdata...)
		answers++
	}
	binary.BigEndian.PutUint16(resp[6:], answers)
	binary.BigEndian.PutUint16(resp[8:], 0)  // no authority records
	binary.BigEndian.PutUint16(resp[10:], 0) // nor additional ones (the query's EDNS option)
	return resp
}

// A contact point given by a name that resolves to several addresses: gocql v1.7.0 makes
// each address, IPv4 and IPv6, a contact point of its own (a HostInfo with the name, the
// address and the port). With DisableInitialHostLookup they are the session's nodes: it
// dials every one, and connects while any answers. Compat used the name's first address
// only: it dialled that one alone, and failed when it was down.
func TestContactNameResolvesToEveryAddressLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	port := strconv.Itoa(sim.Port())
	addrs := []netip.Addr{netip.MustParseAddr(ipOfAddr(t, sim.Addrs()[0])), netip.MustParseAddr(ipOfAddr(t, sim.Addrs()[1]))}
	// The IPv6 loopback address relays to the second node, when the machine has one.
	v6, err := net.Listen("tcp6", net.JoinHostPort("::1", port))
	if err == nil {
		cqltest.Serve(t, v6, func(c net.Conn) { cqltest.Relay(c, sim.Addrs()[1]) })
		addrs = append(addrs, netip.IPv6Loopback())
	} else {
		t.Logf("no IPv6 loopback listener (%v): the name resolves to two IPv4 addresses", err)
	}
	const name, missing = "nodes.cqlbridge.test", "missing.cqlbridge.test"
	fakeDNS(t, map[string][]netip.Addr{name: addrs})
	ips, err := net.LookupIP(name)
	if err != nil || len(ips) != len(addrs) {
		t.Fatalf("the fake DNS: %s resolves to %v (%v), want %v", name, ips, err, addrs)
	}
	t.Logf("%s resolves to %v", name, ips)
	var want, wantHosts []string // every address, and the HostInfo a HostDialer gets for it
	for _, a := range addrs {
		want = append(want, net.JoinHostPort(a.String(), port))
		wantHosts = append(wantHosts, net.JoinHostPort(name, port)+" ip="+a.String())
	}
	slices.Sort(want)
	slices.Sort(wantHosts)
	distinct := func(l *namedContactLog) ([]string, []string) {
		d, h := l.snapshot()
		slices.Sort(d)
		slices.Sort(h)
		return slices.Compact(d), slices.Compact(h)
	}
	open := func(what string, hostDialer bool) {
		t.Helper()
		legacy, shim := &namedContactLog{}, &namedContactLog{}
		s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
			c.Hosts, l.Hosts = []string{net.JoinHostPort(name, port)}, []string{net.JoinHostPort(name, port)}
			c.DisableInitialHostLookup, l.DisableInitialHostLookup = true, true
			c.Logger, l.Logger = nopLogger{}, nopLogger{}
			if hostDialer {
				c.HostDialer, l.HostDialer = namedShimHostDialer{shim}, namedLegacyHostDialer{legacy}
			} else {
				c.Dialer, l.Dialer = namedDialer{shim}, namedDialer{legacy}
			}
		})
		for i := 0; i < 2*len(addrs); i++ {
			if err := ls.Query("SELECT key FROM system.local").Exec(); err != nil {
				t.Fatalf("%s: gocql v1.7.0: %v", what, err)
			}
			if err := s.Query("SELECT key FROM system.local").Exec(); err != nil {
				t.Fatalf("%s: compat: %v", what, err)
			}
		}
		ld, lh := distinct(legacy)
		sd, sh := distinct(shim)
		if !slices.Equal(ld, want) {
			t.Fatalf("%s: gocql v1.7.0 dialled %v, want every address of %s: %v", what, ld, name, want)
		}
		if !slices.Equal(sd, ld) {
			t.Errorf("%s: compat dialled %v, gocql v1.7.0 %v", what, sd, ld)
		}
		if hostDialer && (!slices.Equal(lh, wantHosts) || !slices.Equal(sh, lh)) {
			t.Errorf("%s: the HostDialer got %v from compat, %v from gocql v1.7.0, want %v", what, sh, lh, wantHosts)
		}
		s.Close()
		ls.Close()
	}
	open("every address up, a Dialer", false)
	open("every address up, a HostDialer", true)

	// The name's first address down (compat dialled only that one): both drivers connect
	// through the others.
	first := ips[0].String()
	switch first {
	case addrs[0].String():
		if err := sim.StopNode(0); err != nil {
			t.Fatal(err)
		}
	case addrs[1].String():
		if err := sim.StopNode(1); err != nil {
			t.Fatal(err)
		}
	default:
		v6.Close()
	}
	open("the first address ("+first+") down, a Dialer", false)
	open("the first address ("+first+") down, a HostDialer", true)

	// A name that does not resolve is skipped, and none left is an error, as in gocql.
	for _, hosts := range [][]string{{missing}, {missing, name}} {
		c := NewCluster(hosts...)
		c.Port, c.DisableInitialHostLookup, c.Logger = sim.Port(), true, nopLogger{}
		l := gocqlv1.NewCluster(hosts...)
		l.Port, l.DisableInitialHostLookup, l.Logger = sim.Port(), true, nopLogger{}
		s, err := c.CreateSession()
		ls, lerr := l.CreateSession()
		if len(hosts) == 1 && lerr == nil {
			t.Fatalf("gocql v1.7.0 created a session on %v, which does not resolve", hosts)
		}
		if (err == nil) != (lerr == nil) || (err != nil && err.Error() != lerr.Error()) {
			t.Errorf("contact points %v: compat's CreateSession error %v, gocql v1.7.0's %v", hosts, err, lerr)
		}
		if err == nil {
			s.Close()
		}
		if lerr == nil {
			ls.Close()
		}
	}
}

// contactPoints: a name stands for each of its addresses in the resolver's order (only the
// IPv4 ones with GOCQL_HOST_LOOKUP_PREFER_V4=true, as gocql v1.7.0 reads it when the program
// starts), an address listed again under another host is dialled once, under its first
// host, and a name that does not resolve is skipped.
func TestContactPointsResolveEveryAddress(t *testing.T) {
	const name = "both.cqlbridge.test"
	fakeDNS(t, map[string][]netip.Addr{name: {netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}})
	ips, err := net.LookupIP(name)
	if err != nil || len(ips) != 2 {
		t.Fatalf("the fake DNS: %s resolves to %v (%v)", name, ips, err)
	}
	cfg := NewCluster("missing.cqlbridge.test", name, "127.0.0.1", "[::1]:9043")
	cfg.Logger = nopLogger{}
	saved := hostLookupPreferV4
	defer func() { hostLookupPreferV4 = saved }()
	for _, preferV4 := range []bool{false, true} {
		hostLookupPreferV4 = preferV4
		addrs, names, err := contactPoints(context.Background(), cfg)
		want := []string{net.JoinHostPort(ips[0].String(), "9042"), net.JoinHostPort(ips[1].String(), "9042"), "[::1]:9043"}
		wantNames := map[string]string{want[0]: name, want[1]: name, want[2]: "::1"}
		if preferV4 {
			want = []string{"127.0.0.1:9042", "[::1]:9043"}
			wantNames = map[string]string{want[0]: name, want[1]: "::1"}
		}
		if err != nil || !slices.Equal(addrs, want) || !maps.Equal(names, wantNames) {
			t.Errorf("GOCQL_HOST_LOOKUP_PREFER_V4 %v: contactPoints: %v %v (%v), want %v %v", preferV4, addrs, names, err, want, wantNames)
		}
	}
}

// namedContactSessions starts a cqlsim of nodes nodes and opens gocql v1.7.0 and compat
// sessions on the contact point name (with DisableInitialHostLookup), which fakeDNS resolves to
// the first node; it returns the cqlsim, each node's address, the function that moves the name
// (see fakeDNS) and the two sessions.
func namedContactSessions(t *testing.T, nodes int, name string) (*cqlsim.Cluster, func(int) netip.Addr, func(string, ...netip.Addr), *Session, *gocqlv1.Session) {
	t.Helper()
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: nodes})
	ip := func(i int) netip.Addr { return netip.MustParseAddr(ipOfAddr(t, sim.Addrs()[i])) }
	set := fakeDNS(t, map[string][]netip.Addr{name: {ip(0)}})
	contact := net.JoinHostPort(name, strconv.Itoa(sim.Port()))
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Hosts, l.Hosts = []string{contact}, []string{contact}
		c.DisableInitialHostLookup, l.DisableInitialHostLookup = true, true
		c.Logger, l.Logger = nopLogger{}, nopLogger{}
	})
	return sim, ip, set, s, ls
}

// A contact point's name is resolved again when the control connection falls back to the
// contact points, as gocql v1.7.0 does: a session whose nodes all changed addresses under
// the same name (DisableInitialHostLookup: the session knows no other node) reconnects to
// the new ones.
func TestContactNameResolvedAgainOnFallbackLikeGocql(t *testing.T) {
	const name = "moving.cqlbridge.test"
	sim, ip, set, s, ls := namedContactSessions(t, 2, name)
	set(name, ip(1))
	if err := sim.StopNode(0); err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		driver string
		exec   func() error
	}{
		{"gocql v1.7.0", func() error { return ls.Query("SELECT key FROM system.local").Exec() }},
		{"compat", func() error { return s.Query("SELECT key FROM system.local").Exec() }},
	} {
		var err error
		eventually(t, d.driver+" querying the node the name moved to", func() bool {
			err = d.exec()
			return err == nil
		})
	}
}
