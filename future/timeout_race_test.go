package future_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// TestExpiredTimeoutAlwaysWins: with a 1 µs timeout the deadline always passes before any
// response, so every future must fail with a TimeoutError. Before the fix, a response that was
// already there when the waiting goroutine ran won Go's random select about once in 30 runs.
func TestExpiredTimeoutAlwaysWins(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	s, err := native.Connect(context.Background(), native.Config{Hosts: c.Addrs(), DisablePeerDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 500; i++ {
		outcome := make(chan error, 2)
		f := future.ExecuteAsync(context.Background(), s, native.Query("SELECT key FROM system.local"), future.Options{Timeout: time.Microsecond})
		f.AddCallbacks(func(future.Page) { outcome <- nil }, func(err error) { outcome <- err })
		var te *future.TimeoutError
		if err := <-outcome; !errors.As(err, &te) {
			t.Fatalf("request %d with a 1µs timeout: got %v, want a *future.TimeoutError", i, err)
		}
	}
}
