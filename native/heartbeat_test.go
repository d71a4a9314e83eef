package native_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// A HeartbeatInterval shorter than the node takes to answer an OPTIONS no longer closes
// healthy connections: the heartbeat waits for its answer up to ConnectTimeout. It waited
// only the interval, so with an interval of a microsecond Connect failed ("heartbeat failed:
// OPTIONS got no answer within 1µs"), and with one of tens of microseconds the connections
// kept closing, failing the requests in flight on them.
func TestShortHeartbeatIntervalKeepsConnections(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	var connects atomic.Int32
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1,
		HeartbeatInterval: time.Microsecond,
		OnConnect:         func(native.ConnectEvent) { connects.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 50 {
		if _, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local")); err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
		time.Sleep(time.Millisecond) // idle: heartbeats go out
	}
	if n := connects.Load(); n != 2 { // the control connection and the pool's
		t.Errorf("%d connections opened, want 2 (none closed by a heartbeat)", n)
	}
}
