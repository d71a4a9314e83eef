package gocql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// dialLog routes each dial of a node to a front of it (a proxy, a TLS terminator) and
// records what the driver asked for.
type dialLog struct {
	route map[string]string // node address -> front address
	authHostLog
}

// dial opens a connection to the front of address.
func (l *dialLog) dial(ctx context.Context, address string) (net.Conn, error) {
	front, ok := l.route[address]
	if !ok {
		return nil, fmt.Errorf("no route to %s (routes %v)", address, l.route)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", front)
	if err != nil {
		return nil, err
	}
	// As a SOCKS dialer does, the connection reports the node as its remote address, not
	// the front: gocql v1.7.0 takes a contact point's port from it.
	remote, err := net.ResolveTCPAddr("tcp", address)
	if err != nil {
		c.Close()
		return nil, err
	}
	return remoteConn{c, remote}, nil
}

// remoteConn is a connection reporting another remote address.
type remoteConn struct {
	net.Conn
	remote net.Addr
}

func (c remoteConn) RemoteAddr() net.Addr { return c.remote }

// logDialer is a Dialer of both drivers (their Dialer interfaces are the same).
type logDialer struct{ *dialLog }

func (d logDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.add(authHostSeen{Addr: network + " " + address})
	return d.dial(ctx, address)
}

// reachEveryNode runs query (which returns the address of the node that served it) until
// each of the n nodes has served one.
func reachEveryNode(t *testing.T, driver string, n int, query func() (string, error)) {
	t.Helper()
	served := map[string]bool{}
	eventually(t, fmt.Sprintf("%s: queries reach all %d nodes", driver, n), func() bool {
		addr, err := query()
		if err != nil {
			t.Fatalf("%s: %v", driver, err)
		}
		served[addr] = true
		return len(served) == n
	})
}

// legacyServedBy runs a query through gocql and returns the address of the node that served it.
func legacyServedBy(s *gocqlv1.Session) func() (string, error) {
	return func() (string, error) {
		iter := s.Query("SELECT key FROM system.local").Iter()
		h := iter.Host()
		if err := iter.Close(); err != nil {
			return "", err
		}
		return h.ConnectAddress().String(), nil
	}
}

// shimServedBy runs a query through the shim and returns the address of the node that served it.
func shimServedBy(s *Session) func() (string, error) {
	return func() (string, error) {
		iter := s.Query("SELECT key FROM system.local").Iter()
		h := iter.Host()
		if err := iter.Close(); err != nil {
			return "", err
		}
		return h.ConnectAddress().String(), nil
	}
}

// A custom Dialer opens every connection of both drivers, control connection included:
// with each node reachable only through a proxy that the dialer alone knows, gocql v1.7.0
// and the shim dial the same addresses with the same network, and queries reach every node.
// SslOpts is not set here; TestHostDialerLikeGocql covers TLS.
func TestDialerLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	newLog := func() (*dialLog, map[string]*cqltest.Proxy) {
		l := &dialLog{route: map[string]string{}}
		proxies := map[string]*cqltest.Proxy{}
		for _, a := range sim.Addrs() {
			p := cqltest.NewProxy(t, a)
			l.route[a], proxies[a] = p.Addr(), p
		}
		return l, proxies
	}
	checkProxies := func(driver string, proxies map[string]*cqltest.Proxy) {
		for a, p := range proxies {
			if p.Sent() == 0 {
				t.Errorf("%s: nothing came back from %s through its proxy", driver, a)
			}
		}
	}

	legacyLog, legacyProxies := newLog()
	shimLog, shimProxies := newLog()
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Dialer, l.Dialer = logDialer{shimLog}, logDialer{legacyLog}
		c.PoolConfig.HostSelectionPolicy, l.PoolConfig.HostSelectionPolicy = RoundRobinHostPolicy(), gocqlv1.RoundRobinHostPolicy()
		c.ConnectTimeout, l.ConnectTimeout = 5*time.Second, 5*time.Second
	})
	reachEveryNode(t, "gocql", 2, legacyServedBy(ls))
	checkProxies("gocql", legacyProxies)
	reachEveryNode(t, "shim", 2, shimServedBy(s))
	checkProxies("shim", shimProxies)

	want := []authHostSeen{{Addr: "tcp " + sim.Addrs()[0]}, {Addr: "tcp " + sim.Addrs()[1]}}
	if diff := cmp.Diff(legacyLog.sorted(), shimLog.sorted()); diff != "" {
		t.Errorf("dialled addresses differ (-gocql +shim):\n%s", diff)
	}
	if diff := cmp.Diff(want, shimLog.sorted()); diff != "" {
		t.Errorf("shim dialled (-want +got):\n%s", diff)
	}
}

