package native_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// twoKeyspaces connects to a fresh keyspace and makes a second one; both hold table w with
// the row k = 1 whose v is the keyspace's name.
func twoKeyspaces(t *testing.T, mod ...func(*native.Config)) (s *native.Session, ks1, ks2 string) {
	t.Helper()
	s, ks1 = connect(t, mod...)
	ks2, hosts := testKeyspace(t, 1)
	for _, ks := range []string{ks1, ks2} {
		adminExec(t, hosts, "CREATE TABLE "+ks+".w (k int PRIMARY KEY, v text)")
		adminExec(t, hosts, fmt.Sprintf("INSERT INTO %s.w (k, v) VALUES (1, '%s')", ks, ks))
	}
	return s, ks1, ks2
}

// readW reads w's row through an unqualified statement: the name of the keyspace it hit.
func readW(t *testing.T, s *native.Session, stmt native.Statement) string {
	t.Helper()
	v, err := tryReadW(s, stmt)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// tryReadW is readW returning the error.
func tryReadW(s *native.Session, stmt native.Statement) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.Execute(ctx, stmt)
	if err != nil {
		return "", fmt.Errorf("reading w: %w", err)
	}
	v, err := native.ScanOne[string](res)
	if err != nil {
		return "", fmt.Errorf("reading w: %w", err)
	}
	return v, nil
}

