package native_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// A USE whose switch of the other connections Close cuts short (a slow node still has to
// answer it) fails with ErrSessionClosed, not with an error matching context.Canceled, which
// its caller, whose context did not end, would take for the end of its own context.
func TestUseCutShortByCloseIsNoContextError(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	mustExec(t, s, "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	if err := cl.SetNodeDelay(1, time.Hour); err != nil { // node 1 holds every statement
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Execute(context.Background(), native.Query("USE k2").WithHost(cl.Addrs()[0]))
		done <- err
	}()
	for s.Keyspace() != "k2" { // node 0 answered: the switch of every connection runs
		time.Sleep(time.Millisecond)
	}
	s.Close()
	err = <-done
	if !errors.Is(err, native.ErrSessionClosed) || errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrSessionClosed and no context error", err)
	}
}
