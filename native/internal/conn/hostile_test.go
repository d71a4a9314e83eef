package conn

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// A server answering the handshake's OPTIONS with something other than SUPPORTED fails the
// dial with an error naming what it sent: the message used to be read from the response after
// it went back to the pool, and so named ERROR (the zero opcode) whatever the server sent.
func TestDialNamesTheUnexpectedAnswerToOptions(t *testing.T) {
	for _, op := range []proto.Opcode{proto.OpReady, proto.OpAuthSuccess} {
		t.Run(op.String(), func(t *testing.T) {
			addr := answerOnce(t, func(req proto.Header) []byte {
				body := []byte(nil)
				if op == proto.OpAuthSuccess {
					body = proto.AppendBytes(nil, nil)
				}
				return append(proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: req.Stream, Opcode: op, Length: len(body)}), body...)
			})
			_, err := Dial(context.Background(), addr, Config{HeartbeatInterval: -1})
			var de *DialError
			if !errors.As(err, &de) || de.Step != "OPTIONS" {
				t.Fatalf("Dial: %v, want a *DialError at step OPTIONS", err)
			}
			if want := "got " + op.String(); !strings.Contains(err.Error(), want) {
				t.Errorf("Dial: %v, want it to say %q", err, want)
			}
		})
	}
}

// Events still queued when the connection closes are not delivered: once Close has returned,
// OnEvent runs at most to the end of the call in progress. The event goroutine picked at random
// between the queued events and the close, so it went on calling OnEvent after Close (for
// a session, Config.OnSchemaChange after Session.Close returned).
func TestNoEventDeliveredAfterClose(t *testing.T) {
	for round := range 10 {
		noEventDeliveredAfterClose(t, round)
	}
}

func noEventDeliveredAfterClose(t *testing.T, round int) {
	ev, _ := proto.AppendString(nil, proto.EventStatusChange)
	ev, _ = proto.AppendString(ev, "UP")
	ev = append(ev, 4, 127, 0, 0, 1)
	ev = proto.AppendInt(ev, 9042)
	const events = 8
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		if h.Opcode == proto.OpRegister {
			_ = fc.send(h.Stream, proto.OpReady, nil)
			for range events {
				_ = fc.send(-1, proto.OpEvent, ev)
			}
		}
	})
	entered, release := make(chan struct{}), make(chan struct{})
	var calls, afterClose atomic.Int32
	var closed atomic.Bool
	c := dialFake(t, s, Config{OnEvent: func(proto.Event) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
			return
		}
		if closed.Load() {
			afterClose.Add(1)
		}
	}})
	if err := c.Register(context.Background(), proto.EventStatusChange); err != nil {
		t.Fatal(err)
	}
	<-entered
	deadline := time.Now().Add(10 * time.Second)
	for len(c.events) < events-1 { // the others wait in the queue
		if time.Now().After(deadline) {
			t.Fatalf("round %d: %d events queued, want %d", round, len(c.events), events-1)
		}
		time.Sleep(time.Millisecond)
	}
	_ = c.Close()
	closed.Store(true)
	close(release)
	for eventLoopRunning() { // until the event goroutine has ended
		if time.Now().After(deadline) {
			t.Fatalf("round %d: the event goroutine did not end after Close", round)
		}
		time.Sleep(time.Millisecond)
	}
	if n := afterClose.Load(); n > 0 {
		t.Fatalf("round %d: OnEvent called %d times after Close returned", round, n)
	}
}

// eventLoopRunning reports whether a connection's event goroutine is running.
func eventLoopRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*Conn).eventLoop")
}
