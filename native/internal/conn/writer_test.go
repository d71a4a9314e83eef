package conn

import (
	"context"
	"net"
	"sync"
	"testing"

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

// TestWriterBatchesQueuedFrames checks the writer's coalescing: while one Write is in
// progress, requests queue up, and the next Write carries all of them at once. The first
// request, alone in flight, is written by its caller (Start's direct write), so it is started
// on a goroutine of its own.
func TestWriterBatchesQueuedFrames(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
	var gc *gatedConn
	c := dialFake(t, s, Config{Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		gc = &gatedConn{Conn: nc}
		return gc, nil
	}})
	gc.mu.Lock()
	handshakeWrites := len(gc.writes)
	gc.armed, gc.entered, gc.release = true, make(chan struct{}), make(chan struct{})
	gc.mu.Unlock()

	type started struct {
		call *Call
		err  error
	}
	firstDone := make(chan started, 1)
	go func() {
		call, err := c.Start(context.Background(), query("first"))
		firstDone <- started{call, err}
	}()
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
