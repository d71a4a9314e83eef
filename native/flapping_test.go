package native_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// A node whose connections close right after their handshake (a node or proxy refusing
// clients that way) is reconnected to with a growing delay, as a node whose dials fail is: the
// pool reconnected at once every time, each successful handshake resetting its backoff, so a
// session under load opened hundreds of connections a second to such a node.
func TestPoolBacksOffFromConnectionsClosedAtOnce(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 1})
	var mu sync.Mutex
	var accepted []time.Time // the pool's connections (every one after the control connection's)
	first := true
	addr := cqltest.Serve(t, cqltest.Listen(t), func(nc net.Conn) {
		mu.Lock()
		control := first
		first = false
		if !control {
			accepted = append(accepted, time.Now())
		}
		mu.Unlock()
		if control {
			cqltest.Relay(nc, cl.Addrs()[0])
			return
		}
		for { // the handshake, then the connection closes
			f, err := cqltest.ReadFrame(nc)
			if err != nil {
				return
			}
			switch f.Opcode {
			case 0x05: // OPTIONS
				_ = cqltest.WriteFrame(nc, f.Stream, 0x06, cqltest.SupportedBody())
			case 0x01: // STARTUP
				_ = cqltest.WriteFrame(nc, f.Stream, 0x02, nil)
				return
			}
		}
	})
	s, err := native.Connect(context.Background(), native.Config{Hosts: []string{addr}, ConnsPerHost: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const want = 5
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := append([]time.Time(nil), accepted...)
		mu.Unlock()
		if len(got) >= want {
			// Four reconnections after connections that closed at once: 100, 200, 400 and
			// 800 ms of backoff at least. Without it they took milliseconds.
			if d := got[want-1].Sub(got[0]); d < time.Second {
				t.Fatalf("%d connections in %v to a node that closes each one after its handshake", want, d)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d connections in 30 s", len(got))
		}
		// Requests make the pool see its connections close at once.
		_, _ = s.Execute(context.Background(), native.Query("SELECT release_version FROM system.local"))
		time.Sleep(time.Millisecond)
	}
}