// hostFronts puts a TLS terminator with a certificate for each node's own IP in front of
// it, and returns the routes and a TLS configuration trusting them.
func hostFronts(t *testing.T, addrs []string) (*dialLog, *tls.Config) {
	t.Helper()
	ca := cqltest.NewCA(t, "dialer test CA")
	l := &dialLog{route: map[string]string{}}
	for _, a := range addrs {
		ip, _, _ := net.SplitHostPort(a)
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, ip, x509.ExtKeyUsageServerAuth)}})
		if err != nil {
			t.Fatal(err)
		}
		l.route[a] = cqltest.Serve(t, ln, func(c net.Conn) { cqltest.Relay(c, a) })
	}
	return l, &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}
}

// A HostDialer sets up each connection, TLS included (here with WrapTLS over TLS fronts
// whose certificates name the nodes), and is told the host: both drivers hand it the same
// hosts (a contact point with its address alone, then every node with its data center,
// rack and host id). SslOpts, which names files that do not exist, is ignored by both
// because a HostDialer is set.
func TestHostDialerLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	const cert, key, ca = "/nonexistent/cert.pem", "/nonexistent/key.pem", "/nonexistent/ca.pem"
	legacyLog, legacyTLS := hostFronts(t, sim.Addrs())
	shimLog, shimTLS := hostFronts(t, sim.Addrs())
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.HostDialer, l.HostDialer = shimHostDialer{shimLog, shimTLS}, legacyHostDialer{legacyLog, legacyTLS}
		c.SslOpts = &SslOptions{CertPath: cert, KeyPath: key, CaPath: ca}
		l.SslOpts = &gocqlv1.SslOptions{CertPath: cert, KeyPath: key, CaPath: ca}
		c.PoolConfig.HostSelectionPolicy, l.PoolConfig.HostSelectionPolicy = RoundRobinHostPolicy(), gocqlv1.RoundRobinHostPolicy()
		c.ConnectTimeout, l.ConnectTimeout = 5*time.Second, 5*time.Second
	})
	reachEveryNode(t, "gocql", 2, legacyServedBy(ls))
	reachEveryNode(t, "shim", 2, shimServedBy(s))

	if diff := cmp.Diff(legacyLog.sorted(), shimLog.sorted()); diff != "" {
		t.Errorf("hosts given to the HostDialer differ (-gocql +shim):\n%s", diff)
	}
	var discovered int
	for _, h := range shimLog.sorted() {
		if h.HasHostID {
			discovered++
		}
	}
	if discovered != 2 {
		t.Errorf("the HostDialer saw %d discovered nodes, want 2: %v", discovered, shimLog.sorted())
	}
}

type legacyHostDialer struct {
	*dialLog
	tls *tls.Config
}

func (d legacyHostDialer) DialHost(ctx context.Context, h *gocqlv1.HostInfo) (*gocqlv1.DialedHost, error) {
	addr := fmt.Sprintf("%s:%d", h.ConnectAddress(), h.Port())
	d.add(authHostSeen{addr, h.DataCenter(), h.Rack(), h.HostID() != ""})
	c, err := d.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return gocqlv1.WrapTLS(ctx, c, addr, d.tls)
}

type shimHostDialer struct {
	*dialLog
	tls *tls.Config
}

