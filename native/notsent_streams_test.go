package native_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// saturatedSession connects a session with cfg (one connection per node, two stream ids each)
// to nodes cqlsim nodes and makes the last, returned as slow, answer late, its two stream ids
// both held by requests waiting for its answers: a request on it waits for a free stream id.
func saturatedSession(t *testing.T, cfg native.Config, nodes int) (s *native.Session, slow string) {
	t.Helper()
	const ids = 2
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: nodes})
	cfg.Hosts, cfg.ConnsPerHost = cl.Addrs()[:1], 1
	s, err := native.Connect(ctxT(t), native.WithMaxStreams(cfg, ids))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	waitHostsUp(t, s, nodes)
	slow = cl.Addrs()[nodes-1]
	if err := cl.SetNodeDelay(nodes-1, time.Minute); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.SetNodeDelay(nodes-1, 0) })
	for range ids {
		s.ExecuteAsync(context.Background(), native.Query("SELECT key FROM system.local").WithHost(slow).WithTimeout(time.Hour))
	}
	deadline := time.Now().Add(20 * time.Second)
	for native.InFlightTo(s, slow) < ids {
		if time.Now().After(deadline) {
			t.Fatalf("%d stream ids in use on %s after 20s, want %d", native.InFlightTo(s, slow), slow, ids)
		}
		time.Sleep(time.Millisecond)
	}
	return s, slow
}

// countingRetry is a retry policy that counts the times it is asked and always fails.
type countingRetry struct{ asked atomic.Int32 }

func (p *countingRetry) Retry(context.Context, *native.Attempt) native.RetryDecision {
	p.asked.Add(1)
	return native.RetryDecision{Action: native.Fail}
}

// A request whose timeout passes while it waits for a free stream id on its node's saturated
// connection was not sent: it fails with an error matching ErrNotSent as well as ErrTimeout and
// context.DeadlineExceeded, without the observer seeing an attempt or the retry policy being
// asked.
func TestStreamIDWaitTimeoutIsNotSent(t *testing.T) {
	var log attemptLog
	var policy countingRetry
	s, slow := saturatedSession(t, native.Config{Timeout: 30 * time.Second, Observer: log.observe, RetryPolicy: &policy}, 2)
	_, err := s.Execute(ctxT(t), native.Query("INSERT INTO no_such_ks.t (k) VALUES (1)").WithHost(slow).WithTimeout(50*time.Millisecond))
	if !errors.Is(err, native.ErrNotSent) || !errors.Is(err, native.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v, want an error matching ErrNotSent, ErrTimeout and context.DeadlineExceeded", err)
	}
	if errors.Is(err, native.ErrConnClosed) {
		t.Errorf("%v matches ErrConnClosed, though the connection is open", err)
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("attempts observed: %+v, want none", got)
	}
	if n := policy.asked.Load(); n != 0 {
		t.Errorf("the retry policy was asked %d times, want never", n)
	}
}

// The same when the caller's context ends first: the error matches ErrNotSent and the context's
// error (not ErrTimeout), and no attempt was made.
func TestStreamIDWaitContextEndIsNotSent(t *testing.T) {
	var log attemptLog
	var policy countingRetry
	s, slow := saturatedSession(t, native.Config{Timeout: 30 * time.Second, Observer: log.observe, RetryPolicy: &policy}, 2)
	ctx, cancel := context.WithTimeout(ctxT(t), 50*time.Millisecond)
	defer cancel()
	_, err := s.Execute(ctx, native.Query("INSERT INTO no_such_ks.t (k) VALUES (1)").WithHost(slow))
	if !errors.Is(err, native.ErrNotSent) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, native.ErrTimeout) {
		t.Errorf("%v, want an error matching ErrNotSent and context.DeadlineExceeded, not ErrTimeout", err)
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("attempts observed: %+v, want none", got)
	}
	if n := policy.asked.Load(); n != 0 {
		t.Errorf("the retry policy was asked %d times, want never", n)
	}
}

// A request sent to one node, refused there and retried on the next (NextHostRetry), whose
// only other node is saturated, waits there for a free stream id until its timeout. That wait
// is not a second attempt: the observer sees one attempt, the policy is asked once, and the
// error, which holds the refusal, does not match ErrNotSent (the first attempt was sent) but
// matches ErrTimeout.
func TestStreamIDWaitAfterASentAttempt(t *testing.T) {
	var log attemptLog
	var asked atomic.Int32
	policy := funcRetry(func(ctx context.Context, a *native.Attempt) native.RetryDecision {
		asked.Add(1)
		b := *a
		b.Err = &native.UnavailableError{} // retryable, as the refusal is not
		return native.NextHostRetry{MaxRetries: 2}.Retry(ctx, &b)
	})
	s, slow := saturatedSession(t, native.Config{Routing: native.RoundRobin, Timeout: 30 * time.Second, Observer: log.observe}, 2)
	for i := range 2 { // round robin: the plan starts on each node in turn
		log = attemptLog{}
		asked.Store(0)
		_, err := s.Execute(ctxT(t), native.Query("INSERT INTO no_such_ks.t (k) VALUES (1)").WithRetryPolicy(policy).WithTimeout(100*time.Millisecond))
		var inv *native.InvalidError
		if !errors.Is(err, native.ErrTimeout) || errors.Is(err, native.ErrNotSent) || !errors.As(err, &inv) {
			t.Errorf("request %d: %v, want an error matching ErrTimeout, holding the InvalidError, not matching ErrNotSent", i, err)
		}
		got := log.all()
		if len(got) != 1 || got[0].Number != 0 || got[0].Host == slow {
			t.Errorf("request %d: attempts observed: %+v, want one, numbered 0, on the node other than %s", i, got, slow)
		}
		if n := asked.Load(); n != 1 {
			t.Errorf("request %d: the retry policy was asked %d times, want once", i, n)
		}
	}
}

// A request with speculative execution none of whose attempts could start (its only node's
// stream ids are all in use) until its timeout was not sent: its error matches ErrNotSent as
// well as ErrTimeout, and no attempt was observed.
func TestSpeculativeStreamIDWaitTimeoutIsNotSent(t *testing.T) {
	var log attemptLog
	s, _ := saturatedSession(t, native.Config{Timeout: 30 * time.Second, Observer: log.observe}, 1)
	_, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local").WithIdempotent(true).
		WithSpeculativeExecution(time.Millisecond, 1).WithTimeout(50*time.Millisecond))
	if !errors.Is(err, native.ErrNotSent) || !errors.Is(err, native.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v, want an error matching ErrNotSent, ErrTimeout and context.DeadlineExceeded", err)
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("attempts observed: %+v, want none", got)
	}
}
