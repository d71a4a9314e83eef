package native_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/internal/ring"
)

// simSession starts an embedded cqlsim cluster and connects to it.
func simSession(t *testing.T, opts cqlsim.Options, mod ...func(*native.Config)) *native.Session {
	t.Helper()
	_, s := simClusterSession(t, opts, mod...)
	return s
}

// simClusterSession is simSession, returning the cluster too.
func simClusterSession(t *testing.T, opts cqlsim.Options, mod ...func(*native.Config)) (*cqlsim.Cluster, *native.Session) {
	t.Helper()
	cl := cqlsim.StartT(t, opts)
	cfg := native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second}
	for _, m := range mod {
		m(&cfg)
	}
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("Connect to cqlsim: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return cl, s
}

// ownerOf returns, for the nodes s knows, the address of the node that owns a routing key's
// token (replication factor 1: the token's primary owner), computed from their tokens.
func ownerOf(t *testing.T, s *native.Session) func(routingKey []byte) string {
	t.Helper()
	hosts := s.Hosts()
	nodeTokens := make([][]int64, len(hosts))
	for i, h := range hosts {
		for _, tok := range h.Tokens {
			v, err := ring.ParseToken(tok)
			if err != nil {
				t.Fatal(err)
			}
			nodeTokens[i] = append(nodeTokens[i], v)
		}
	}
	rg := ring.New(nodeTokens)
	return func(routingKey []byte) string { return hosts[rg.Owner(ring.Token(routingKey))].Addr }
}

// routeCompositeKeys executes ins, an "INSERT INTO <table> (c, b, a)" of a table whose partition
// key is (a int, b text), for n keys, reports (as what) each key that did not reach the node
// owning its token, and returns how many keys each node served.
func routeCompositeKeys(t *testing.T, s *native.Session, ins *native.Prepared, n int, what string) map[string]int {
	t.Helper()
	owner := ownerOf(t, s)
	perHost := map[string]int{}
	for k := range n {
		b := "k" + strconv.Itoa(k*7919)
		res, err := s.Execute(ctxT(t), ins.Bind(1, b, k))
		if err != nil {
			t.Fatalf("%s (%d, %q): %v", what, k, b, err)
		}
		rk, ok := ring.AppendRoutingKey(nil, binary.BigEndian.AppendUint32(nil, uint32(k)), []byte(b))
		if !ok {
			t.Fatalf("no routing key for (%d, %q)", k, b)
		}
		if o := owner(rk); res.Host() != o {
			t.Errorf("%s (%d, %q) went to %s, its replica is %s", what, k, b, res.Host(), o)
		}
		perHost[res.Host()]++
	}
	return perHost
}

// On a three-node cluster, token-aware routing sends each prepared statement to the node
// that owns its partition (replication factor 1: exactly one replica).
func TestTokenAwareRoutingOnThreeNodes(t *testing.T) {
	s := simSession(t, cqlsim.Options{Nodes: 3})
	hosts := s.Hosts()
	if len(hosts) != 3 {
		t.Fatalf("session sees %d nodes, want 3: %+v", len(hosts), hosts)
	}
	for _, h := range hosts {
		// system.peers has no partitioner column: peers get the control node's.
		if h.Partitioner != "org.apache.cassandra.dht.Murmur3Partitioner" {
			t.Errorf("host %s: partitioner %q", h.Addr, h.Partitioner)
		}
	}
	mustExec(t, s, "CREATE KEYSPACE r WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE r.kv (k int PRIMARY KEY, v int)")
	// The driver refreshes its replica map on the schema change event; wait for it.
	time.Sleep(500 * time.Millisecond)

	owner := ownerOf(t, s)
	ins := mustPrepare(t, s, "INSERT INTO r.kv (k, v) VALUES (?, ?)")
	perHost := map[string]int{}
	for k := range 60 {
		res, err := s.Execute(ctxT(t), ins.Bind(k, k))
		if err != nil {
			t.Fatal(err)
		}
		if o := owner(binary.BigEndian.AppendUint32(nil, uint32(k))); res.Host() != o {
			t.Errorf("key %d went to %s, its replica is %s", k, res.Host(), o)
		}
		perHost[res.Host()]++
	}
	if len(perHost) != 3 {
		t.Errorf("60 keys reached %d nodes: %v", len(perHost), perHost)
	}
	// A composite partition key, its markers bound in another order than the key's columns:
	// the routing key is built from both components, in key order.
	mustExec(t, s, "CREATE TABLE r.ck (a int, b text, c int, PRIMARY KEY ((a, b), c))")
	time.Sleep(500 * time.Millisecond)
	insCK := mustPrepare(t, s, "INSERT INTO r.ck (c, b, a) VALUES (?, ?, ?)")
	perHost = routeCompositeKeys(t, s, insCK, 60, "composite key")
	if len(perHost) != 3 {
		t.Errorf("60 composite keys reached %d nodes: %v", len(perHost), perHost)
	}
	// A simple statement with an explicit routing key is routed the same way.
	for k := range 20 {
		key := binary.BigEndian.AppendUint32(nil, uint32(k))
		res, err := s.Execute(ctxT(t), native.Query("INSERT INTO r.kv (k, v) VALUES (?, ?)", int32(k), int32(k)).WithRoutingKey("r", key))
		if err != nil {
			t.Fatal(err)
		}
		if o := owner(key); res.Host() != o {
			t.Errorf("simple statement for key %d went to %s, its replica is %s", k, res.Host(), o)
		}
	}

	// Round-robin spreads statements over every node regardless of the key.
	rr := simSession(t, cqlsim.Options{Nodes: 3}, func(c *native.Config) { c.Routing = native.RoundRobin })
	seen := map[string]bool{}
	for range 9 {
		res := mustExec(t, rr, "SELECT release_version FROM system.local")
		seen[res.Host()] = true
	}
	if len(seen) != 3 {
		t.Errorf("round-robin used %d nodes", len(seen))
	}
}