func (d shimHostDialer) DialHost(ctx context.Context, h *HostInfo) (*DialedHost, error) {
	addr := fmt.Sprintf("%s:%d", h.ConnectAddress(), h.Port())
	d.add(authHostSeen{addr, h.DataCenter(), h.Rack(), h.HostID() != ""})
	c, err := d.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return WrapTLS(ctx, c, addr, d.tls)
}

// errProxyRefused is the error of a dialer standing for a proxy that refuses connections.
var errProxyRefused = errors.New("socks proxy: connection refused by rule 7")

type errDialer struct{}

func (errDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, errProxyRefused
}

type nilHostDialer struct{}

func (nilHostDialer) DialHost(context.Context, *HostInfo) (*DialedHost, error) { return nil, nil }

type nilLegacyHostDialer struct{}

func (nilLegacyHostDialer) DialHost(context.Context, *gocqlv1.HostInfo) (*gocqlv1.DialedHost, error) {
	return nil, nil
}

// A Dialer's error fails CreateSession with gocql's words around it, with protocol version
// discovery and without. A HostDialer returning neither a connection nor an error makes
// gocql v1.7.0 panic; the shim fails CreateSession instead (docs/deviations.md G40).
func TestDialerErrorsLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	for _, proto := range []int{0, 4} {
		lcfg := gocqlv1.NewCluster(sim.Addrs()...)
		lcfg.ProtoVersion = proto
		lcfg.Dialer = errDialer{}
		_, lerr := lcfg.CreateSession()
		cfg := NewCluster(sim.Addrs()...)
		cfg.ProtoVersion = proto
		cfg.Dialer = errDialer{}
		_, err := cfg.CreateSession()
		if lerr == nil || err == nil || lerr.Error() != err.Error() {
			t.Errorf("ProtoVersion %d: CreateSession failed with\n  gocql: %v\n  shim:  %v", proto, lerr, err)
		}
		if fmt.Sprintf("%T", lerr) != fmt.Sprintf("%T", err) {
			t.Errorf("ProtoVersion %d: error types differ: gocql %T, shim %T", proto, lerr, err)
		}
	}

	if !panics(func() {
		lcfg := gocqlv1.NewCluster(sim.Addrs()...)
		lcfg.HostDialer = nilLegacyHostDialer{}
		if s, err := lcfg.CreateSession(); err == nil {
			s.Close()
		}
	}) {
		t.Error("gocql v1.7.0 no longer panics on a HostDialer returning nothing: revisit G40")
	}
	cfg := NewCluster(sim.Addrs()...)
	cfg.HostDialer = nilHostDialer{}
	_, err := cfg.CreateSession()
	want := "gocql: unable to create session: unable to discover protocol version: " + errNoDialedConn.Error()
	if err == nil || err.Error() != want {
		t.Errorf("shim with a HostDialer returning nothing: %v, want %q", err, want)
	}
}

// stallDialer stands for a proxy client that waits for an answer that never comes and
// heeds no context: it returns only when released.
type stallDialer struct{ release chan struct{} }

func (d stallDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	<-d.release
	return nil, errProxyRefused
}

