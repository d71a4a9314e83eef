package native_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// routeDialer is a Config.Dialer that sends each connection to route[address] (a proxy in
// front of the node) and records the addresses it was asked for, and the hosts when it is
// used as a HostDialer.
type routeDialer struct {
	route map[string]string
	mu    sync.Mutex
	addrs []string
	hosts []native.Host
}

func (d *routeDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if network != "tcp" {
		return nil, errors.New("unexpected network " + network)
	}
	d.mu.Lock()
	d.addrs = append(d.addrs, address)
	target, ok := d.route[address]
	d.mu.Unlock()
	if !ok {
		return nil, errors.New("no route to " + address)
	}
	var nd net.Dialer
	return nd.DialContext(ctx, "tcp", target)
}

func (d *routeDialer) dialed() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// routeHostDialer is a routeDialer used as a HostDialer.
type routeHostDialer struct{ *routeDialer }

func (d routeHostDialer) DialHost(ctx context.Context, host native.Host) (net.Conn, error) {
	d.mu.Lock()
	d.hosts = append(d.hosts, host)
	d.mu.Unlock()
	return d.DialContext(ctx, "tcp", host.Addr)
}

// proxied puts a proxy in front of every node of cl and returns a dialer routing to them.
func proxied(t *testing.T, cl *cqlsim.Cluster) (*routeDialer, map[string]*cqltest.Proxy) {
	d := &routeDialer{route: map[string]string{}}
	proxies := map[string]*cqltest.Proxy{}
	for _, a := range cl.Addrs() {
		p := cqltest.NewProxy(t, a)
		proxies[a] = p
		d.route[a] = p.Addr()
	}
	return d, proxies
}

// Every connection, the control connection's and the pools', is opened by Config.Dialer:
// with every node behind a proxy that only the dialer knows, each node is dialled through
// it, for its control connection and for each pool connection, and the requests reach
// every node through its proxy.
func TestDialerOpensEveryConnection(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	d, proxies := proxied(t, cl)
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: d, ConnsPerHost: 2, Routing: native.RoundRobin})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	for range 30 {
		mustExec(t, s, "SELECT key FROM system.local")
	}
	perNode := map[string]int{}
	for _, a := range d.dialed() {
		if _, ok := proxies[a]; !ok {
			t.Fatalf("dialled %s, which is no node's address (nodes %v)", a, cl.Addrs())
		}
		perNode[a]++
	}
	for i, a := range cl.Addrs() {
		want := 2
		if i == 0 {
			want = 3 // the control connection too
		}
		if perNode[a] < want {
			t.Errorf("node %s dialled %d times, want at least %d (dials %v)", a, perNode[a], want, d.dialed())
		}
		if proxies[a].Sent() == 0 {
			t.Errorf("node %s: nothing came back through its proxy", a)
		}
	}
}

// A HostDialer is told the node: a contact point dialled before discovery with only its
// address, and every node the session discovered with what system.local and system.peers
// say of it. Config.TLS runs over the connection it returns.
func TestHostDialerGetsTheNode(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	d := &routeDialer{route: map[string]string{}}
	ca := cqltest.NewCA(t, "dial test CA")
	for _, a := range cl.Addrs() {
		// A TLS front for each node, with a certificate for the node's own address: the
		// server name checked is the node's, not the proxy's.
		ip, _, _ := net.SplitHostPort(a)
		cert := ca.Issue(t, ip, x509.ExtKeyUsageServerAuth)
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
		if err != nil {
			t.Fatal(err)
		}
		d.route[a] = cqltest.Serve(t, ln, func(c net.Conn) { cqltest.Relay(c, a) })
	}
	tlsCfg := &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: routeHostDialer{d}, TLS: tlsCfg, Routing: native.RoundRobin})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	for range 10 {
		mustExec(t, s, "SELECT key FROM system.local")
	}
	d.mu.Lock()
	hosts := append([]native.Host(nil), d.hosts...)
	d.mu.Unlock()
	if len(hosts) < 1+2*2 {
		t.Fatalf("DialHost called %d times, want the control connection and two pools of 2: %+v", len(hosts), hosts)
	}
	if h := hosts[0]; h.Addr != cl.Addrs()[0] || h.HostID != "" || h.DataCenter != "" {
		t.Errorf("the contact point's first dial got %+v, want only Addr %s", h, cl.Addrs()[0])
	}
	known := map[string]bool{}
	for _, h := range hosts[1:] {
		if h.HostID == "" || h.DataCenter == "" || len(h.Tokens) == 0 {
			t.Errorf("a pool connection's dial got %+v, want the discovered node", h)
		}
		known[h.Addr] = true
	}
	for _, a := range cl.Addrs() {
		if !known[a] {
			t.Errorf("node %s was never dialled as a discovered node", a)
		}
	}
	if len(d.dialed()) != len(hosts) {
		t.Errorf("DialContext called %d times besides DialHost's %d", len(d.dialed())-len(hosts), len(hosts))
	}
}

