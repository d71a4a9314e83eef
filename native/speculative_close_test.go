package native_test

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// A speculative request (no timeout, a delay that never passes) whose only attempt fails
// because Close cancels its work on the session's behalf (here the connection that prepares a
// statement again in its own keyspace after a USE, which Close abandons) returns
// ErrSessionClosed: the attempt's context.Canceled is not taken for the cancellation of an
// attempt the request itself made, after which it waited, with no attempt left running, for
// a timer that never came.
func TestSpeculativeRequestReturnsWhenCloseCancelsItsAttempt(t *testing.T) {
	err := closeWhilePreparingAside(t, true)
	if !errors.Is(err, native.ErrSessionClosed) {
		t.Fatalf("err = %v, want ErrSessionClosed", err)
	}
}

// A request whose statement Close keeps from being prepared again in its own keyspace (after
// a USE) fails with ErrSessionClosed, and not with an error matching context.Canceled (the
// abandoned connection's dial), which its caller would take for the end of its own context.
func TestPreparingAsideCutByCloseIsNoContextError(t *testing.T) {
	for _, spec := range []bool{false, true} {
		err := closeWhilePreparingAside(t, spec)
		if !errors.Is(err, native.ErrSessionClosed) || errors.Is(err, context.Canceled) {
			t.Fatalf("speculative %v: err = %v, want ErrSessionClosed and no context error", spec, err)
		}
	}
}

// closeWhilePreparingAside runs a request for a statement prepared in keyspace ka, after a USE
// kb, on a node that has not prepared it, with speculative execution or not and no timeout,
// closes the session while the connection that prepares it again in ka is being opened, and
// returns the request's error.
func closeWhilePreparingAside(t *testing.T, speculative bool) error {
	t.Helper()
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	d := cqltest.NewDialGate("")
	cfg := native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second, PrepareOnOneNode: true, Dialer: d}
	if speculative {
		cfg.SpeculativeAttempts, cfg.SpeculativeDelay = 1, time.Hour
	}
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	for _, ks := range []string{"ka", "kb"} {
		mustExec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
		mustExec(t, s, "CREATE TABLE "+ks+".w (k int PRIMARY KEY, v text)")
	}
	mustExec(t, s, "USE ka")
	p := mustPrepare(t, s, "SELECT v FROM w WHERE k = ?")
	mustExec(t, s, "USE kb")
	// A key whose replica, the first node of the request's plan, has not prepared p.
	owner := ownerOf(t, s)
	key := -1
	for k := range 1000 {
		host := owner(binary.BigEndian.AppendUint32(nil, uint32(k)))
		if i := nodeIndex(t, cl, host); !cl.KnowsPrepared(i, p.ID()) {
			key, d.Addr = k, host
			break
		}
	}
	if key < 0 {
		t.Fatal("no key of a node that has not prepared the statement")
	}
	d.Armed.Store(true)
	done := make(chan error, 1)
	go func() {
		_, err := s.Execute(context.Background(), p.Bind(key).WithIdempotent(true).WithTimeout(0))
		done <- err
	}()
	<-d.Entered // the re-prepare in ka dials its connection
	s.Close()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("the request did not return after Close")
		return nil
	}
}
