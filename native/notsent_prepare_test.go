package native_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// closeAfterPrepare is a dialer whose connections close themselves right after writing a
// PREPARE whose text contains mark, once armed.
type closeAfterPrepare struct {
	mark  []byte
	armed atomic.Bool
}

func (d *closeAfterPrepare) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &closingConn{Conn: nc, d: d}, nil
}

type closingConn struct {
	net.Conn
	d *closeAfterPrepare
}

func (c *closingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if len(p) > 9 && p[4] == 0x09 && bytes.Contains(p, c.d.mark) && c.d.armed.CompareAndSwap(true, false) {
		c.Conn.Close()
	}
	return n, err
}

// TestErrNotSentTellsSentFromNot checks ErrNotSent on the errors of Prepare: a PREPARE sent
// whose connection closed before the answer matches ErrConnClosed only (it reached the node),
// and one that found its only node without an open connection (stopped, and seen so) matches
// both.
func TestErrNotSentTellsSentFromNot(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	d := &closeAfterPrepare{mark: []byte("release_version")}
	s, err := native.Connect(ctxT(t), native.Config{Hosts: sim.Addrs(), Dialer: d, Timeout: 5 * time.Second, ConnsPerHost: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	d.armed.Store(true)
	_, err = s.Prepare(ctxT(t), "SELECT release_version FROM system.local")
	if !errors.Is(err, native.ErrConnClosed) || errors.Is(err, native.ErrNotSent) {
		t.Errorf("PREPARE whose connection closed in flight: %v; want ErrConnClosed and not ErrNotSent", err)
	}
	if d.armed.Load() {
		t.Fatal("the PREPARE was not cut off")
	}

	if err := sim.StopNode(0); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); s.Hosts()[0].Up; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the session still has a connection to the stopped node")
		}
	}
	_, err = s.Prepare(ctxT(t), "SELECT cluster_name FROM system.local")
	if !errors.Is(err, native.ErrConnClosed) || !errors.Is(err, native.ErrNotSent) {
		t.Errorf("PREPARE with its node stopped: %v; want ErrConnClosed and ErrNotSent", err)
	}
}