// errDialerRefused is the error of a dialer that refuses every address.
var errDialerRefused = errors.New("proxy refused the connection")

type dialerFunc func(ctx context.Context, network, address string) (net.Conn, error)

func (f dialerFunc) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return f(ctx, network, address)
}

// closeRecorder is a connection that reports its Close on closed.
type closeRecorder struct {
	net.Conn
	closed chan struct{}
	once   sync.Once
}

func (c *closeRecorder) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// A dialer's failure fails the connection with its own error; a dialer returning no
// connection and no error, one that panics (a nil *net.Dialer, say), or one that does not
// return within ConnectTimeout (whatever its context says) fails it too, without a panic or
// a hang; the connection such a late dialer returns at last is closed.
func TestDialerFailures(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	hosts := cl.Addrs()
	release := make(chan struct{})
	late := make(chan *closeRecorder, 16)
	var nilDialer *net.Dialer
	cases := []struct {
		name string
		dial native.Dialer
		want string
		is   error
	}{
		{"error", dialerFunc(func(context.Context, string, string) (net.Conn, error) { return nil, errDialerRefused }),
			errDialerRefused.Error(), errDialerRefused},
		{"nothing", dialerFunc(func(context.Context, string, string) (net.Conn, error) { return nil, nil }),
			"the dialer returned no connection and no error", nil},
		{"panics", nilDialer, "the dialer panicked", nil},
		{"ignores its context", dialerFunc(func(_ context.Context, _, address string) (net.Conn, error) {
			<-release
			var nd net.Dialer
			c, err := nd.Dial("tcp", address)
			if err != nil {
				return nil, err
			}
			rc := &closeRecorder{Conn: c, closed: make(chan struct{})}
			late <- rc
			return rc, nil
		}), "the dialer did not return in time", context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := native.Connect(context.Background(), native.Config{Hosts: hosts, Dialer: tc.dial, ConnectTimeout: 300 * time.Millisecond})
				done <- err
			}()
			select {
			case err := <-done:
				var nh *native.NoHostAvailableError
				if !errors.As(err, &nh) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Connect: %v, want a NoHostAvailableError with %q", err, tc.want)
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Fatalf("Connect: %v does not match %v", err, tc.is)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Connect still waiting for the dialer after 30 s (ConnectTimeout 300 ms)")
			}
		})
	}
	close(release) // the abandoned dial returns its connection now
	select {
	case rc := <-late:
		select {
		case <-rc.closed:
		case <-time.After(30 * time.Second):
			t.Fatal("the connection the abandoned dialer returned late is still open after 30 s")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the abandoned dialer did not return after its release")
	}
}