// gocql v1.7.0 waits for its Dialer as long as it takes, so a dialer that never returns
// holds CreateSession for ever; the shim gives up on a dial after ConnectTimeout, whatever
// the dialer does (docs/deviations.md G40).
func TestStalledDialerIsBoundedUnlikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	release := make(chan struct{})
	legacyDone := make(chan error, 1)
	go func() {
		lcfg := gocqlv1.NewCluster(sim.Addrs()...)
		lcfg.ConnectTimeout = 200 * time.Millisecond
		lcfg.Dialer = stallDialer{release}
		s, err := lcfg.CreateSession()
		if err == nil {
			s.Close()
		}
		legacyDone <- err
	}()

	cfg := NewCluster(sim.Addrs()...)
	cfg.ConnectTimeout = 200 * time.Millisecond
	cfg.Dialer = stallDialer{release}
	shimDone := make(chan error, 1)
	go func() {
		_, err := cfg.CreateSession()
		shimDone <- err
	}()
	select {
	case err := <-shimDone:
		want := "gocql: unable to create session: unable to discover protocol version: gocql: no response to connection startup within timeout"
		if err == nil || err.Error() != want {
			t.Errorf("shim: %v, want %q", err, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the shim's CreateSession still waits for the dialer after 30 s (ConnectTimeout 200 ms)")
	}
	select {
	case err := <-legacyDone:
		t.Errorf("gocql v1.7.0 returned (%v) while its dialer stalled: revisit G40", err)
	default:
	}
	close(release)
	if err := <-legacyDone; err == nil {
		t.Error("gocql v1.7.0 connected through a dialer that refused")
	}
}

// namedContactLog records, for the first dial of each driver (the contact point, before
// discovery), what a Dialer and a HostDialer are given.
type namedContactLog struct {
	mu    sync.Mutex
	dials []string
	hosts []string
}

func (l *namedContactLog) dial(ctx context.Context, address string) (net.Conn, error) {
	l.mu.Lock()
	l.dials = append(l.dials, address)
	l.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, "tcp", address)
}

func (l *namedContactLog) host(hostnamePort string, ip net.IP, port int) string {
	rec := fmt.Sprintf("%s ip=%v", hostnamePort, ip)
	l.mu.Lock()
	l.hosts = append(l.hosts, rec)
	l.mu.Unlock()
	return net.JoinHostPort(ip.String(), strconv.Itoa(port))
}

// snapshot returns copies of the dials and hosts recorded so far (a driver's pool may still
// be dialling in the background after its session closed).
func (l *namedContactLog) snapshot() (dials, hosts []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.dials), slices.Clone(l.hosts)
}

type namedDialer struct{ *namedContactLog }

func (d namedDialer) DialContext(ctx context.Context, _, address string) (net.Conn, error) {
	return d.dial(ctx, address)
}

type namedLegacyHostDialer struct{ *namedContactLog }

func (d namedLegacyHostDialer) DialHost(ctx context.Context, h *gocqlv1.HostInfo) (*gocqlv1.DialedHost, error) {
	c, err := d.dial(ctx, d.host(h.HostnameAndPort(), h.ConnectAddress(), h.Port()))
	if err != nil {
		return nil, err
	}
	return &gocqlv1.DialedHost{Conn: c}, nil
}

type namedShimHostDialer struct{ *namedContactLog }

func (d namedShimHostDialer) DialHost(ctx context.Context, h *HostInfo) (*DialedHost, error) {
	c, err := d.dial(ctx, d.host(h.HostnameAndPort(), h.ConnectAddress(), h.Port()))
	if err != nil {
		return nil, err
	}
	return &DialedHost{Conn: c}, nil
}

// A contact point given by name: gocql resolves it before dialling, so its Dialer gets the
// IP address, and its HostDialer a HostInfo with the name and the resolved address. The
// shim hands its dialers the same.
func TestNamedContactPointDialLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	named := "localhost:" + strconv.Itoa(sim.Port())
	ip := func(addr string) bool {
		host, _, err := net.SplitHostPort(addr)
		return err == nil && net.ParseIP(host) != nil && net.ParseIP(host).IsLoopback()
	}
	for _, hostDialer := range []bool{false, true} {
		legacy, shim := &namedContactLog{}, &namedContactLog{}
		lcfg := gocqlv1.NewCluster(named)
		cfg := NewCluster(named)
		if hostDialer {
			lcfg.HostDialer, cfg.HostDialer = namedLegacyHostDialer{legacy}, namedShimHostDialer{shim}
		} else {
			lcfg.Dialer, cfg.Dialer = namedDialer{legacy}, namedDialer{shim}
		}
		ls, err := lcfg.CreateSession()
		if err != nil {
			t.Fatalf("gocql: %v", err)
		}
		ls.Close()
		s, err := cfg.CreateSession()
		if err != nil {
			t.Fatalf("shim: %v", err)
		}
		s.Close()
		for _, l := range []struct {
			driver string
			log    *namedContactLog
		}{{"gocql", legacy}, {"shim", shim}} {
			dials, hosts := l.log.snapshot()
			if len(dials) == 0 || !ip(dials[0]) {
				t.Errorf("HostDialer %v: %s's first dial was to %v, want the resolved address", hostDialer, l.driver, dials)
			}
			if hostDialer && (len(hosts) == 0 || !strings.HasPrefix(hosts[0], named+" ip=127.")) {
				t.Errorf("%s's HostDialer first got %v, want %s with its resolved address", l.driver, hosts, named)
			}
		}
	}
}

