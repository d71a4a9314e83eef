package conn

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// TestStressCancelAndClose runs many goroutines that start requests, abandon some, cancel
// others, against a server answering after random delays, then closes the connection in the
// middle. Every call must end with a response, ctx.Err() or a closed-connection error, and the
// race detector and goleak watch the rest.
func TestStressCancelAndClose(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		d := time.Duration(rand.IntN(2000)) * time.Microsecond
		go func() {
			time.Sleep(d)
			_ = fc.send(h.Stream, proto.OpResult, voidBody())
		}()
	})
	c := dialFake(t, s, Config{MaxStreams: 64})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var mu sync.Mutex
	counts := map[string]int{}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var kind string
				switch rand.IntN(3) {
				case 0: // plain round trip
					resp, err := c.Do(context.Background(), query("x"))
					kind = outcome(err)
					resp.Release()
				case 1: // a short deadline that often expires
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(1500))*time.Microsecond)
					resp, err := c.Do(ctx, query("x"))
					cancel()
					kind = outcome(err)
					resp.Release()
				case 2: // start, maybe abandon before completion
					call, err := c.Start(context.Background(), query("x"))
					if err != nil {
						kind = outcome(err)
						break
					}
					if rand.IntN(2) == 0 {
						call.Release()
						kind = "abandoned"
						break
					}
					<-call.Done()
					_, err = call.Response()
					kind = outcome(err)
					call.Release()
				}
				if kind == "unexpected" {
					t.Error("unexpected error")
					return
				}
				mu.Lock()
				counts[kind]++
				mu.Unlock()
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	_ = c.Close()
	close(stop)
	wg.Wait()
	t.Logf("outcomes: %v", counts)
	if counts["ok"] == 0 {
		t.Error("no request succeeded")
	}
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, ErrConnClosed):
		return "closed"
	}
	return "unexpected"
}
