package conn

import (
	"context"
	"strings"
	"sync"
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
		call.Pump(time.Time{}, true)
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
		call.Pump(time.Now().Add(time.Millisecond), true)
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
	fast.Pump(time.Now().Add(time.Hour), true)
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
	call.Pump(time.Now().Add(time.Hour), true)
	if _, err := call.Response(); err == nil {
		t.Fatal("Response succeeded on a connection the server closed")
	}
	call.Release()
	waitDone(t, c)
}

// TestPumpLeavesReadingToTheReaderAfterABurst: once a read brings several responses at once
// (many callers are active), a request alone in flight is left to the reader goroutine, which
// batches it with the others, instead of being read by its caller; a response arriving alone
// turns the caller's reading back on.
func TestPumpLeavesReadingToTheReaderAfterABurst(t *testing.T) {
	var mu sync.Mutex
	var pending []byte
	release := make(chan struct{})
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		frame := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: h.Stream, Opcode: proto.OpResult, Length: 4})
		frame = append(frame, voidBody()...)
		switch q := queryText(body); {
		case strings.HasPrefix(q, "burst"):
			// The three responses go out in one write, so they arrive in one read.
			mu.Lock()
			pending = append(pending, frame...)
			if len(pending) == 3*len(frame) {
				_ = fc.sendRaw(pending)
			}
			mu.Unlock()
		case q == "held":
			go func() {
				<-release
				_ = fc.sendRaw(frame)
			}()
		default:
			_ = fc.sendRaw(frame)
		}
	})
	c := dialFake(t, s, Config{})
	c.pumpSlice = time.Hour
	var calls []*Call
	for _, q := range []string{"burst1", "burst2", "burst3"} {
		call, err := c.Start(context.Background(), query(q))
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call)
	}
	for _, call := range calls {
		<-call.Done()
		call.Received()
		if _, err := call.Response(); err != nil {
			t.Fatal(err)
		}
		call.Release()
	}
	if !c.burst.Load() {
		t.Fatal("three responses read at once did not mark a burst")
	}
	held, err := c.Start(context.Background(), query("held"))
	if err != nil {
		t.Fatal(err)
	}
	pumped := make(chan struct{})
	go func() {
		held.Pump(time.Time{}, true) // would read until the held response came, an hour at most
		close(pumped)
	}()
	select {
	case <-pumped:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("after a burst, Pump read in the caller's goroutine instead of returning")
	}
	close(release)
	<-held.Done()
	held.Received()
	if _, err := held.Response(); err != nil {
		t.Fatal(err)
	}
	held.Release()
	if c.burst.Load() {
		t.Fatal("a response arriving alone did not end the burst")
	}
	// Lone requests are read by their callers again.
	pumpedLone := 0
	for i := 0; i < 10; i++ {
		call, err := c.Start(context.Background(), query("lone"))
		if err != nil {
			t.Fatal(err)
		}
		call.Pump(time.Time{}, true)
		if delivered(call) {
			pumpedLone++
		}
		if _, err := call.Response(); err != nil {
			t.Fatal(err)
		}
		call.Release()
	}
	if pumpedLone < 5 {
		t.Fatalf("after the burst ended, only %d of 10 lone requests were read by their caller", pumpedLone)
	}
}

// A caller with no context to watch (watch false) reads for up to PumpLongSlice: a response
// that comes 40 ms late is read by the caller itself. A caller that watches a context stops
// reading after PumpSlice (2 ms) and would wait on Done.
func TestPumpReadsLongerWithoutAContextToWatch(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		time.Sleep(40 * time.Millisecond)
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
	c := dialFake(t, s, Config{})
	pumped := map[bool]int{}
	for _, watch := range []bool{false, true} {
		for range 6 {
			call, err := c.Start(context.Background(), query("q"))
			if err != nil {
				t.Fatal(err)
			}
			call.Pump(time.Time{}, watch)
			if delivered(call) {
				pumped[watch]++
			}
			if _, err := call.Response(); err != nil {
				t.Fatal(err)
			}
			call.Release()
		}
	}
	if pumped[false] < 4 {
		t.Errorf("without a context to watch, the caller read %d of 6 responses itself, want most", pumped[false])
	}
	if pumped[true] != 0 {
		t.Errorf("with a context to watch, the caller read %d of 6 responses 40 ms late itself, want none", pumped[true])
	}
}
