package gocql_test

import (
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// natProxy forwards the connections it accepts on its own address to a node, as the public
// address of a node behind NAT does, and counts them.
type natProxy struct {
	ln       net.Listener
	target   string
	accepted atomic.Int64
	mu       sync.Mutex
	conns    []net.Conn
	wg       sync.WaitGroup
}

// newNATProxy listens on addr and forwards to target until the test ends.
func newNATProxy(t *testing.T, addr, target string) *natProxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	p := &natProxy{ln: ln, target: target}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.accepted.Add(1)
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() { defer p.wg.Done(); _, _ = io.Copy(up, c); up.Close() }()
			go func() { defer p.wg.Done(); _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// natCluster is a three-node cqlsim cluster on private addresses (127.0.2.x, what the nodes
// advertise in system.local and system.peers_v2) with a proxy for each node on a public
// address (127.0.3.x, same port), as a cluster behind NAT is seen by an application outside.
type natCluster struct {
	sim     *cqlsim.Cluster
	port    int
	private []string // ip only
	public  []string // ip only
	proxies []*natProxy
}

func startNATCluster(t *testing.T) *natCluster {
	t.Helper()
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Listen: "127.0.2.1:0"})
	nc := &natCluster{sim: sim, port: sim.Port()}
	for i, a := range sim.Addrs() {
		host, _, _ := net.SplitHostPort(a)
		pub := fmt.Sprintf("127.0.3.%d", i+1)
		nc.private = append(nc.private, host)
		nc.public = append(nc.public, pub)
		nc.proxies = append(nc.proxies, newNATProxy(t, net.JoinHostPort(pub, strconv.Itoa(nc.port)), a))
	}
	return nc
}

// translateLog records the calls of an address translator.
type translateLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *translateLog) add(ip net.IP, port int) {
	l.mu.Lock()
	l.calls = append(l.calls, net.JoinHostPort(ip.String(), strconv.Itoa(port)))
	l.mu.Unlock()
}

// sorted returns the calls so far, sorted (the drivers make them from several goroutines).
func (l *translateLog) sorted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.calls...)
	sort.Strings(out)
	return out
}

// addrSet is a set of "ip:port" strings recorded from several goroutines.
type addrSet struct {
	mu sync.Mutex
	m  map[string]bool
}

func (s *addrSet) add(ip net.IP, port int) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]bool{}
	}
	s.m[net.JoinHostPort(ip.String(), strconv.Itoa(port))] = true
	s.mu.Unlock()
}

