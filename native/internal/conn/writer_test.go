package conn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// gatedConn records every Write (as the number of frames it carried) and, once armed, blocks
// the next Write until released.
type gatedConn struct {
	net.Conn
	mu      sync.Mutex
	writes  []int
	armed   bool
	entered chan struct{}
	release chan struct{}
}

func (g *gatedConn) Write(b []byte) (int, error) {
	g.mu.Lock()
	armed := g.armed
	g.armed = false
	g.writes = append(g.writes, countFrames(b))
	g.mu.Unlock()
	if armed {
		close(g.entered)
		<-g.release
	}
	return g.Conn.Write(b)
}

func countFrames(b []byte) int {
	n := 0
	for len(b) >= proto.HeaderSize {
		h, err := proto.ParseHeader(b, 0)
		if err != nil || len(b) < proto.HeaderSize+h.Length {
			return -1
		}
		b = b[proto.HeaderSize+h.Length:]
		n++
	}
	return n
}

// dialWrapped dials the fake server through a Dialer that wraps the TCP connection with wrap.
func dialWrapped(t *testing.T, s *fakeServer, wrap func(net.Conn) net.Conn) *Conn {
	t.Helper()
	return dialFake(t, s, Config{Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wrap(nc), nil
	}})
}

// started is the outcome of Start in startAsync.
type started struct {
	call *Call
	err  error
}

// startAsync runs Start for the query q in a goroutine of its own, as a caller that Start's
// direct write may hold.
func startAsync(c *Conn, q string) <-chan started {
	done := make(chan started, 1)
	go func() {
		call, err := c.Start(context.Background(), query(q))
		done <- started{call, err}
	}()
	return done
}

// TestWriterBatchesQueuedFrames checks the writer's coalescing: while one Write is in
// progress, requests queue up, and the next Write carries all of them at once. The first
// request, alone in flight, is written by its caller (Start's direct write), so it is started
// on a goroutine of its own.
func TestWriterBatchesQueuedFrames(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
	var gc *gatedConn
	c := dialWrapped(t, s, func(nc net.Conn) net.Conn {
		gc = &gatedConn{Conn: nc}
		return gc
	})
	gc.mu.Lock()
	handshakeWrites := len(gc.writes)
	gc.armed, gc.entered, gc.release = true, make(chan struct{}), make(chan struct{})
	gc.mu.Unlock()

	firstDone := startAsync(c, "first")
	<-gc.entered // a Write with the first frame is in progress
	const queued = 50
	var calls []*Call
	for i := 0; i < queued; i++ {
		call, err := c.Start(context.Background(), query("queued"))
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call)
	}
	close(gc.release)
	first := <-firstDone
	if first.err != nil {
		t.Fatal(first.err)
	}
	calls = append(calls, first.call)
	for _, call := range calls {
		if _, err := call.Response(); err != nil {
			t.Fatal(err)
		}
		call.Release()
	}
	gc.mu.Lock()
	writes := append([]int(nil), gc.writes[handshakeWrites:]...)
	gc.mu.Unlock()
	if len(writes) != 2 || writes[0] != 1 || writes[1] != queued {
		t.Errorf("frames per Write after the handshake = %v, want [1 %d]", writes, queued)
	}
}

// scriptedConn runs each Write through the next step queued for it (none: the write goes
// through). A step waits for its gate, when it has one, after saying so on entered; then it
// writes the first frame of the write and failBytes more bytes and fails, when failBytes is
// not negative.
type scriptedConn struct {
	net.Conn
	mu    sync.Mutex
	steps []writeStep
}

type writeStep struct {
	entered, gate chan struct{}
	failBytes     int
}

var errInjectedWrite = errors.New("injected write failure")

func (sc *scriptedConn) Write(b []byte) (int, error) {
	sc.mu.Lock()
	var st *writeStep
	if len(sc.steps) > 0 {
		st = &sc.steps[0]
		sc.steps = sc.steps[1:]
	}
	sc.mu.Unlock()
	if st == nil {
		return sc.Conn.Write(b)
	}
	if st.gate != nil {
		close(st.entered)
		<-st.gate
	}
	if st.failBytes < 0 {
		return sc.Conn.Write(b)
	}
	h, err := proto.ParseHeader(b, 0)
	if err != nil {
		return 0, err
	}
	n, err := sc.Conn.Write(b[:proto.HeaderSize+h.Length+st.failBytes])
	if err != nil {
		return n, err
	}
	return n, errInjectedWrite
}

