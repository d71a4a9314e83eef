package native_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// A request whose connection fails before its frame is written (here a write of the
// connection's writer goroutine, which carries frames too large for their caller to write)
// was not sent, so it goes to the next node even when it is not idempotent and no retry
// policy is set. (Requests written before the connection failed keep its error: conn's
// TestFailedWriteCompletesUnsentCallsWithErrNotSent.)
func TestUnsentRequestGoesToNextNode(t *testing.T) {
	for _, v := range []int{4, 5} { // at v5 the frames travel in segments
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testUnsentRequestGoesToNextNode(t, v) })
	}
}

func testUnsentRequestGoesToNextNode(t *testing.T, version int) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, MaxProtocolVersion: version})
	big := strings.Repeat("v", 8<<10) // above what a caller writes itself
	// Only a write holding an INSERT's frame breaks: a handshake or a heartbeat taking the
	// arm would let the INSERT through on another connection to the same node.
	d := &cqltest.WriteBreaker{Addr: cl.Addrs()[1], MinLen: len(big)}
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: d, Timeout: 30 * time.Second, ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v text)")
	deadline := time.Now().Add(20 * time.Second)
	for k := 0; d.Broken.Load() < 3; k++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes to %s failed in 20s", d.Broken.Load(), d.Addr)
		}
		d.Armed.Store(true)
		before := d.Broken.Load()
		res, err := s.Execute(ctxT(t), native.Query("INSERT INTO ns.t (k, v) VALUES (?, ?)", int32(k), big))
		if err != nil {
			t.Fatalf("key %d (writes failed so far: %d): %v", k, d.Broken.Load(), err)
		}
		if d.Broken.Load() != before && res.Host() == d.Addr {
			t.Fatalf("key %d: answered by %s, whose write failed", k, res.Host())
		}
	}
}

// A request whose connection fails before its frame is written is treated as one that finds
// its node without an open connection: not an attempt. The observer does not see it, the
// retry policy is not asked about it, and the attempts sent are numbered from 0 without it,
// so it does not use up a retry: with NextHostRetry{MaxRetries: 1} over three nodes, every
// request is sent twice, once on each node whose connection works, whichever node of its plan
// the failed write was on.
func TestUnsentRequestIsNotAnAttempt(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	big := strings.Repeat("v", 8<<10) // above what a caller writes itself
	d := &cqltest.WriteBreaker{Addr: cl.Addrs()[1], MinLen: len(big)}
	var log attemptLog
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: d, ConnsPerHost: 1,
		Routing: native.RoundRobin, Timeout: 30 * time.Second, Observer: log.observe})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	// Every failure counts as retryable for NextHostRetry (as an UnavailableError would).
	policy := funcRetry(func(ctx context.Context, a *native.Attempt) native.RetryDecision {
		if errors.Is(a.Err, native.ErrNotSent) {
			t.Errorf("the retry policy was asked about a request not sent: %+v", a)
		}
		b := *a
		b.Err = &native.UnavailableError{}
		return native.NextHostRetry{MaxRetries: 1}.Retry(ctx, &b)
	})
	deadline := time.Now().Add(20 * time.Second)
	for k := 0; d.Broken.Load() < 3; k++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes to %s failed in 20s", d.Broken.Load(), d.Addr)
		}
		d.Armed.Store(true)
		log = attemptLog{}
		// The table does not exist: every node that receives the INSERT refuses it.
		_, err := s.Execute(ctxT(t), native.Query("INSERT INTO no_such_ks.t (k, v) VALUES (?, ?)", int32(k), big).WithRetryPolicy(policy))
		var inv *native.InvalidError
		if !errors.As(err, &inv) {
			t.Fatalf("key %d: %v, want an InvalidError", k, err)
		}
		got := log.all()
		var numbers []int
		hosts := map[string]bool{}
		for _, a := range got {
			numbers = append(numbers, a.Number)
			hosts[a.Host] = true
		}
		if len(got) != 2 || numbers[0] != 0 || numbers[1] != 1 || len(hosts) != 2 || hosts[d.Addr] {
			t.Fatalf("key %d (writes failed so far: %d): attempts %+v, want two, numbered [0 1], on the two nodes other than %s", k, d.Broken.Load(), got, d.Addr)
		}
	}
}

