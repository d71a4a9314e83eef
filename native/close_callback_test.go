package native_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// closeWithin fails t unless a Close called by a callback (reported on closed) returns
// within 10 s.
func closeWithin(t *testing.T, closed <-chan error, what string) {
	t.Helper()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close from %s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Close called from %s did not return in 10s", what)
	}
}

// resultWithin returns p's outcome, failing t unless p completes within 10 s.
func resultWithin(t *testing.T, p *native.Pending, what string) (*native.Result, error) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not complete in 10s", what)
	}
	return p.Result()
}

// closingSession connects to cl with the Config that configure completes (Hosts preset to
// every node); configure's callbacks close the session with closeSession, whose error is then
// sent on the channel returned. closeSession does nothing before Connect has returned.
func closingSession(t *testing.T, cl *cqlsim.Cluster, configure func(cfg *native.Config, closeSession func())) (*native.Session, <-chan error) {
	t.Helper()
	var sess atomic.Pointer[native.Session]
	closed := make(chan error, 1)
	cfg := native.Config{Hosts: cl.Addrs()}
	configure(&cfg, func() {
		if s := sess.Load(); s != nil {
			closed <- s.Close()
		}
	})
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sess.Store(s)
	return s, closed
}

// OnConnect may close the session: here on the reconnection to a node that was restarted,
// made by a pool's refill goroutine, which Close waits for. (Close used to wait for that
// goroutine, which was waiting in OnConnect for Close: a deadlock.)
func TestCloseFromOnConnect(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	leaks := cqltest.LeakCheck(t)
	var armed atomic.Bool
	s, closed := closingSession(t, cl, func(cfg *native.Config, closeSession func()) {
		cfg.Hosts = cl.Addrs()[:1]
		cfg.OnConnect = func(e native.ConnectEvent) {
			if e.Err == nil && e.Host.Addr == cl.Addrs()[1] && armed.CompareAndSwap(true, false) {
				closeSession()
			}
		}
	})
	waitHostsUp(t, s, 2)
	armed.Store(true)
	if err := cl.StopNode(1); err != nil {
		t.Fatal(err)
	}
	if err := cl.StartNode(1); err != nil {
		t.Fatal(err)
	}
	closeWithin(t, closed, "OnConnect")
	if !s.Closed() {
		t.Fatal("Closed() = false after Close")
	}
	if _, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local")); !errors.Is(err, native.ErrSessionClosed) {
		t.Fatalf("Execute after Close: %v, want ErrSessionClosed", err)
	}
	leaks()
}

// An Observer may close the session while it observes an asynchronous request (statement
// or batch), whose goroutine Close waits for; the request then completes with its answer.
func TestCloseFromObserverOfAsyncRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(s *native.Session) *native.Pending
	}{
		{"ExecuteAsync", func(s *native.Session) *native.Pending {
			return s.ExecuteAsync(ctxT(t), native.Query("INSERT INTO cb.t (k, v) VALUES (1, 1)"))
		}},
		{"ExecuteBatchAsync", func(s *native.Session) *native.Pending {
			return s.ExecuteBatchAsync(ctxT(t), native.NewBatch(native.UnloggedBatch, native.Query("INSERT INTO cb.t (k, v) VALUES (2, 2)")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 1})
			leaks := cqltest.LeakCheck(t)
			var armed atomic.Bool
			s, closed := closingSession(t, cl, func(cfg *native.Config, closeSession func()) {
				cfg.Observer = func(ctx context.Context, a native.Attempt) {
					if armed.CompareAndSwap(true, false) {
						closeSession()
					}
				}
			})
			mustExec(t, s, "CREATE KEYSPACE cb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, s, "CREATE TABLE cb.t (k int PRIMARY KEY, v int)")
			armed.Store(true)
			p := tc.start(s)
			closeWithin(t, closed, "the Observer")
			if _, err := resultWithin(t, p, "the request whose Observer closed the session"); err != nil {
				t.Fatalf("the request whose Observer closed the session: %v, want its answer", err)
			}
			leaks()
		})
	}
}

// Close called elsewhere while an asynchronous request's Observer runs does not wait for
// that Observer; the request completes once it returns. Close still waits for the session's
// other goroutines: the other asynchronous requests in flight are complete when it returns.
func TestCloseDoesNotWaitForARunningObserver(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 1})
	leaks := cqltest.LeakCheck(t)
	entered, release := make(chan struct{}), make(chan struct{})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), Observer: func(ctx context.Context, a native.Attempt) {
		if a.Statement == "SELECT cluster_name FROM system.local" {
			close(entered)
			<-release
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.SetNodeDelay(0, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	held := s.ExecuteAsync(ctxT(t), native.Query("SELECT cluster_name FROM system.local"))
	<-entered
	var others []*native.Pending
	for range 5 {
		others = append(others, s.ExecuteAsync(ctxT(t), native.Query("SELECT key FROM system.local")))
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(release) // let Close return, so that the test ends
		t.Fatal("Close waited for an Observer that was running")
	}
	for i, p := range others {
		select {
		case <-p.Done():
		default:
			t.Fatalf("request %d in flight is not complete when Close returns", i)
		}
	}
	select {
	case <-held.Done():
		t.Fatal("the request whose Observer is still running completed")
	default:
	}
	close(release)
	if _, err := resultWithin(t, held, "the held request"); err != nil {
		t.Fatalf("the held request: %v, want its answer (it came before Close)", err)
	}
	leaks()
}

// A RetryPolicy may close the session while it decides on an asynchronous request's failed
// attempt; the request then completes with that attempt's error, not retried.
func TestCloseFromRetryPolicyOfAsyncRequest(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 1})
	leaks := cqltest.LeakCheck(t)
	s, closed := closingSession(t, cl, func(cfg *native.Config, closeSession func()) {
		cfg.RetryPolicy = funcRetry(func(ctx context.Context, a *native.Attempt) native.RetryDecision {
			closeSession()
			return native.RetryDecision{Action: native.RetrySameHost}
		})
	})
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "SELECT cluster_name FROM system.local", Times: 1,
		Error: &message.Overloaded{ErrorMessage: "overloaded"}}); err != nil {
		t.Fatal(err)
	}
	p := s.ExecuteAsync(ctxT(t), native.Query("SELECT cluster_name FROM system.local"))
	closeWithin(t, closed, "the RetryPolicy")
	var oe *native.OverloadedError
	if _, err := resultWithin(t, p, "the request whose RetryPolicy closed the session"); !errors.As(err, &oe) {
		t.Fatalf("the request whose RetryPolicy closed the session: %v, want the attempt's OverloadedError", err)
	}
	leaks()
}

// OnSchemaChange may close the session: here on the event of the session's own DDL.
func TestCloseFromOnSchemaChange(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 1})
	leaks := cqltest.LeakCheck(t)
	var armed atomic.Bool
	s, closed := closingSession(t, cl, func(cfg *native.Config, closeSession func()) {
		cfg.OnSchemaChange = func(sc native.SchemaChange) {
			if sc.Keyspace == "cs" && armed.CompareAndSwap(true, false) {
				closeSession()
			}
		}
	})
	armed.Store(true)
	if _, err := s.Execute(ctxT(t), native.Query("CREATE KEYSPACE cs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")); err != nil && !errors.Is(err, native.ErrSessionClosed) {
		t.Fatal(err)
	}
	closeWithin(t, closed, "OnSchemaChange")
	leaks()
}
