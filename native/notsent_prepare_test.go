package native_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// TestErrNotSentTellsSentFromNot checks ErrNotSent on the errors of Prepare: a PREPARE sent
// whose connection closed before the answer matches ErrConnClosed only (it reached the node),
// and one that found its only node without an open connection (stopped, and seen so) matches
// both.
func TestErrNotSentTellsSentFromNot(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	d := &cqltest.PrepareCutter{Mark: []byte("release_version")}
	s, err := native.Connect(ctxT(t), native.Config{Hosts: sim.Addrs(), Dialer: d, Timeout: 5 * time.Second, ConnsPerHost: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	d.Armed.Store(true)
	_, err = s.Prepare(ctxT(t), "SELECT release_version FROM system.local")
	if !errors.Is(err, native.ErrConnClosed) || errors.Is(err, native.ErrNotSent) {
		t.Errorf("PREPARE whose connection closed in flight: %v; want ErrConnClosed and not ErrNotSent", err)
	}
	if d.Armed.Load() {
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