// connectLog records what a ConnectObserver of either driver is told: distinct
// "address ok|error hostID" entries, and the error of the first failed attempt per address.
type connectLog struct {
	mu       sync.Mutex
	seen     []string
	failures map[string]string
}

func (l *connectLog) add(addr string, hostID bool, start, end time.Time, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if end.Before(start) {
		l.seen = append(l.seen, "end before start: "+addr)
	}
	e := fmt.Sprintf("%s ok=%v hostID=%v", addr, err == nil, hostID)
	if !slices.Contains(l.seen, e) {
		l.seen = append(l.seen, e)
	}
	if err != nil {
		if l.failures == nil {
			l.failures = map[string]string{}
		}
		if _, ok := l.failures[addr]; !ok {
			l.failures[addr] = err.Error()
		}
	}
}

func (l *connectLog) get() ([]string, map[string]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Sorted(slices.Values(l.seen)), maps.Clone(l.failures)
}

type shimConnectObserver struct{ *connectLog }

func (o shimConnectObserver) ObserveConnect(c ObservedConnect) {
	o.add(fmt.Sprintf("%s:%d", c.Host.ConnectAddress(), c.Host.Port()), c.Host.HostID() != "", c.Start, c.End, c.Err)
}

type legacyConnectObserver struct{ *connectLog }

func (o legacyConnectObserver) ObserveConnect(c gocqlv1.ObservedConnect) {
	o.add(fmt.Sprintf("%s:%d", c.Host.ConnectAddress(), c.Host.Port()), c.Host.HostID() != "", c.Start, c.End, c.Err)
}

// A ConnectObserver is told of every connection attempt, as in gocql v1.7.0: the control
// connection's to the contact point (known by its address alone), each pool's to the
// discovered nodes, and, once a node is stopped, the failed attempts to reach it again,
// with the dialer's error.
func TestConnectObserverLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	var shim, legacy connectLog
	sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.NumConns, l.NumConns = 1, 1
		c.ProtoVersion, l.ProtoVersion = 4, 4 // gocql's protocol discovery would be one more connection
		c.ConnectObserver, l.ConnectObserver = shimConnectObserver{&shim}, legacyConnectObserver{&legacy}
		l.ReconnectInterval = 100 * time.Millisecond // gocql retries a node that is down this often
	})
	eventually(t, "both drivers connected to both nodes", func() bool {
		s, _ := shim.get()
		l, _ := legacy.get()
		return len(s) >= 3 && len(l) >= 3
	})
	s, _ := shim.get()
	l, _ := legacy.get()
	if diff := cmp.Diff(l, s); diff != "" {
		t.Errorf("connections observed (-gocql +shim):\n%s", diff)
	}
	if err := sim.StopNode(1); err != nil {
		t.Fatal(err)
	}
	down := sim.Addrs()[1]
	eventually(t, "both drivers observed a failed attempt to reach the stopped node", func() bool {
		_, sf := shim.get()
		_, lf := legacy.get()
		return sf[down] != "" && lf[down] != ""
	})
	_, sf := shim.get()
	_, lf := legacy.get()
	t.Logf("connections observed: %q; the stopped node's first failure: %q", s, sf[down])
	if sf[down] != lf[down] {
		t.Errorf("the failed attempt's error: gocql %q, shim %q", lf[down], sf[down])
	}
}