func TestPasswordAuthentication(t *testing.T) {
	opts := cqlsim.Options{Username: "alice", Password: "s3cret"}
	cl := cqlsim.StartT(t, opts)
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), Authenticator: &native.PasswordAuthenticator{Username: "alice", Password: "s3cret"}})
	if err != nil {
		t.Fatalf("good credentials: %v", err)
	}
	mustExec(t, s, "SELECT release_version FROM system.local")
	s.Close()

	_, err = native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), Authenticator: &native.PasswordAuthenticator{Username: "alice", Password: "wrong"}})
	var ae *native.AuthenticationError
	if !errors.As(err, &ae) {
		t.Errorf("bad credentials: want AuthenticationError, got %v", err)
	}
	if _, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()}); err == nil {
		t.Error("connecting without credentials to a server that requires them succeeded")
	}
}

func TestCompression(t *testing.T) {
	for _, algo := range []string{"lz4", "snappy"} {
		t.Run(algo, func(t *testing.T) {
			s := simSession(t, cqlsim.Options{}, func(c *native.Config) { c.Compression = algo })
			mustExec(t, s, "CREATE KEYSPACE z WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, s, "CREATE TABLE z.kv (k int PRIMARY KEY, v text)")
			big := make([]byte, 200_000)
			for i := range big {
				big[i] = 'a' + byte(i%7)
			}
			mustExec(t, s, "INSERT INTO z.kv (k, v) VALUES (?, ?)", int32(1), string(big))
			v, err := native.ScanOne[string](mustExec(t, s, "SELECT v FROM z.kv WHERE k = 1"))
			if err != nil || v != string(big) {
				t.Fatalf("compressed round trip: %d bytes, %v", len(v), err)
			}
		})
	}
}

func TestCompressionAgainstServer(t *testing.T) {
	for _, algo := range []string{"lz4", "snappy"} {
		t.Run(algo, func(t *testing.T) {
			s, _ := connect(t, func(c *native.Config) { c.Compression = algo })
			mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
			mustExec(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)", int32(1), "compressed")
			if v, err := native.ScanOne[string](mustExec(t, s, "SELECT v FROM kv WHERE k = 1")); err != nil || v != "compressed" {
				t.Fatalf("%q, %v", v, err)
			}
		})
	}
}

func TestConfigDefaultsAndAddressTranslator(t *testing.T) {
	var translated []string
	s := simSession(t, cqlsim.Options{Nodes: 2}, func(c *native.Config) {
		c.PageSize = 3
		c.AddressTranslator = func(addr string) string {
			translated = append(translated, addr)
			return addr
		}
	})
	if len(translated) == 0 {
		t.Error("the address translator was not consulted for the peer")
	}
	if len(s.Hosts()) != 2 {
		t.Fatalf("hosts: %+v", s.Hosts())
	}
	mustExec(t, s, "CREATE KEYSPACE d WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE d.t (p int, c int, PRIMARY KEY (p, c))")
	for i := range 7 {
		mustExec(t, s, "INSERT INTO d.t (p, c) VALUES (0, ?)", int32(i))
	}
	res := mustExec(t, s, "SELECT c FROM d.t WHERE p = 0")
	if res.Len() != 3 || !res.HasMorePages() {
		t.Errorf("Config.PageSize 3: page of %d rows, more %t", res.Len(), res.HasMorePages())
	}
	n := 0
	for _, err := range res.All(ctxT(t)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 7 {
		t.Errorf("All over pages of 3: %d rows", n)
	}
}

// A Config.PageSize beyond the protocol's int32 means the largest page, not a truncated one.
func TestConfigPageSizeAboveInt32(t *testing.T) {
	sizes := []int{math.MaxInt32} // int is 32 bits: nothing above int32 to clamp
	if math.MaxInt > math.MaxInt32 {
		// A variable: converting these constants to a 32-bit int does not compile, even here.
		one := int64(1)
		sizes = []int{int(one<<32 + 3), int(one << 31)} // 2^31 disabled paging once
	}
	for _, size := range sizes {
		s := simSession(t, cqlsim.Options{}, func(c *native.Config) { c.PageSize = size })
		if got := s.Config().PageSize; got != math.MaxInt32 {
			t.Errorf("PageSize %d: Config().PageSize = %d, want math.MaxInt32", size, got)
		}
		mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS d WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
		mustExec(t, s, "CREATE TABLE IF NOT EXISTS d.t (p int, c int, PRIMARY KEY (p, c))")
		for i := range 7 {
			mustExec(t, s, "INSERT INTO d.t (p, c) VALUES (0, ?)", int32(i))
		}
		res := mustExec(t, s, "SELECT c FROM d.t WHERE p = 0")
		if res.Len() != 7 || res.HasMorePages() {
			t.Errorf("PageSize %d: first page of %d rows, more %t; want all 7 in one page", size, res.Len(), res.HasMorePages())
		}
	}
}

// Requests started right after a node stopped are not sent on its connections, which the
// server closed while they were idle: they go to the next node of their plan, idempotent or
// not, and without a retry policy. Paging across the stop loses no page either, and a USE
// succeeds.
func TestRequestsAfterANodeStopsAreNotLost(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	mustExec(t, s, "CREATE KEYSPACE g WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	mustExec(t, s, "CREATE TABLE g.t (p int, c int, PRIMARY KEY (p, c))")
	for c := range 100 {
		mustExec(t, s, "INSERT INTO g.t (p, c) VALUES (0, ?)", int32(c))
	}
	for round := range 3 {
		node := round % 3
		if node == 0 {
			node = 1 // keep the control connection's node, which cqlsim's peers report
		}
		// Every connection of every node has just been used, and is idle now.
		for range 12 {
			mustExec(t, s, "SELECT * FROM system.local")
		}
		res := mustExec(t, s, "SELECT c FROM g.t WHERE p = 0")
		if err := cl.StopNode(node); err != nil {
			t.Fatal(err)
		}
		// A USE reaches the connections that are still open; the stopped node's closed ones
		// are no failure (their replacements join the pool in the new keyspace).
		ks := []string{"g", "system", "g"}[round]
		if _, err := s.Execute(ctxT(t), native.Query("USE "+ks)); err != nil || s.Keyspace() != ks {
			t.Fatalf("round %d: USE %s after node %d stopped: %v (session keyspace %q)", round, ks, node, err, s.Keyspace())
		}
		for i := range 12 {
			if _, err := s.Execute(ctxT(t), native.Query("SELECT * FROM system.local")); err != nil {
				t.Fatalf("round %d, request %d after node %d stopped: %v", round, i, node, err)
			}
		}
		n := 0
		for _, err := range res.All(ctxT(t)) {
			if err != nil {
				t.Fatalf("round %d: paging after node %d stopped, after %d rows: %v", round, node, n, err)
			}
			n++
		}
		if n != 100 {
			t.Fatalf("round %d: %d rows, want 100", round, n)
		}
		if err := cl.StartNode(node); err != nil {
			t.Fatal(err)
		}
		waitHostsUp(t, s, 3)
	}
}

// With every node stopped while the session was idle, a request's error says the
// connections were closed, not that the pools are still making their first connection.
func TestAllNodesStoppedWhileIdleError(t *testing.T) {
	_, s := stopWholeCluster(t, 2, native.Config{Timeout: 30 * time.Second})
	// Wait until the session saw both nodes go.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		up := 0
		for _, h := range s.Hosts() {
			if h.Up {
				up++
			}
		}
		if up == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d nodes still up 10s after stopping them all", up)
		}
	}
	_, err := s.Execute(ctxT(t), native.Query("SELECT * FROM system.local"))
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || strings.Contains(err.Error(), "no open connection yet") || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("every node stopped: %v; want a NoHostAvailableError saying the connections closed", err)
	}
}

