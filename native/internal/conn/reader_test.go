package conn

import (
	"context"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// delivered reports whether call has completed, without waking the reader goroutine.
func delivered(call *Call) bool { return call.state.Load() == stateDelivered }

func TestPumpReadsTheResponseInTheCallersGoroutine(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
	c := dialFake(t, s, Config{})
	c.pumpSlice = time.Hour // the pump reads until the response is there
	pumped := 0
	for i := 0; i < 20; i++ {
		call, err := c.Start(context.Background(), query("q"))
		if err != nil {
			t.Fatal(err)
		}
		// Done is not called, so the reader goroutine is not woken for this request: when
		// Pump returns with the call complete, the caller read its own response. (A wake-up
		// left over from the handshake may still let the reader goroutine take the first
		// request or two, and then Pump returns at once.)
		call.Pump(time.Time{})
		if delivered(call) {
			pumped++
		}
		resp, err := call.Response()
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if _, ok := resp.Msg.(*proto.VoidResult); !ok {
			t.Fatalf("request %d: got %T", i, resp.Msg)
		}
		call.Release()
	}
	if pumped < 15 {
		t.Fatalf("only %d of 20 requests were read by their caller", pumped)
	}
}

func TestPumpStopsMidFrameAndTheReaderFinishesIt(t *testing.T) {
	release := make(chan struct{})
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		b := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: h.Stream, Opcode: proto.OpResult, Length: 4})
		b = append(b, voidBody()...)
		// Half the header, then (after the caller's pump gave up) the rest.
		_ = fc.sendRaw(b[:5])
		<-release
		_ = fc.sendRaw(b[5:])
	})
	c := dialFake(t, s, Config{})
	call, err := c.Start(context.Background(), query("q"))
	if err != nil {
		t.Fatal(err)
	}
	// The deadline is in the past once the pump starts reading; the partial header is kept.
	for i := 0; i < 3; i++ {
		call.Pump(time.Now().Add(time.Millisecond))
	}
	if delivered(call) {
		t.Fatal("the call completed before the server sent the whole frame")
	}
	close(release)
	resp, err := call.Response()
	if err != nil {
		t.Fatalf("Response: %v", err)
	}
	if _, ok := resp.Msg.(*proto.VoidResult); !ok {
		t.Fatalf("got %T", resp.Msg)
	}
	call.Release()
	// The connection stays usable: the reader goroutine cleared the caller's deadline.
	if _, err := c.Do(context.Background(), query("again")); err != nil {
		t.Fatalf("after a pump stopped mid-frame: %v", err)
	}
}

func TestPumpDoesNothingWhenOtherRequestsAreInFlight(t *testing.T) {
	answer := make(chan struct{})
	s := startSlowFake(t, answer)
	c := dialFake(t, s, Config{})
	slow, err := c.Start(context.Background(), query("slow"))
	if err != nil {
		t.Fatal(err)
	}
	fast, err := c.Start(context.Background(), query("fast"))
	if err != nil {
		t.Fatal(err)
	}
	// Two requests in flight: Pump leaves reading to the reader goroutine, which Done wakes.
	fast.Pump(time.Now().Add(time.Hour))
	<-fast.Done()
	fast.Received()
	if _, err := fast.Response(); err != nil {
		t.Fatal(err)
	}
	fast.Release()
	close(answer)
	if _, err := slow.Response(); err != nil {
		t.Fatal(err)
	}
	slow.Release()
}

func TestIdleConnectionNoticesServerClose(t *testing.T) {
	conns := make(chan *fakeConn, 1)
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
		select {
		case conns <- fc:
		default:
		}
	})
	c := dialFake(t, s, Config{})
	if _, err := c.Do(context.Background(), query("q")); err != nil {
		t.Fatal(err)
	}
	// Nothing is in flight and nobody calls the connection: the reader goroutine still
	// reads it once it has been idle, and sees the server go away.
	(<-conns).close()
	waitDone(t, c)
	if err := c.Err(); err == nil {
		t.Fatal("Err is nil after the server closed the connection")
	}
}

func TestPumpSeesTheConnectionClose(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		fc.close()
	})
	c := dialFake(t, s, Config{})
	call, err := c.Start(context.Background(), query("q"))
	if err != nil {
		t.Fatal(err)
	}
	call.Pump(time.Now().Add(time.Hour))
	if _, err := call.Response(); err == nil {
		t.Fatal("Response succeeded on a connection the server closed")
	}
	call.Release()
	waitDone(t, c)
}
