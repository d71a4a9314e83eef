package cqlsim_test

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// A frozen node keeps its connections and accepts new ones but answers nothing, the others
// announce it DOWN, and once thawed it sends what it held back and is announced UP.
func TestFreezeAndThawNode(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	watcher := dialRaw(t, c.Addrs()[0])
	watcher.startup(nil)
	watcher.send(primitive.ProtocolVersion4, 2, &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeStatusChange}})
	if f := watcher.read(); f.Header.OpCode != primitive.OpCodeReady {
		t.Fatalf("REGISTER: %v", f.Body.Message)
	}
	expectStatus := func(want primitive.StatusChangeType) {
		t.Helper()
		f := watcher.read()
		ev, ok := f.Body.Message.(*message.StatusChangeEvent)
		if !ok || f.Header.StreamId != -1 {
			t.Fatalf("got %v on stream %d, want STATUS_CHANGE on -1", f.Body.Message, f.Header.StreamId)
		}
		got := net.JoinHostPort(ev.Address.Addr.String(), strconv.Itoa(int(ev.Address.Port)))
		if ev.ChangeType != want || got != c.Addrs()[1] {
			t.Fatalf("event %s %s, want %s %s", ev.ChangeType, got, want, c.Addrs()[1])
		}
	}
	victim := dialRaw(t, c.Addrs()[1])
	victim.startup(nil)

	if err := c.FreezeNode(1); err != nil {
		t.Fatalf("FreezeNode: %v", err)
	}
	expectStatus(primitive.StatusChangeTypeDown)
	if err := c.FreezeNode(1); err != nil {
		t.Fatalf("second FreezeNode: %v", err)
	}
	victim.send(primitive.ProtocolVersion4, 7, &message.Options{})
	_ = victim.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, err := victim.br.Read(make([]byte, 1)); err == nil {
		t.Fatalf("frozen node answered (%d bytes)", n)
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("frozen node's connection failed: %v", err)
	}
	// A new connection is accepted, and its STARTUP goes unanswered.
	late := dialRaw(t, c.Addrs()[1])
	late.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	_ = late.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := late.br.Read(make([]byte, 1)); err == nil {
		t.Fatal("frozen node answered a STARTUP")
	}
	// The other node answers.
	other := dialRaw(t, c.Addrs()[0])
	other.startup(nil)

	// A connection the client closes while the node is frozen does not keep it from stopping.
	gone := dialRaw(t, c.Addrs()[1])
	gone.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	_ = gone.nc.Close()

	if err := c.ThawNode(1); err != nil {
		t.Fatalf("ThawNode: %v", err)
	}
	expectStatus(primitive.StatusChangeTypeUp)
	if f := victim.read(); f.Header.StreamId != 7 || f.Header.OpCode != primitive.OpCodeSupported {
		t.Fatalf("thawed node sent %v on stream %d, want SUPPORTED on 7", f.Body.Message, f.Header.StreamId)
	}
	if f := late.read(); f.Header.OpCode != primitive.OpCodeReady {
		t.Fatalf("thawed node answered STARTUP with %v", f.Body.Message)
	}
	if err := c.ThawNode(1); err != nil {
		t.Fatalf("second ThawNode: %v", err)
	}
	// A frozen node that is stopped comes back thawed.
	if err := c.FreezeNode(1); err != nil {
		t.Fatal(err)
	}
	expectStatus(primitive.StatusChangeTypeDown)
	if err := c.StopNode(1); err != nil {
		t.Fatal(err)
	}
	expectStatus(primitive.StatusChangeTypeDown)
	if err := c.StartNode(1); err != nil {
		t.Fatal(err)
	}
	expectStatus(primitive.StatusChangeTypeUp)
	back := dialRaw(t, c.Addrs()[1])
	back.startup(nil)
	// Closing the cluster while a node is frozen and a client closed its connection to it
	// returns.
	if err := c.FreezeNode(1); err != nil {
		t.Fatal(err)
	}
	expectStatus(primitive.StatusChangeTypeDown)
	closing := dialRaw(t, c.Addrs()[1])
	closing.send(primitive.ProtocolVersion4, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	time.Sleep(50 * time.Millisecond)
	_ = closing.nc.Close()
	time.Sleep(50 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close of a cluster with a frozen node did not return within 10s")
	}
	if err := c.FreezeNode(2); err == nil {
		t.Error("FreezeNode(2) of a two-node cluster succeeded")
	}
	if err := c.ThawNode(-1); err == nil {
		t.Error("ThawNode(-1) succeeded")
	}
}