// The dialer's context lasts as long as the connection, past ConnectTimeout: a dialer may
// tie what it set up to it (here the connection itself, closed when the context ends), and
// the session keeps working. Closing the session ends every dialer context.
func TestDialerContextLastsAsLongAsTheConnection(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	var mu sync.Mutex
	var ctxs []context.Context
	d := dialerFunc(func(ctx context.Context, network, address string) (net.Conn, error) {
		var nd net.Dialer
		c, err := nd.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, func() { c.Close() })
		mu.Lock()
		ctxs = append(ctxs, ctx)
		mu.Unlock()
		return c, nil
	})
	const connectTimeout = 200 * time.Millisecond
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), Dialer: d, ConnectTimeout: connectTimeout})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * connectTimeout) // past every dial's ConnectTimeout
	for range 5 {
		mustExec(t, s, "SELECT key FROM system.local")
	}
	mu.Lock()
	for i, ctx := range ctxs {
		if ctx.Err() != nil {
			t.Errorf("dial %d: the context ended (%v) while its connection is in use", i, ctx.Err())
		}
		if _, ok := ctx.Deadline(); ok {
			t.Errorf("dial %d: the context has a deadline", i)
		}
	}
	n := len(ctxs)
	mu.Unlock()
	if n < 2 {
		t.Fatalf("%d dials, want the control connection's and the pool's", n)
	}
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	for i, ctx := range ctxs {
		if ctx.Err() == nil {
			t.Errorf("dial %d: the context outlives the closed session", i)
		}
	}
}

// Config.OnConnect is told of every attempt to open a connection: the control connection's
// (to the contact point, known by its address alone) and each pool's (to discovered nodes),
// and, once a node is down, the failed attempts to reconnect to it.
func TestOnConnectSeesEveryAttempt(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	var log connectLog
	seen := log.all
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], ConnsPerHost: 1, Routing: native.RoundRobin,
		OnConnect: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	evs := seen()
	if len(evs) == 0 || !evs[0].Control || evs[0].Err != nil || evs[0].Host.Addr != cl.Addrs()[0] || evs[0].Host.HostID != "" {
		t.Fatalf("first event %+v, want the control connection's to the contact point", evs)
	}
	pools := map[string]bool{}
	for _, e := range evs {
		if e.End.Before(e.Start) {
			t.Errorf("event %+v ends before it starts", e)
		}
		if !e.Control && e.Err == nil {
			if e.Host.HostID == "" {
				t.Errorf("pool connection event %+v without the discovered node", e)
			}
			pools[e.Host.Addr] = true
		}
	}
	if len(pools) != 2 {
		t.Fatalf("pool connections opened to %v, want both nodes (events %+v)", pools, evs)
	}
	if err := cl.StopNode(1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		failed := false
		for _, e := range seen() {
			failed = failed || (e.Host.Addr == cl.Addrs()[1] && e.Err != nil)
		}
		if failed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failed connection attempt to the stopped node after 30 s: %+v", seen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A request that finds every stream id of its node's connection in use (requests that
// timed out hold theirs until the slow node's late answers come) waits for one no longer
// than its timeout, then goes to the next node; pinned to the saturated node, it fails with
// ErrTimeout after its timeout, not when the node answers.
func TestSaturatedConnectionBoundedByTimeout(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	const timeout, delay = 500 * time.Millisecond, 30 * time.Second
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1, Routing: native.RoundRobin, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	slow := cl.Addrs()[0]
	if err := cl.SetNodeDelay(0, delay); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.SetNodeDelay(0, 0) }()
	const flood = 32768 + 100 // more than a connection's stream ids
	pending := make([]*native.Pending, flood)
	for i := range pending {
		pending[i] = s.ExecuteAsync(context.Background(), native.Query("SELECT key FROM system.local").WithHost(slow))
	}
	for _, p := range pending {
		<-p.Done() // each times out (or waits for a stream and then times out)
	}
	start := time.Now()
	for i := range 4 {
		if _, err := s.Execute(context.Background(), native.Query("SELECT key FROM system.local")); err != nil {
			t.Fatalf("request %d: %v (the other node is idle)", i, err)
		}
	}
	if took := time.Since(start); took >= delay {
		t.Errorf("4 requests took %v: they waited for the saturated node", took)
	}
	start = time.Now()
	_, err = s.Execute(context.Background(), native.Query("SELECT key FROM system.local").WithHost(slow))
	if took := time.Since(start); !errors.Is(err, native.ErrTimeout) || took >= delay {
		t.Errorf("a request pinned to the saturated node: %v after %v, want ErrTimeout after about %v", err, took, timeout)
	}
}

