package native_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/native"
)

// funcRetry is a RetryPolicy made of a function.
type funcRetry func(ctx context.Context, a *native.Attempt) native.RetryDecision

func (f funcRetry) Retry(ctx context.Context, a *native.Attempt) native.RetryDecision {
	return f(ctx, a)
}

// attemptLog records the attempts an Observer sees.
type attemptLog struct{ recorder[native.Attempt] }

func (l *attemptLog) observe(_ context.Context, a native.Attempt) { l.add(a) }

// twoNodeSession connects to the test server through two proxies, which the session sees as
// two nodes, routed round-robin.
func twoNodeSession(t *testing.T, mod func(*native.Config)) *native.Session {
	t.Helper()
	ks, hosts := testKeyspace(t, 1)
	_, addrs := newProxies(t, hosts[0], 2)
	cfg := native.Config{Hosts: addrs, Keyspace: ks, ConnsPerHost: 1,
		DisablePeerDiscovery: true, Routing: native.RoundRobin, Timeout: 30 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if n := len(s.Hosts()); n != 2 {
		t.Fatalf("%d hosts, want 2", n)
	}
	return s
}

// A retry policy that lowers the consistency level for its retry (a downgrading policy) is
// obeyed with speculative execution on too: the retry runs at the level it asked for.
func TestReviewSpeculativeRetryKeepsDowngradedConsistency(t *testing.T) {
	var log attemptLog
	s := twoNodeSession(t, func(c *native.Config) { c.Observer = log.observe })
	policy := funcRetry(func(_ context.Context, a *native.Attempt) native.RetryDecision {
		if a.Number == 0 {
			return native.RetryDecision{Action: native.RetryNextHost, Consistency: native.One, SetConsistency: true}
		}
		return native.RetryDecision{Action: native.Fail}
	})
	for _, spec := range []bool{false, true} {
		log = attemptLog{}
		st := native.Query("SELECT * FROM no_such_table_here").WithIdempotent(true).WithRetryPolicy(policy).
			WithConsistency(native.Quorum)
		if spec {
			// A long delay: no speculative attempt starts, only the retry after the failure.
			st = st.WithSpeculativeExecution(time.Minute, 1)
		}
		_, err := s.Execute(ctxT(t), st)
		var inv *native.InvalidError
		if !errors.As(err, &inv) {
			t.Fatalf("speculative=%t: %v, want an InvalidError", spec, err)
		}
		got := log.all()
		if len(got) != 2 {
			t.Fatalf("speculative=%t: %d attempts, want 2: %+v", spec, len(got), got)
		}
		if got[0].Consistency != native.Quorum || got[1].Consistency != native.One {
			t.Errorf("speculative=%t: attempts ran at %s then %s, want QUORUM then ONE (the retry policy's level)",
				spec, got[0].Consistency, got[1].Consistency)
		}
	}
}

// A retry is not sent once the request's timeout has passed (here while a retry policy
// backed off, as gocql's backoff policies do, inside Retry): the request fails with
// ErrTimeout, and nothing more reaches the server. For a timeout of a second or more, the time
// the first attempt and the policy took counts too.
func TestReviewNoRetryAfterTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		backoff time.Duration
	}{
		{"exact", 200 * time.Millisecond, 400 * time.Millisecond},
		{"coarse", time.Second, 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log attemptLog
			s, _ := connect(t, func(c *native.Config) { c.Observer = log.observe })
			policy := funcRetry(func(_ context.Context, a *native.Attempt) native.RetryDecision {
				if a.Number == 0 {
					time.Sleep(tc.backoff)
					return native.RetryDecision{Action: native.RetrySameHost}
				}
				return native.RetryDecision{Action: native.Fail}
			})
			st := native.Query("SELECT * FROM no_such_table_here").WithRetryPolicy(policy).WithTimeout(tc.timeout)
			start := time.Now()
			_, err := s.Execute(ctxT(t), st)
			took := time.Since(start)
			if !errors.Is(err, native.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("after %s (timeout %s): %v, want an error matching ErrTimeout", took, tc.timeout, err)
			}
			var inv *native.InvalidError
			if err != nil && !errors.As(err, &inv) {
				t.Errorf("the timeout error lost the last attempt's error: %v", err)
			}
			if got := log.all(); len(got) != 1 {
				t.Errorf("%d attempts sent, want 1 (no retry after the timeout passed): %+v", len(got), got)
			}
		})
	}
}

