package cqlsim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// A delayed node answers its statements at least the delay late, the other nodes do not wait
// for it, and the delay can be removed.
func TestSetNodeDelay(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()[:1], Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const delay = 300 * time.Millisecond
	if err := c.SetNodeDelay(1, delay); err != nil {
		t.Fatal(err)
	}
	stmt := func(node int) native.Statement {
		return native.Query("SELECT release_version FROM system.local").WithHost(c.Addrs()[node])
	}
	// The session may not have opened node 1's pool yet: retry until it serves.
	var slow time.Duration
	deadline := time.Now().Add(10 * time.Second)
	for {
		start := time.Now()
		_, err := s.Execute(ctx, stmt(1))
		slow = time.Since(start)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node 1 never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if slow < delay {
		t.Errorf("node 1 answered after %v, before its delay of %v", slow, delay)
	}

	// Sent at the same time, node 0's answer comes first.
	type answer struct {
		node int
		err  error
	}
	answers := make(chan answer, 2)
	for _, n := range []int{1, 0} {
		go func() {
			_, err := s.Execute(ctx, stmt(n))
			answers <- answer{n, err}
		}()
	}
	for i, want := range []int{0, 1} {
		a := <-answers
		if a.err != nil {
			t.Fatalf("node %d: %v", a.node, a.err)
		}
		if a.node != want {
			t.Fatalf("answer %d came from node %d, want node %d: the delay of node 1 held node 0 up", i+1, a.node, want)
		}
	}

	if err := c.SetNodeDelay(1, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.SetNodeDelay(0, time.Hour); err != nil {
		t.Fatal(err)
	}
	// With node 0 delayed an hour, node 1 answers at once, before a query to node 0 does.
	go func() {
		_, err := s.Execute(ctx, stmt(0))
		answers <- answer{0, err}
	}()
	if _, err := s.Execute(ctx, stmt(1)); err != nil {
		t.Fatalf("node 1 after its delay was removed: %v", err)
	}
	select {
	case a := <-answers:
		t.Fatalf("node 0, delayed an hour, answered: %v", a.err)
	default:
	}
	// OPTIONS is not delayed.
	rc := dialRaw(t, c.Addrs()[0])
	rc.send(primitive.ProtocolVersion4, 1, &message.Options{})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeSupported {
		t.Errorf("OPTIONS on the delayed node answered with %v", f.Body.Message)
	}
	// Stopping the node ends the statement waiting out its delay: the query fails at once
	// (and Close, below, does not wait an hour for the node's goroutines).
	if err := c.StopNode(0); err != nil {
		t.Fatal(err)
	}
	if a := <-answers; a.err == nil || !errors.Is(a.err, native.ErrConnClosed) {
		t.Errorf("the query waiting on the stopped node: %v, want an error matching ErrConnClosed", a.err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSetNodeDelayRefusesBadInput(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	for _, tc := range []struct {
		node int
		d    time.Duration
		want string
	}{
		{2, time.Second, "cqlsim: SetNodeDelay(2): the cluster has nodes 0 to 1"},
		{-1, time.Second, "cqlsim: SetNodeDelay(-1): the cluster has nodes 0 to 1"},
		{0, -time.Second, "cqlsim: SetNodeDelay(0, -1s): the delay is negative"},
	} {
		err := c.SetNodeDelay(tc.node, tc.d)
		if err == nil || err.Error() != tc.want {
			t.Errorf("SetNodeDelay(%d, %v) = %v, want %q", tc.node, tc.d, err, tc.want)
		}
	}
}