// When the writer's write fails, the requests it did not reach, and those still queued for
// it, complete with ErrNotSent (their callers may send them elsewhere whatever their
// idempotence), while those written, in whole or in part, and those written before complete
// with the connection's error alone: their outcome is unknown.
func TestFailedWriteCompletesUnsentCallsWithErrNotSent(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {}) // answers no query
	var sc *scriptedConn
	c := dialWrapped(t, s, func(nc net.Conn) net.Conn {
		sc = &scriptedConn{Conn: nc}
		return sc
	})
	// The first request, alone in flight, is written by its caller, held in that Write while
	// three more queue for the writer goroutine. The writer's write of those three (one
	// whole, one byte of the next) is held while a fifth queues, then fails.
	first := writeStep{entered: make(chan struct{}), gate: make(chan struct{}), failBytes: -1}
	batch := writeStep{entered: make(chan struct{}), gate: make(chan struct{}), failBytes: 1}
	sc.mu.Lock()
	sc.steps = []writeStep{first, batch}
	sc.mu.Unlock()

	firstDone := startAsync(c, "first")
	<-first.entered
	var calls []*Call
	start := func(q string) {
		t.Helper()
		call, err := c.Start(context.Background(), query(q))
		if err != nil {
			t.Fatalf("Start %s: %v", q, err)
		}
		calls = append(calls, call)
	}
	start("whole")
	start("part")
	start("unreached")
	close(first.gate)
	<-batch.entered
	start("queued")
	close(batch.gate)
	f := <-firstDone
	if f.err != nil {
		t.Fatal(f.err)
	}
	calls = append([]*Call{f.call}, calls...)

	for i, name := range []string{"first", "whole", "part", "unreached", "queued"} {
		_, err := calls[i].Response()
		calls[i].Release()
		wantNotSent := name == "unreached" || name == "queued"
		if !errors.Is(err, ErrConnClosed) || errors.Is(err, ErrNotSent) != wantNotSent {
			t.Errorf("%s: %v; want the connection's error, matching ErrNotSent: %v", name, err, wantNotSent)
		}
		if wantNotSent && !errors.Is(err, errInjectedWrite) {
			t.Errorf("%s: %v; want the write's error in it", name, err)
		}
	}
}

// When the connection fails while requests are still queued for the writer (here: the server
// closes it while the writer's write is held), those requests complete with ErrNotSent; one
// the server had read keeps the connection's error alone.
func TestConnectionFailureCompletesQueuedCallsWithErrNotSent(t *testing.T) {
	held := make(chan *fakeConn, 1)
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		if queryText(body) == "hold" {
			held <- fc // no answer
		}
	})
	var sc *scriptedConn
	c := dialWrapped(t, s, func(nc net.Conn) net.Conn {
		sc = &scriptedConn{Conn: nc}
		return sc
	})
	hold, err := c.Start(context.Background(), query("hold"))
	if err != nil {
		t.Fatal(err)
	}
	fc := <-held // the server has read it
	// The next write, the writer's (two requests are in flight), is held while another
	// request queues behind it; then the server closes the connection.
	step := writeStep{entered: make(chan struct{}), gate: make(chan struct{}), failBytes: -1}
	sc.mu.Lock()
	sc.steps = []writeStep{step}
	sc.mu.Unlock()
	inWrite, err := c.Start(context.Background(), query("in the held write"))
	if err != nil {
		t.Fatal(err)
	}
	<-step.entered
	queued, err := c.Start(context.Background(), query("queued"))
	if err != nil {
		t.Fatal(err)
	}
	fc.close()
	_, qerr := queued.Response()
	_, herr := hold.Response()
	close(step.gate)
	_, _ = inWrite.Response() // sent or not, depending on who claims it first: either is right
	for _, call := range []*Call{hold, inWrite, queued} {
		call.Release()
	}
	if !errors.Is(qerr, ErrConnClosed) || !errors.Is(qerr, ErrNotSent) {
		t.Errorf("the request still queued: %v; want the connection's error, matching ErrNotSent", qerr)
	}
	if !errors.Is(herr, ErrConnClosed) || errors.Is(herr, ErrNotSent) {
		t.Errorf("the request the server read: %v; want the connection's error, not matching ErrNotSent", herr)
	}
}

// TestStartDoesNotWaitWhenTheServerStopsReading checks that Start never waits for the
// network: with the server not reading, the socket's buffers fill, and the writer goroutine,
// not the callers, waits for room. Once the server reads again, every request arrives
// intact, in order, and is answered.
func TestStartDoesNotWaitWhenTheServerStopsReading(t *testing.T) {
	gate := make(chan struct{})
	var openGate sync.Once
	var mu sync.Mutex
	var seen []string
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		<-gate
		mu.Lock()
		seen = append(seen, queryText(body))
		mu.Unlock()
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
	c := dialFake(t, s, Config{})
	// Registered after startFake's: runs first, so that the server's handlers end.
	t.Cleanup(func() { openGate.Do(func() { close(gate) }) })
	// 96 requests of 512 KiB: 48 MiB, far more than loopback's socket buffers hold.
	const n = 96
	pad := strings.Repeat("x", 512<<10)
	starts := make(chan started, n)
	go func() {
		for i := 0; i < n; i++ {
			call, err := c.Start(context.Background(), query(fmt.Sprintf("%03d %s", i, pad)))
			starts <- started{call, err}
		}
	}()
	var calls []*Call
	for i := 0; i < n; i++ {
		select {
		case st := <-starts:
			if st.err != nil {
				t.Fatalf("Start %d: %v", i, st.err)
			}
			calls = append(calls, st.call)
		case <-time.After(time.Minute):
			t.Fatalf("Start %d has not returned after a minute with the server not reading: it waits for the network", i)
		}
	}
	openGate.Do(func() { close(gate) })
	for i, call := range calls {
		if _, err := call.Response(); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		call.Release()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n {
		t.Fatalf("the server read %d requests, want %d", len(seen), n)
	}
	for i, q := range seen {
		if want := fmt.Sprintf("%03d %s", i, pad); q != want {
			t.Fatalf("request %d as the server read it: %.20q (%d bytes), want %.20q (%d bytes)", i, q, len(q), want, len(want))
		}
	}
}
