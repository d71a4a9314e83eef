package conn

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// notifyChan is a Notified that passes the completed call on.
type notifyChan chan *Call

func (n notifyChan) CallDone(call *Call) { n <- call }

func awaitCall(t *testing.T, n notifyChan) *Call {
	t.Helper()
	select {
	case call := <-n:
		return call
	case <-time.After(30 * time.Second):
		t.Fatal("CallDone was not called within 30s")
		return nil
	}
}

// StartNotify's calls are completed through CallDone, with nobody waiting on Done: the reader
// reads them, each is told once, and owns its call (Response, Release). Requests queued and
// written directly both complete.
func TestStartNotify(t *testing.T) {
	c := dialT(t, Config{})
	n := make(notifyChan, 100)
	for i := range 100 {
		if _, err := c.StartNotify(query("SELECT key FROM system.local"), n); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	for i := range 100 {
		call := awaitCall(t, n)
		resp, err := call.Response()
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if _, ok := resp.Msg.(*proto.RowsResult); !ok {
			t.Fatalf("response %d: %T", i, resp.Msg)
		}
		call.Release()
	}
	select {
	case call := <-n:
		t.Fatalf("a call was completed twice (stream %d)", call.Stream())
	case <-time.After(50 * time.Millisecond):
	}
	if got := c.InFlight(); got != 0 {
		t.Errorf("InFlight = %d, want 0", got)
	}
}

// StartNotify never waits for a stream id: with all in use it fails at once, having sent
// nothing. A failure of the connection completes the calls in flight through CallDone, with the
// connection's error; on a closed connection StartNotify fails.
func TestStartNotifyNoStreamAndFailure(t *testing.T) {
	release := make(chan struct{})
	srv := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		<-release // holds every request: no answer
	})
	defer close(release)
	c, err := Dial(context.Background(), srv.addr(), Config{MaxStreams: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := make(notifyChan, 4)
	for range 2 {
		if _, err := c.StartNotify(query("SELECT 1"), n); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.StartNotify(query("SELECT 1"), n)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNoFreeStream) {
			t.Fatalf("StartNotify with every stream id in use: %v, want ErrNoFreeStream", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("StartNotify waited for a stream id")
	}
	_ = c.Close()
	for range 2 {
		call := awaitCall(t, n)
		if _, err := call.Response(); !errors.Is(err, ErrConnClosed) {
			t.Errorf("a call in flight when the connection closed: %v, want ErrConnClosed", err)
		}
		call.Release()
	}
	if _, err := c.StartNotify(query("SELECT 1"), n); err == nil {
		t.Fatal("StartNotify on a closed connection succeeded")
	}
}

// Interrupt completes a notified call through CallDone with the given error.
func TestStartNotifyInterrupt(t *testing.T) {
	release := make(chan struct{})
	srv := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		<-release // never answers before the test ends
	})
	defer close(release)
	c, err := Dial(context.Background(), srv.addr(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := make(notifyChan, 1)
	call, err := c.StartNotify(query("SELECT 1"), n)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if !call.Interrupt(boom) {
		t.Fatal("Interrupt of a call in flight returned false")
	}
	got := awaitCall(t, n)
	if _, err := got.Response(); !errors.Is(err, boom) {
		t.Errorf("Response after Interrupt: %v, want boom", err)
	}
	got.Release()
}

// TryStart never waits for a stream id: with all in use it fails at once with ErrNoFreeStream,
// having sent nothing (the server sees no third request while the two hold every id); once an
// answer frees an id it starts the request.
func TestTryStartNeverWaits(t *testing.T) {
	hold := make(chan struct{})
	var seen atomic.Int32
	srv := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		switch queryText(body) {
		case "SELECT 1":
			seen.Add(1)
			go func() { // held, while the server reads on
				<-hold
				_ = fc.send(h.Stream, proto.OpResult, voidBody())
			}()
			return
		case "SELECT 2":
			seen.Add(1)
		}
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
	c, err := Dial(context.Background(), srv.addr(), Config{MaxStreams: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var calls []*Call
	for range 2 {
		call, err := c.TryStart(query("SELECT 1"))
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.TryStart(query("SELECT 2"))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNoFreeStream) {
			t.Fatalf("TryStart with every stream id in use: %v, want ErrNoFreeStream", err)
		}
	case <-time.After(10 * time.Second):
		close(hold)
		t.Fatal("TryStart waited for a stream id")
	}
	// The held requests reached the server, the refused one did not (the server reads on while
	// it holds them, so a refused request sent anyway would be seen).
	pollSeen := time.Now()
	for seen.Load() < 2 && time.Since(pollSeen) < 10*time.Second {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // a refused request that was sent anyway would arrive now
	if n := seen.Load(); n != 2 {
		close(hold)
		t.Fatalf("the server saw %d requests while every stream id was in use, want the 2 held ones", n)
	}
	close(hold)
	for _, call := range calls {
		if _, err := call.Response(); err != nil {
			t.Fatal(err)
		}
		call.Release()
	}
	call, err := c.TryStart(query("SELECT 2"))
	if err != nil {
		t.Fatalf("TryStart with free stream ids: %v", err)
	}
	if _, err := call.Response(); err != nil {
		t.Fatal(err)
	}
	call.Release()
	if n := seen.Load(); n != 3 {
		t.Errorf("the server saw %d requests, want 3 (two held, one after they were answered)", n)
	}
}