// connectThenSlow connects a session with cfg to cl's two nodes while they answer at once,
// then delays every statement on the first node by delay (until the test ends).
func connectThenSlow(t *testing.T, cl *cqlsim.Cluster, cfg native.Config, delay time.Duration) *native.Session {
	t.Helper()
	if err := cl.SetNodeDelay(0, 0); err != nil {
		t.Fatal(err)
	}
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitHostsUp(t, s, 2)
	if err := cl.SetNodeDelay(0, delay); err != nil {
		s.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.SetNodeDelay(0, 0) })
	return s
}

// burst runs f(0) to f(n-1) on n goroutines released together, and waits for them.
func burst(n int, f func(i int)) {
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-begin
			f(i)
		}()
	}
	close(begin)
	wg.Wait()
}

// A connection's stream ids may run out between the look that finds a free one and the start
// of the request, when other requests take them meanwhile: the request then waits for an id no
// longer than its timeout either. Many synchronous requests (4096), started together on a
// connection with 2048 stream ids, race for them; every one that found none fails within its timeout
// instead of waiting for the slow node's late answers. Each round has a session (and a
// connection) of its own, as the first round's late answers keep its ids in use.
func TestStreamIDsRunOutDuringStart(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	const timeout, delay = 200 * time.Millisecond, 20 * time.Second
	cfg := native.WithMaxStreams(native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1, Timeout: timeout}, 2048)
	slow := cl.Addrs()[0]
	for round := range 8 {
		s := connectThenSlow(t, cl, cfg, delay)
		const n = 4096
		took := make([]time.Duration, n)
		errs := make([]error, n)
		burst(n, func(i int) {
			start := time.Now()
			_, errs[i] = s.Execute(context.Background(), native.Query("SELECT key FROM system.local").WithHost(slow))
			took[i] = time.Since(start)
		})
		s.Close()
		for i := range n {
			if !errors.Is(errs[i], native.ErrTimeout) || took[i] >= delay/2 {
				t.Fatalf("round %d, request %d: %v after %v, want a timeout after about %v", round, i, errs[i], took[i], timeout)
			}
		}
	}
}

// A request not fixed to a node, whose node's last free stream ids are taken by other requests
// between the look that found one and its start, passes the node over as if it had been seen
// busy: it goes to the other node, idle here, instead of waiting on the slow one until its
// timeout. Requests sent to the slow node time out there; none fails waiting for a stream id.
func TestStreamIDsRunOutPassesNodeOver(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	const timeout, delay = 200 * time.Millisecond, 20 * time.Second
	cfg := native.WithMaxStreams(native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1, Routing: native.RoundRobin, Timeout: timeout}, 2048)
	slow := cl.Addrs()[0]
	for round := range 8 {
		s := connectThenSlow(t, cl, cfg, delay)
		// Three quarters of the slow node's ids held by requests that wait for its late
		// answers; the idle node never has more requests in flight than it has ids.
		held := make([]*native.Pending, 1536)
		for i := range held {
			held[i] = s.ExecuteAsync(context.Background(), native.Query("SELECT key FROM system.local").WithHost(slow).WithTimeout(time.Minute))
		}
		errs := make([]error, 2048)
		burst(len(errs), func(i int) {
			_, errs[i] = s.Execute(context.Background(), native.Query("SELECT key FROM system.local"))
		})
		s.Close()
		for _, p := range held {
			<-p.Done()
		}
		for i, err := range errs {
			if err != nil && (!errors.Is(err, native.ErrTimeout) || strings.Contains(err.Error(), "free stream id")) {
				t.Fatalf("round %d, request %d: %v; want success on the idle node, or a timeout of a request sent to the slow one", round, i, err)
			}
		}
	}
}