// The request's timeout bounds its whole plan, the sends that were not attempts included:
// when it passes while a request finds its connection closed, the request is not sent to the
// next node. It fails with ErrTimeout, and with ErrNotSent, as nothing was sent; the observer
// saw no attempt.
func TestUnsentRequestNotSentToNextNodeAfterItsTimeout(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	var log attemptLog
	var s *native.Session
	var armed atomic.Bool
	var starts atomic.Int32
	const timeout = 50 * time.Millisecond
	cfg := native.Config{Hosts: cl.Addrs()[:1], ConnsPerHost: 1, Routing: native.RoundRobin,
		Timeout: 30 * time.Second, Observer: log.observe}
	cfg = native.WithBeforeTryStart(cfg, func(addr string) {
		if !armed.Load() {
			return
		}
		if starts.Add(1) == 1 {
			// The first node of the plan: its connection closes, and the timeout passes,
			// before the request starts on it.
			native.CloseConnsTo(s, addr)
			time.Sleep(2 * timeout)
		}
	})
	var err error
	if s, err = native.Connect(ctxT(t), cfg); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	armed.Store(true)
	_, err = s.Execute(ctxT(t), native.Query("SELECT release_version FROM system.local").WithTimeout(timeout))
	armed.Store(false)
	if !errors.Is(err, native.ErrTimeout) || !errors.Is(err, native.ErrNotSent) {
		t.Errorf("%v, want an error matching ErrTimeout and ErrNotSent", err)
	}
	if n := starts.Load(); n != 1 {
		t.Errorf("the request started %d times, want once (not on a second node after its timeout)", n)
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("attempts observed: %+v, want none", got)
	}
}

// A request pinned to a node (WithHost) whose connection closed before it started on it is
// not sent elsewhere, nor again there: it fails with a *NoHostAvailableError matching
// ErrNotSent, and the observer saw no attempt.
func TestUnsentPinnedRequestIsNotAnAttempt(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	var log attemptLog
	var s *native.Session
	var armed atomic.Bool
	var starts atomic.Int32
	cfg := native.Config{Hosts: cl.Addrs()[:1], ConnsPerHost: 1, Timeout: 30 * time.Second, Observer: log.observe}
	cfg = native.WithBeforeTryStart(cfg, func(addr string) {
		if armed.Load() && starts.Add(1) == 1 {
			native.CloseConnsTo(s, addr)
		}
	})
	var err error
	if s, err = native.Connect(ctxT(t), cfg); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	armed.Store(true)
	_, err = s.Execute(ctxT(t), native.Query("SELECT release_version FROM system.local").WithHost(cl.Addrs()[1]))
	armed.Store(false)
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || !errors.Is(err, native.ErrNotSent) {
		t.Errorf("%v, want a *NoHostAvailableError matching ErrNotSent", err)
	}
	if n := starts.Load(); n != 1 {
		t.Errorf("the request started %d times, want once", n)
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("attempts observed: %+v, want none", got)
	}
}

// A request retried on its node (RetrySameHost) after an attempt that was sent, whose retry
// then finds the connection closed before it is written, was sent once: it may have run. Its
// error must not match ErrNotSent (a caller would send a non-idempotent write again), and
// errors.As still finds the sent attempt's error.
func TestRetryNotSentAfterASentAttemptIsNotErrNotSent(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	var log attemptLog
	var s *native.Session
	var armed atomic.Bool
	var starts atomic.Int32
	cfg := native.Config{Hosts: cl.Addrs()[:1], ConnsPerHost: 1, Timeout: 30 * time.Second, Observer: log.observe}
	cfg = native.WithBeforeTryStart(cfg, func(addr string) {
		if armed.Load() && starts.Add(1) == 2 {
			native.CloseConnsTo(s, addr) // the retry finds its connection closed
		}
	})
	var err error
	if s, err = native.Connect(ctxT(t), cfg); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	policy := funcRetry(func(_ context.Context, a *native.Attempt) native.RetryDecision {
		if a.Number == 0 {
			return native.RetryDecision{Action: native.RetrySameHost}
		}
		return native.RetryDecision{Action: native.Fail}
	})
	armed.Store(true)
	// The table does not exist: the node refuses the INSERT (as a write timeout would leave
	// its outcome unknown, the retry policy retries it).
	_, err = s.Execute(ctxT(t), native.Query("INSERT INTO no_such_ks.t (k) VALUES (1)").WithHost(cl.Addrs()[1]).WithRetryPolicy(policy))
	armed.Store(false)
	if n := starts.Load(); n != 2 {
		t.Fatalf("the request started %d times, want twice (the attempt and its retry)", n)
	}
	if errors.Is(err, native.ErrNotSent) {
		t.Errorf("%v matches ErrNotSent, though its first attempt was sent", err)
	}
	var inv *native.InvalidError
	if !errors.As(err, &inv) {
		t.Errorf("%v, want the sent attempt's InvalidError in it", err)
	}
	if got := log.all(); len(got) != 1 || got[0].Number != 0 {
		t.Errorf("attempts observed: %+v, want the one sent", got)
	}
}