// When a node stops, requests fail over to the next nodes of their plan; when it comes
// back, the session reconnects and routes to it again.
func TestFailoverWhenANodeStops(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	// Requests that were in flight on the stopped node's connections have an unknown
	// outcome; as they are idempotent, NextHostRetry sends them to another node.
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second, RetryPolicy: native.NextHostRetry{MaxRetries: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE f WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE f.kv (k int PRIMARY KEY, v int)")
	ins := mustPrepare(t, s, "INSERT INTO f.kv (k, v) VALUES (?, ?)")
	stopped := cl.Addrs()[1]

	if err := cl.StopNode(1); err != nil {
		t.Fatal(err)
	}
	for k := range 60 {
		res, err := s.Execute(ctxT(t), ins.Bind(k, k).WithIdempotent(true))
		if err != nil {
			t.Fatalf("key %d with node %s down: %v", k, stopped, err)
		}
		if res.Host() == stopped {
			t.Fatalf("key %d answered by the stopped node", k)
		}
	}
	for _, h := range s.Hosts() {
		if h.Addr == stopped && h.Up {
			t.Errorf("stopped node reported up")
		}
	}

	if err := cl.StartNode(1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		back := false
		for k := range 30 {
			res, err := s.Execute(ctxT(t), ins.Bind(k, k).WithIdempotent(true))
			if err != nil {
				t.Fatal(err)
			}
			back = back || res.Host() == stopped
		}
		if back {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the restarted node never served requests again")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Prepare also prepares the statement on the other nodes (in the background), so an EXECUTE
// sent to any of them runs at once instead of being answered UNPREPARED and re-prepared.
// With PrepareOnOneNode only the node that answered the PREPARE knows it.
func TestPrepareOnAllNodes(t *testing.T) {
	for _, one := range []bool{false, true} {
		t.Run(fmt.Sprintf("PrepareOnOneNode=%v", one), func(t *testing.T) {
			cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
			var mu sync.Mutex
			var reprepared []string
			s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second, PrepareOnOneNode: one,
				Observer: func(_ context.Context, a native.Attempt) {
					if a.Reprepare {
						mu.Lock()
						reprepared = append(reprepared, a.Host)
						mu.Unlock()
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			waitHostsUp(t, s, 3)
			p := mustPrepare(t, s, "SELECT release_version FROM system.local")
			knownBy := func() int {
				n := 0
				for i := range cl.Addrs() {
					if cl.KnowsPrepared(i, p.ID()) {
						n++
					}
				}
				return n
			}
			if one {
				if n := knownBy(); n != 1 {
					t.Fatalf("with PrepareOnOneNode, %d nodes know the statement after Prepare, want 1", n)
				}
			} else {
				deadline := time.Now().Add(10 * time.Second)
				for knownBy() != 3 {
					if time.Now().After(deadline) {
						t.Fatalf("%d of 3 nodes know the statement 10s after Prepare", knownBy())
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			for _, h := range cl.Addrs() {
				if _, err := s.Execute(ctxT(t), p.Bind().WithHost(h)); err != nil {
					t.Fatalf("execute on %s: %v", h, err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			want := 0
			if one {
				want = 2 // the two nodes that did not answer the PREPARE
			}
			if len(reprepared) != want {
				t.Errorf("re-prepared on %v, want %d re-prepares", reprepared, want)
			}
		})
	}
}

// When every node the control connection knew fails, it falls back to the contact points
// Config.ResolveHosts gives, not Hosts: a session whose only node (DisablePeerDiscovery)
// moved to another address reaches it there.
func TestControlFallbackResolvesHostsAgain(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	var mu sync.Mutex
	resolved := 0
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], DisablePeerDiscovery: true,
		Timeout: 5 * time.Second, ConnectTimeout: time.Second,
		ResolveHosts: func(context.Context) []string { mu.Lock(); resolved++; mu.Unlock(); return cl.Addrs()[1:] }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mu.Lock()
	if resolved != 0 {
		t.Errorf("ResolveHosts was called %d times for the first connection", resolved)
	}
	mu.Unlock()
	if err := cl.StopNode(0); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 30*time.Second, "a query reaching the node ResolveHosts gives", func() bool {
		_, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local"))
		return err == nil
	})
	mu.Lock()
	defer mu.Unlock()
	if resolved == 0 {
		t.Error("the control connection did not call ResolveHosts")
	}
}
