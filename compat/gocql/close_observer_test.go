package gocql

import (
	"sync/atomic"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

type connectFunc func(ObservedConnect)

func (f connectFunc) ObserveConnect(c ObservedConnect) { f(c) }

type legacyConnectFunc func(gocqlv1.ObservedConnect)

func (f legacyConnectFunc) ObserveConnect(c gocqlv1.ObservedConnect) { f(c) }

// A ConnectObserver may close the session, as in gocql v1.7.0: here when it observes the
// reconnection to a node that was restarted. The shim's Close used to wait for the goroutine
// that made the connection, which was waiting in the observer for Close.
func TestCloseFromConnectObserverLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	second := ipOfAddr(t, sim.Addrs()[1])
	var shim *Session
	var legacy *gocqlv1.Session
	var armed atomic.Bool
	shimClosed, legacyClosed := make(chan struct{}), make(chan struct{})
	var shimOnce, legacyOnce atomic.Bool
	shim, legacy = sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.ProtoVersion, l.ProtoVersion = 4, 4
		l.ReconnectInterval = 100 * time.Millisecond
		c.ConnectObserver = connectFunc(func(o ObservedConnect) {
			if o.Err == nil && armed.Load() && hostAddr(o.Host) == second && shimOnce.CompareAndSwap(false, true) {
				shim.Close()
				close(shimClosed)
			}
		})
		l.ConnectObserver = legacyConnectFunc(func(o gocqlv1.ObservedConnect) {
			if o.Err == nil && armed.Load() && hostAddr(o.Host) == second && legacyOnce.CompareAndSwap(false, true) {
				legacy.Close()
				close(legacyClosed)
			}
		})
	})
	if err := sim.StopNode(1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // both drivers see the node down
	armed.Store(true)
	if err := sim.StartNode(1); err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		name   string
		closed chan struct{}
		done   func() bool
	}{{"gocql v1.7.0", legacyClosed, legacy.Closed}, {"the shim", shimClosed, shim.Closed}} {
		select {
		case <-d.closed:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s: Close called from the ConnectObserver did not return in 15s", d.name)
		}
		if !d.done() {
			t.Errorf("%s: Closed() = false after Close", d.name)
		}
	}
	if err := shim.Query("SELECT key FROM system.local").Exec(); err != ErrSessionClosed {
		t.Errorf("the shim after Close: %v, want ErrSessionClosed", err)
	}
}