// An attempt of a request with speculative execution whose connection fails before writing it
// is no attempt either: the next node of the plan takes the request at once, and the observer
// sees the attempts sent numbered from 0, without a gap where the attempt not sent was.
func TestUnsentSpeculativeAttemptIsNotNumbered(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	big := strings.Repeat("v", 8<<10) // above what a caller writes itself
	d := &cqltest.WriteBreaker{Addr: cl.Addrs()[1], MinLen: len(big)}
	var log attemptLog
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: d, ConnsPerHost: 1,
		Routing: native.RoundRobin, Timeout: 30 * time.Second, Observer: log.observe})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v text)")
	deadline := time.Now().Add(20 * time.Second)
	for k := 0; d.Broken.Load() < 3; k++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes to %s failed in 20s", d.Broken.Load(), d.Addr)
		}
		d.Armed.Store(true)
		log = attemptLog{}
		// No speculative attempt is due (the delay is long): only the attempt not sent makes
		// the request go to another node.
		res, err := s.Execute(ctxT(t), native.Query("INSERT INTO ns.t (k, v) VALUES (?, ?)", int32(k), big).
			WithIdempotent(true).WithSpeculativeExecution(time.Hour, 1))
		if err != nil {
			t.Fatalf("key %d: %v", k, err)
		}
		got := log.all()
		if len(got) != 1 || got[0].Number != 0 || got[0].Host != res.Host() || got[0].Host == d.Addr {
			t.Fatalf("key %d (writes failed so far: %d): attempts %+v, want one, numbered 0, by the node that answered", k, d.Broken.Load(), got)
		}
	}
}

// An attempt of a request with speculative execution that was not sent does not count against
// its speculative attempts: with one allowed, a plan whose first node's connection fails
// before writing the request and whose next node is slow still sends the speculative attempt
// to the third node, which answers.
func TestUnsentSpeculativeAttemptDoesNotCount(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	big := strings.Repeat("v", 8<<10) // above what a caller writes itself
	broken, slow, fast := cl.Addrs()[1], cl.Addrs()[2], cl.Addrs()[0]
	d := &cqltest.WriteBreaker{Addr: broken, MinLen: len(big)}
	var log attemptLog
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: d, ConnsPerHost: 1,
		Routing: native.RoundRobin, Timeout: 5 * time.Second, Observer: log.observe})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v text)")
	if err := cl.SetNodeDelay(2, time.Hour); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.SetNodeDelay(2, 0) }()
	deadline := time.Now().Add(20 * time.Second)
	for k := 0; d.Broken.Load() < 3; k++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes to %s failed in 20s", d.Broken.Load(), d.Addr)
		}
		d.Armed.Store(true)
		log = attemptLog{}
		res, err := s.Execute(ctxT(t), native.Query("INSERT INTO ns.t (k, v) VALUES (?, ?)", int32(k), big).
			WithIdempotent(true).WithSpeculativeExecution(20*time.Millisecond, 1))
		if err != nil {
			t.Fatalf("key %d (writes failed so far: %d): %v (attempts %+v)", k, d.Broken.Load(), err, log.all())
		}
		if res.Host() != fast {
			t.Fatalf("key %d: answered by %s, not by the fast node %s", k, res.Host(), fast)
		}
		// (Their numbers may have a gap here: the speculative attempt may start while the
		// write that fails is under way; see Attempt.Number.)
		numbers := map[int]bool{}
		for _, a := range log.all() {
			if a.Host == broken || a.Host != slow && a.Host != fast || numbers[a.Number] {
				t.Fatalf("key %d: attempts %+v, want them on %s and %s, none on %s, no number twice", k, log.all(), slow, fast, broken)
			}
			numbers[a.Number] = true
		}
	}
}