func (s *addrSet) sorted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.m))
	for a := range s.m {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// translateScenario is one way of reaching a NAT cluster: the contact point, where the
// translator sends each private address (ip:port in, ip:port out; an address it does not
// list is returned unchanged) and the default port.
type translateScenario struct {
	contact string
	routes  map[string]string
	// port is ClusterConfig.Port, the cluster's port when 0.
	port int
}

func (sc translateScenario) translate(ip net.IP, port int) (net.IP, int) {
	to, ok := sc.routes[net.JoinHostPort(ip.String(), strconv.Itoa(port))]
	if !ok {
		return ip, port
	}
	h, p, _ := net.SplitHostPort(to)
	n, _ := strconv.Atoi(p)
	return net.ParseIP(h), n
}

// runTranslateDiff connects each driver with sc's contact point and translator, runs
// round-robin queries until every node that can serve one has, and records what the
// application saw: the translator's calls during CreateSession, the hosts HostFilter was
// given, the addresses of the connections that opened, the hosts that served queries and
// which proxies were used.
func runTranslateDiff(t *testing.T, nc *natCluster, sc translateScenario, wantServed int) {
	t.Helper()
	var lt, ct trace
	port := sc.port
	if port == 0 {
		port = nc.port
	}
	proxyUse := func(tr *trace, before []int64) {
		for i, p := range nc.proxies {
			tr.add("proxy "+nc.public[i]+" used", p.accepted.Load() > before[i])
		}
	}
	counts := func() []int64 {
		out := make([]int64, len(nc.proxies))
		for i, p := range nc.proxies {
			out[i] = p.accepted.Load()
		}
		return out
	}
	{
		before := counts()
		var tl translateLog
		var filtered, connected, served addrSet
		c := gocqlv1.NewCluster(sc.contact)
		c.Port = port
		c.ProtoVersion = 4
		c.Timeout = 10 * time.Second
		c.ConnectTimeout = 2 * time.Second
		c.AddressTranslator = gocqlv1.AddressTranslatorFunc(func(ip net.IP, port int) (net.IP, int) {
			tl.add(ip, port)
			return sc.translate(ip, port)
		})
		c.HostFilter = gocqlv1.HostFilterFunc(func(h *gocqlv1.HostInfo) bool {
			filtered.add(h.ConnectAddress(), h.Port())
			return true
		})
		c.ConnectObserver = legacyConnectRecorder{&connected}
		c.PoolConfig.HostSelectionPolicy = gocqlv1.RoundRobinHostPolicy()
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("gocql v1.7.0 CreateSession: %v", err)
		}
		// gocql v1.7.0 also translates the control node's system.local rpc_address with
		// ClusterConfig.Port, which compat does not (docs/deviations.md G61).
		calls := tl.sorted()
		second := net.JoinHostPort(nc.private[0], strconv.Itoa(port))
		if i := slices.Index(calls, second); i < 0 {
			t.Errorf("gocql v1.7.0 did not translate the control node's rpc_address %s: %q", second, calls)
		} else {
			calls = slices.Delete(calls, i, i+1)
		}
		lt.add("translated at CreateSession", calls)
		if port != nc.port {
			// It also gives HostFilter the node at that translation (no route for this
			// port: unchanged), which compat does not (G61).
			filtered.mu.Lock()
			if !filtered.m[second] {
				t.Errorf("gocql v1.7.0 did not filter the control node at %s: %v", second, filtered.m)
			}
			delete(filtered.m, second)
			filtered.mu.Unlock()
		}
		for i := 0; i < 30 && len(served.sorted()) < wantServed; i++ {
			it := s.Query("SELECT key FROM system.local").Iter()
			if err := it.Close(); err != nil {
				t.Fatalf("gocql v1.7.0 query: %v", err)
			}
			served.add(it.Host().ConnectAddress(), it.Host().Port())
		}
		s.Close()
		lt.add("HostFilter", filtered.sorted())
		lt.add("connected", connected.sorted())
		lt.add("served", served.sorted())
		proxyUse(&lt, before)
	}
	{
		before := counts()
		var tl translateLog
		var filtered, connected, served addrSet
		c := gocql.NewCluster(sc.contact)
		c.Port = port
		c.ProtoVersion = 4
		c.Timeout = 10 * time.Second
		c.ConnectTimeout = 2 * time.Second
		c.AddressTranslator = gocql.AddressTranslatorFunc(func(ip net.IP, port int) (net.IP, int) {
			tl.add(ip, port)
			return sc.translate(ip, port)
		})
		c.HostFilter = gocql.HostFilterFunc(func(h *gocql.HostInfo) bool {
			filtered.add(h.ConnectAddress(), h.Port())
			return true
		})
		c.ConnectObserver = compatConnectRecorder{&connected}
		c.PoolConfig.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("compat CreateSession: %v", err)
		}
		ct.add("translated at CreateSession", tl.sorted())
		for i := 0; i < 30 && len(served.sorted()) < wantServed; i++ {
			it := s.Query("SELECT key FROM system.local").Iter()
			if err := it.Close(); err != nil {
				t.Fatalf("compat query: %v", err)
			}
			served.add(it.Host().ConnectAddress(), it.Host().Port())
		}
		s.Close()
		ct.add("HostFilter", filtered.sorted())
		ct.add("connected", connected.sorted())
		ct.add("served", served.sorted())
		proxyUse(&ct, before)
	}
	sameTrace(t, &lt, &ct)
}

// legacyConnectRecorder records the address of each connection gocql v1.7.0 opened.
type legacyConnectRecorder struct{ set *addrSet }