// Two USE statements at the same time, while statements are being prepared: afterwards every
// connection is in the keyspace Session.Keyspace reports, and each prepared statement reads the
// keyspace its Keyspace method names.
func TestConcurrentUseLeavesOneKeyspace(t *testing.T) {
	s, ks1, ks2 := twoKeyspaces(t, func(c *native.Config) { c.ConnsPerHost = 4 })
	conns := 4 * len(s.Hosts())
	for round := range 12 {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		prepared := make(chan *native.Prepared, 1)
		for _, ks := range []string{ks1, ks2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if _, err := s.Execute(ctxT(t), native.Query("USE "+ks)); err != nil {
					errs <- fmt.Errorf("USE %s: %w", ks, err)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// A text of its own each round, so that it is prepared now, not found in the cache.
			p, err := s.Prepare(ctxT(t), "SELECT v FROM w WHERE k = ?"+strings.Repeat(" ", round+1))
			if err != nil {
				errs <- err
				return
			}
			prepared <- p
		}()
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
		want := s.Keyspace()
		for i := range 3 * conns {
			if got := readW(t, s, native.Query("SELECT v FROM w WHERE k = 1")); got != want {
				t.Fatalf("round %d, read %d: an unqualified read hit keyspace %s; the session keyspace is %s", round, i, got, want)
			}
		}
		p := <-prepared
		for i := range 3 * conns {
			// On a cluster, a node the USE overtook the background PREPARE to does not know
			// the statement: it is prepared there again in its own keyspace.
			got, err := tryReadW(s, p.Bind(1))
			if err != nil {
				t.Fatalf("round %d, execute %d: %v", round, i, err)
			}
			if got != p.Keyspace() {
				t.Fatalf("round %d, execute %d: a statement prepared in keyspace %s read keyspace %s", round, i, p.Keyspace(), got)
			}
		}
	}
}

// kaKbOnThreeNodes starts three cqlsim nodes and a session (PrepareOnOneNode, with dialer
// when not nil) in keyspace ka, after making keyspaces ka and kb, each with table w holding the
// row k = 1 whose v is the keyspace's name.
func kaKbOnThreeNodes(t *testing.T, dialer native.Dialer) (*cqlsim.Cluster, *native.Session) {
	t.Helper()
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second, PrepareOnOneNode: true, Dialer: dialer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	waitHostsUp(t, s, 3)
	for _, ks := range []string{"ka", "kb"} {
		mustExec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
		mustExec(t, s, "CREATE TABLE "+ks+".w (k int PRIMARY KEY, v text)")
		mustExec(t, s, "INSERT INTO "+ks+".w (k, v) VALUES (1, '"+ks+"')")
	}
	mustExec(t, s, "USE ka")
	return cl, s
}

// A statement prepared in one keyspace and re-prepared (UNPREPARED) on a node after a USE
// moved the session to another keyspace is prepared there again in its own keyspace, qualified
// or not, and reads its own keyspace's table; when that keyspace is gone, the request fails
// with ErrPreparedKeyspaceChanged rather than read the session keyspace's table.
func TestReprepareAfterUse(t *testing.T) {
	cl, s := kaKbOnThreeNodes(t, nil)
	unqualified := mustPrepare(t, s, "SELECT v FROM w WHERE k = ?")
	qualified := mustPrepare(t, s, "SELECT v FROM ka.w WHERE k = ?")
	hostU, hostQ := unpreparedNode(t, cl, unqualified), unpreparedNode(t, cl, qualified)
	mustExec(t, s, "USE kb")

	if got := readW(t, s, unqualified.Bind(1).WithHost(hostU)); got != "ka" {
		t.Fatalf("unqualified statement prepared in ka, re-prepared after USE kb, read %s", got)
	}
	if !cl.KnowsPrepared(nodeIndex(t, cl, hostU), unqualified.ID()) {
		t.Fatalf("%s does not know the statement after re-preparing it", hostU)
	}
	if got := readW(t, s, qualified.Bind(1).WithHost(hostQ)); got != "ka" {
		t.Fatalf("qualified statement re-prepared after USE kb read %s, want ka", got)
	}
	// The session's own connections stayed in kb.
	if got := readW(t, s, native.Query("SELECT v FROM w WHERE k = 1").WithHost(hostU)); got != "kb" {
		t.Fatalf("an unqualified query on %s after the re-prepare read %s, want kb", hostU, got)
	}
	// Prepared again, the unqualified text is the session keyspace's statement.
	p := mustPrepare(t, s, "SELECT v FROM w WHERE k = ?")
	if p.Keyspace() != "kb" || readW(t, s, p.Bind(1)) != "kb" {
		t.Fatalf("prepared after USE kb: keyspace %q", p.Keyspace())
	}

	// A statement whose keyspace was dropped cannot be prepared again in it: the request
	// fails and says why, and does not read kb's table.
	mustExec(t, s, "CREATE KEYSPACE kc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE kc.w (k int PRIMARY KEY, v text)")
	mustExec(t, s, "USE kc")
	gone := mustPrepare(t, s, "SELECT v FROM w WHERE k = ?")
	hostG := unpreparedNode(t, cl, gone)
	mustExec(t, s, "USE kb")
	mustExec(t, s, "DROP KEYSPACE kc")
	_, err := s.Execute(ctxT(t), gone.Bind(1).WithHost(hostG))
	if !errors.Is(err, native.ErrPreparedKeyspaceChanged) || !strings.Contains(err.Error(), `prepared in keyspace "kc"`) {
		t.Fatalf("statement of a dropped keyspace re-prepared after USE kb: err = %v, want ErrPreparedKeyspaceChanged", err)
	}
}

// unpreparedNode returns a node of cl that has not prepared p (with PrepareOnOneNode exactly
// one node knows each statement).
func unpreparedNode(t *testing.T, cl *cqlsim.Cluster, p *native.Prepared) string {
	t.Helper()
	for i, h := range cl.Addrs() {
		if !cl.KnowsPrepared(i, p.ID()) {
			return h
		}
	}
	t.Fatalf("every node knows %q", p.CQL())
	return ""
}

// nodeIndex returns the index of addr among cl's nodes.
func nodeIndex(t *testing.T, cl *cqlsim.Cluster, addr string) int {
	t.Helper()
	for i, a := range cl.Addrs() {
		if a == addr {
			return i
		}
	}
	t.Fatalf("%s is not a node of the cluster", addr)
	return -1
}

// A node that stops answering during a USE: the switch of the other nodes' connections does
// not wait for it (each connection has its own timeout, so theirs are not closed for running
// out of a shared one), and a Prepare of a cached statement does not wait for the switch.
func TestUseWithAFrozenNode(t *testing.T) {
	ks1, hosts := testKeyspace(t, 1)
	ks2, _ := testKeyspace(t, 1)
	var addrs []string
	pxs := map[string]*cqltest.Proxy{}
	for range 3 {
		px := cqltest.NewProxy(t, hosts[0])
		addrs = append(addrs, px.Addr())
		pxs[px.Addr()] = px
	}
	s, err := native.Connect(ctxT(t), native.Config{Hosts: addrs, Keyspace: ks1, ConnsPerHost: 2,
		DisablePeerDiscovery: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Prepared in ks2 too, so that the Prepare below, in the session keyspace (ks2 once the
	// USE has started switching), finds it cached.
	p := mustPrepare(t, s, "SELECT release_version FROM system.local")
	mustExec(t, s, "USE "+ks2)
	mustPrepare(t, s, "SELECT release_version FROM system.local")
	mustExec(t, s, "USE "+ks1)
	a, frozen, c := addrs[0], pxs[addrs[1]], addrs[2]
	frozen.SetHold(true)
	defer frozen.SetHold(false)
	base := frozen.Sent()
	used := make(chan error, 1)
	go func() {
		_, err := s.Execute(ctxT(t), native.Query("USE "+ks2).WithHost(a))
		used <- err
	}()
	// Once the USE reached the frozen node, the switch is waiting for its answer.
	for deadline := time.Now().Add(10 * time.Second); frozen.Sent() == base; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the USE never reached the frozen node")
		}
	}
	if _, err := s.Prepare(ctxT(t), "SELECT release_version FROM system.local"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-used:
		t.Fatalf("the USE returned (%v) before the cached Prepare: the frozen node should hold it until its timeout", err)
	default:
	}
	err = <-used
	if err == nil || !strings.Contains(err.Error(), frozen.Addr()) || strings.Contains(err.Error(), c) {
		t.Fatalf("USE with node %s frozen: %v; want an error naming that node only", frozen.Addr(), err)
	}
	// The healthy nodes' connections switched and stayed open.
	for _, h := range []string{a, c} {
		for range 4 {
			if _, err := s.Execute(ctxT(t), p.Bind().WithHost(h)); err != nil {
				t.Fatalf("node %s after the USE: %v", h, err)
			}
		}
	}
	if s.Keyspace() != ks2 {
		t.Fatalf("session keyspace %q, want %s", s.Keyspace(), ks2)
	}
}

// slowCountingDialer counts the connections opened to one address once armed, and makes each
// take a while, so that requests needing one pile up meanwhile.
type slowCountingDialer struct {
	addr  string
	armed atomic.Bool
	n     atomic.Int32
}

func (d *slowCountingDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if d.armed.Load() && address == d.addr {
		d.n.Add(1)
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}

// Many requests at once for a statement prepared before a USE, on a node that does not know
// it: one connection in the statement's keyspace prepares it for all of them (a restarted
// node does not get a connection per request), and every request reads its keyspace.
func TestReprepareAfterUseSharesOneConnection(t *testing.T) {
	d := &slowCountingDialer{}
	cl, s := kaKbOnThreeNodes(t, d)
	p := mustPrepare(t, s, "SELECT v FROM w WHERE k = ?")
	host := unpreparedNode(t, cl, p)
	mustExec(t, s, "USE kb")
	d.addr = host
	d.armed.Store(true)
	const requests = 16
	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := tryReadW(s, p.Bind(1).WithHost(host))
			if err == nil && got != "ka" {
				err = fmt.Errorf("read keyspace %s, want ka", got)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := d.n.Load(); n != 1 {
		t.Errorf("%d requests re-preparing the statement on %s opened %d connections, want 1", requests, host, n)
	}
}
