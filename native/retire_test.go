package native_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// A node that leaves the topology (here rejected by a HostFilter; a schema change makes the
// control connection refresh) gets no new request, but the requests already in flight on it
// complete: none fails with ErrConnClosed, which a non-idempotent request could not retry.
// Afterwards its connections are closed.
func TestRemovedNodeFinishesRequestsInFlight(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	var exclude atomic.Value
	exclude.Store("")
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second, ConnsPerHost: 2,
		HostFilter: func(h native.Host) bool { return h.Addr != exclude.Load().(string) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	gone := cl.Addrs()[2]
	if runtime.GOOS == "linux" {
		// The test's own process holds both ends: count the client's.
		pollUntil(t, 10*time.Second, "the pool of the node to remove never opened", func() bool {
			return establishedTo(t, gone) == 2
		})
	}

	var stop atomic.Bool
	var mu sync.Mutex
	var served, closedErrs, otherErrs int
	var firstClosed, firstOther error
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				// Not idempotent, and pinned to the node: a closed connection is the
				// caller's error, nothing retries it elsewhere.
				_, err := s.Execute(ctxT(t), native.Query("SELECT * FROM system.local").WithHost(gone))
				mu.Lock()
				var nh *native.NoHostAvailableError
				switch {
				case err == nil:
					served++
				case errors.As(err, &nh) && errors.Is(err, native.ErrNotSent):
					// Not sent: the node had left ("not a node of the cluster", "the node
					// left the cluster"), or its connection closed before the request went
					// out.
				case errors.Is(err, native.ErrConnClosed):
					closedErrs++
					if firstClosed == nil {
						firstClosed = err
					}
				default:
					otherErrs++
					if firstOther == nil {
						firstOther = err
					}
				}
				mu.Unlock()
			}
		}()
	}
	pollUntil(t, 10*time.Second, "no request served before the removal", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return served > 100
	})
	// Slow the node down, so that requests are in flight on it, each for a second, whenever
	// the session drops it.
	if err := cl.SetNodeDelay(2, time.Second); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	exclude.Store(gone)
	n := 0
	pollUntil(t, 20*time.Second, "node never left", func() bool {
		if len(s.Hosts()) == 2 {
			return true
		}
		// A schema change makes the control connection read the topology again; the DDL
		// goes to node 1, not to the slow node.
		n++
		ddl := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS retire%d WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", n)
		if _, err := s.Execute(ctxT(t), native.Query(ddl).WithHost(cl.Addrs()[0])); err != nil {
			t.Fatal(err)
		}
		return len(s.Hosts()) == 2
	})
	mu.Lock()
	atDrop := served
	mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if closedErrs > 0 || otherErrs > 0 {
		t.Fatalf("of the requests in flight when the node left, %d failed with ErrConnClosed (first: %v) and %d otherwise (first: %v)",
			closedErrs, firstClosed, otherErrs, firstOther)
	}
	// A request for the node now is refused without being sent anywhere.
	if _, err := s.Execute(ctxT(t), native.Query("SELECT * FROM system.local").WithHost(gone)); !errors.Is(err, native.ErrNotSent) {
		t.Errorf("a request pinned to the node after it left: %v, want an error matching ErrNotSent", err)
	}
	// What succeeded since the node left was in flight on it then.
	if served == atDrop {
		t.Fatal("no request completed after the node left: the test saw none in flight")
	}
	if runtime.GOOS == "linux" {
		pollUntil(t, 10*time.Second, "the removed node's connections stay open", func() bool {
			return establishedTo(t, gone) == 0
		})
	}
}

// establishedTo counts this process's established TCP connections to addr (an IPv4
// host:port), from /proc/net/tcp.
func establishedTo(t *testing.T, addr string) int {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ip := net.ParseIP(host).To4()
	p, err := strconv.Atoi(port)
	if ip == nil || err != nil {
		t.Fatalf("%q is not an IPv4 host:port", addr)
	}
	// /proc/net/tcp writes the address as the 32-bit value in host order (little endian
	// here), then the port in big endian, both in hex.
	want := fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], p)
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		// sl local_address rem_address st ...; st 01 is ESTABLISHED.
		if len(f) > 3 && f[2] == want && f[3] == "01" {
			n++
		}
	}
	return n
}