func (r legacyConnectRecorder) ObserveConnect(c gocqlv1.ObservedConnect) {
	if c.Err == nil {
		r.set.add(c.Host.ConnectAddress(), c.Host.Port())
	}
}

// compatConnectRecorder is legacyConnectRecorder for compat.
type compatConnectRecorder struct{ set *addrSet }

func (r compatConnectRecorder) ObserveConnect(c gocql.ObservedConnect) {
	if c.Err == nil {
		r.set.add(c.Host.ConnectAddress(), c.Host.Port())
	}
}

// natRoutes maps each node's private address to its public one, port kept.
func (nc *natCluster) natRoutes() map[string]string {
	m := map[string]string{}
	p := strconv.Itoa(nc.port)
	for i := range nc.private {
		m[net.JoinHostPort(nc.private[i], p)] = net.JoinHostPort(nc.public[i], p)
	}
	return m
}

// TestReviewTranslateControlNode compares how the drivers apply ClusterConfig.AddressTranslator
// to the node of the control connection, on a cluster behind NAT.
func TestReviewTranslateControlNode(t *testing.T) {
	nc := startNATCluster(t)
	p := strconv.Itoa(nc.port)
	t.Run("public contact point", func(t *testing.T) {
		runTranslateDiff(t, nc, translateScenario{
			contact: net.JoinHostPort(nc.public[0], p),
			routes:  nc.natRoutes(),
		}, 3)
	})
	t.Run("public contact point, default port not the cluster's", func(t *testing.T) {
		// As ClusterConfig.Port left at 9042 with contact points given with their port,
		// on a cluster on another port (1 here: the Cassandra node at 127.0.0.1:9042 is not
		// this test's).
		runTranslateDiff(t, nc, translateScenario{
			contact: net.JoinHostPort(nc.public[0], p),
			routes:  nc.natRoutes(),
			port:    1,
		}, 3)
	})
	t.Run("private contact point", func(t *testing.T) {
		runTranslateDiff(t, nc, translateScenario{
			contact: net.JoinHostPort(nc.private[0], p),
			routes:  nc.natRoutes(),
		}, 3)
	})
	t.Run("control node translated to another port", func(t *testing.T) {
		other := newNATProxy(t, "127.0.3.9:0", net.JoinHostPort(nc.private[0], p))
		routes := nc.natRoutes()
		routes[net.JoinHostPort(nc.private[0], p)] = other.ln.Addr().String()
		runTranslateDiff(t, nc, translateScenario{
			contact: net.JoinHostPort(nc.private[0], p),
			routes:  routes,
		}, 3)
	})
	t.Run("control node translated to nowhere", func(t *testing.T) {
		routes := nc.natRoutes()
		routes[net.JoinHostPort(nc.private[0], p)] = "127.0.3.10:1"
		runTranslateDiff(t, nc, translateScenario{
			contact: net.JoinHostPort(nc.private[0], p),
			routes:  routes,
		}, 2)
	})
}

// TestReviewTranslateOnlyNodeToNowhere: on a one-node cluster whose translator sends the
// node's address nowhere, the control connection opens on the contact point and the pool
// does not: CreateSession fails alike.
func TestReviewTranslateOnlyNodeToNowhere(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Listen: "127.0.2.1:0"})
	contact := sim.Addrs()[0]
	nowhere := net.ParseIP("127.0.3.10")
	var lt, ct trace
	{
		c := gocqlv1.NewCluster(contact)
		c.Port = sim.Port()
		c.ProtoVersion = 4
		c.ConnectTimeout = 2 * time.Second
		c.AddressTranslator = gocqlv1.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) { return nowhere, 1 })
		s, err := c.CreateSession()
		if err == nil {
			s.Close()
		}
		lt.add("CreateSession", err)
	}
	{
		c := gocql.NewCluster(contact)
		c.Port = sim.Port()
		c.ProtoVersion = 4
		c.ConnectTimeout = 2 * time.Second
		c.AddressTranslator = gocql.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) { return nowhere, 1 })
		s, err := c.CreateSession()
		if err == nil {
			s.Close()
		}
		ct.add("CreateSession", err)
	}
	sameTrace(t, &lt, &ct)
}