// A panic in a retry policy called by a speculative attempt reaches the caller of Execute,
// as it does without speculative execution, instead of crashing the program from a goroutine
// the caller cannot recover in; the other attempts are stopped first.
func TestReviewSpeculativePolicyPanicReachesCaller(t *testing.T) {
	s := twoNodeSession(t, nil)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	policy := funcRetry(func(context.Context, *native.Attempt) native.RetryDecision {
		panic("policy bug")
	})
	for _, spec := range []bool{false, true} {
		st := native.Query("SELECT * FROM no_such_table_here").WithIdempotent(true).WithRetryPolicy(policy)
		if spec {
			st = st.WithSpeculativeExecution(time.Minute, 1)
		}
		got := func() (r any) {
			defer func() { r = recover() }()
			_, _ = s.Execute(ctxT(t), st)
			return nil
		}()
		if got != "policy bug" {
			t.Errorf("speculative=%t: recovered %v, want the policy's panic", spec, got)
		}
	}
	// The session still works.
	if _, err := s.Execute(ctxT(t), native.Query("SELECT release_version FROM system.local").WithIdempotent(true).
		WithSpeculativeExecution(time.Minute, 1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// Attempt.Number counts the attempts made: a node of the plan that has no open connection,
// to which nothing is sent, does not use up a retry. With NextHostRetry{MaxRetries: 1}, every
// request gets its one retry, whichever node of its plan is down.
func TestReviewDownNodeDoesNotUseUpRetries(t *testing.T) {
	ks, hosts := testKeyspace(t, 1)
	pxs, addrs := newProxies(t, hosts[0], 3)
	var log attemptLog
	s, err := native.Connect(ctxT(t), native.Config{Hosts: addrs, Keyspace: ks, ConnsPerHost: 1,
		DisablePeerDiscovery: true, Routing: native.RoundRobin, Timeout: 30 * time.Second, Observer: log.observe})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The last node goes away (the control connection is on the first).
	pxs[2].Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, _ = s.Execute(ctxT(t), native.Query("SELECT release_version FROM system.local").WithHost(addrs[2]))
		down := false
		for _, h := range s.Hosts() {
			if h.Addr == addrs[2] && !h.Up {
				down = true
			}
		}
		if down {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s still up 30s after it went away: %+v", addrs[2], s.Hosts())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Every failure counts as retryable for NextHostRetry (as an UnavailableError would).
	policy := funcRetry(func(ctx context.Context, a *native.Attempt) native.RetryDecision {
		b := *a
		b.Err = &native.UnavailableError{}
		return native.NextHostRetry{MaxRetries: 1}.Retry(ctx, &b)
	})
	for i := range 6 { // every rotation of the plan, twice
		log = attemptLog{}
		_, err := s.Execute(ctxT(t), native.Query("SELECT * FROM no_such_table_here").WithRetryPolicy(policy))
		var inv *native.InvalidError
		if !errors.As(err, &inv) {
			t.Fatalf("request %d: %v, want an InvalidError", i, err)
		}
		got := log.all()
		var numbers []int
		for _, a := range got {
			numbers = append(numbers, a.Number)
		}
		if len(got) != 2 || numbers[0] != 0 || numbers[1] != 1 {
			t.Errorf("request %d: attempts numbered %v, want [0 1] (one retry, MaxRetries 1): %v", i, numbers, err)
		}
	}
}

// A panic (or runtime.Goexit) in a user's policy during an asynchronous request has no caller
// to reach: the request completes with an error saying so, instead of the program crashing
// (a panic) or the Pending never completing and Close hanging (Goexit).
func TestAsyncPolicyPanicCompletesThePending(t *testing.T) {
	s := twoNodeSession(t, nil)
	for name, policy := range map[string]funcRetry{
		"panic": func(context.Context, *native.Attempt) native.RetryDecision { panic("policy bug") },
		"goexit": func(context.Context, *native.Attempt) native.RetryDecision {
			runtime.Goexit()
			return native.RetryDecision{}
		},
	} {
		p := s.ExecuteAsync(ctxT(t), native.Query("SELECT * FROM no_such_table_here").WithRetryPolicy(policy))
		select {
		case <-p.Done():
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the Pending did not complete", name)
		}
		if _, err := p.Result(); err == nil || !strings.Contains(err.Error(), "asynchronous request") {
			t.Errorf("%s: Result error %v, want the asynchronous request's failure", name, err)
		}
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return")
	}
}

// A retry policy that backs off waits on its context, which Close ends: Close is not held up
// by the backoff, and no retry is sent after it; the request ends with the failure the server
// answered.
func TestCloseEndsARetryPolicysBackoff(t *testing.T) {
	var attempts sync.Map
	s := twoNodeSession(t, func(cfg *native.Config) {
		cfg.Observer = func(_ context.Context, a native.Attempt) {
			if !a.Reprepare {
				attempts.Store(a.Number, a.Host)
			}
		}
	})
	asked := make(chan struct{}, 1)
	policy := funcRetry(func(ctx context.Context, _ *native.Attempt) native.RetryDecision {
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute): // a long backoff
		}
		return native.RetryDecision{Action: native.RetryNextHost}
	})
	p := s.ExecuteAsync(context.Background(), native.Query("SELECT * FROM no_such_table_here").WithRetryPolicy(policy))
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the retry policy was not asked")
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for the retry policy's backoff")
	}
	<-p.Done()
	var inv *native.InvalidError
	if _, err := p.Result(); !errors.As(err, &inv) {
		t.Fatalf("request error %v, want the server's InvalidError", err)
	}
	n := 0
	attempts.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Fatalf("%d attempts, want 1: no retry after Close", n)
	}
}