// The same, made certain: a hook takes the slow node's last free stream id after nextConn
// found it free and before the request starts. The request passes the node over and succeeds
// on the idle one; it does not wait on the slow node until its timeout (ErrTimeout).
func TestLastStreamIDTakenPassesNodeOver(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	const ids = 2048
	slow := cl.Addrs()[0]
	query := func() native.Statement { return native.Query("SELECT key FROM system.local") }
	var s *native.Session
	var armed atomic.Bool
	taken := make(chan *native.Pending, 1)
	hook := func(addr string) {
		if addr == slow && armed.CompareAndSwap(true, false) {
			taken <- s.ExecuteAsync(context.Background(), query().WithHost(slow).WithTimeout(time.Minute))
		}
	}
	cfg := native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1, Routing: native.RoundRobin, Timeout: 2 * time.Second}
	s = connectThenSlow(t, cl, native.WithBeforeTryStart(native.WithMaxStreams(cfg, ids), hook), 20*time.Second)
	held := make([]*native.Pending, ids-1) // all the slow node's ids but one
	for i := range held {
		held[i] = s.ExecuteAsync(context.Background(), query().WithHost(slow).WithTimeout(time.Minute))
	}
	armed.Store(true)
	// Round robin sends one of two requests to the slow node.
	for i := range 2 {
		if _, err := s.Execute(context.Background(), query()); err != nil {
			t.Fatalf("request %d: %v; want it answered by the idle node", i, err)
		}
	}
	if armed.Load() {
		t.Fatal("no request started on the slow node: the test did not take its last id")
	}
	s.Close()
	for _, p := range append(held, <-taken) {
		<-p.Done()
	}
}

// With LocalDC set, a local node whose stream ids are all in use (slow to answer) is not a
// reason to send a request to another data center, where a LOCAL_* consistency would mean
// that data center: the request waits for a stream id on the local node, no longer than its
// timeout, and fails with ErrTimeout without an attempt on the remote node.
func TestSaturatedLocalNodeNotLeftForRemote(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, NodeDataCenters: []string{"dc1", "dc2"}})
	remote := cl.Addrs()[1]
	var remoteAttempts atomic.Int32
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], LocalDC: "dc1", ConnsPerHost: 1,
		Timeout: time.Second, Observer: func(_ context.Context, a native.Attempt) {
			if a.Host == remote {
				remoteAttempts.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	local := cl.Addrs()[0]
	if err := cl.SetNodeDelay(0, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.SetNodeDelay(0, 0) }()
	flood := make([]*native.Pending, 32768+100)
	for i := range flood {
		flood[i] = s.ExecuteAsync(context.Background(), native.Query("SELECT key FROM system.local").WithHost(local).WithTimeout(100*time.Millisecond))
	}
	for _, p := range flood {
		<-p.Done()
	}
	remoteAttempts.Store(0)
	start := time.Now()
	_, err = s.Execute(context.Background(), native.Query("SELECT key FROM system.local").WithConsistency(native.LocalOne))
	if took := time.Since(start); !errors.Is(err, native.ErrTimeout) || took >= 30*time.Second {
		t.Errorf("a request while the local node is saturated: %v after %v, want ErrTimeout after about 1 s", err, took)
	}
	if n := remoteAttempts.Load(); n != 0 {
		t.Errorf("%d attempts on the remote data center's node", n)
	}
}

// recorder collects values that callbacks report from any goroutine.
type recorder[T any] struct {
	mu    sync.Mutex
	items []T
}

func (r *recorder[T]) add(v T) {
	r.mu.Lock()
	r.items = append(r.items, v)
	r.mu.Unlock()
}

// all returns a copy of everything recorded so far.
func (r *recorder[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.items)
}

// take returns what was recorded since the last call.
func (r *recorder[T]) take() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.items
	r.items = nil
	return v
}

// connectLog records the connection attempts Config.OnConnect is told of.
type connectLog = recorder[native.ConnectEvent]
