package conn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
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
	stop := make(chan struct{})
	var mu sync.Mutex
	counts := map[string]int{}
	wg := cqltest.RunWorkers(16, stop, func(w, i int) bool {
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
			call.Received()
			_, err = call.Response()
			kind = outcome(err)
			call.Release()
		}
		if kind == "unexpected" {
			t.Error("unexpected error")
			return false
		}
		mu.Lock()
		counts[kind]++
		mu.Unlock()
		return true
	})
	time.Sleep(300 * time.Millisecond)
	_ = c.Close()
	close(stop)
	wg.Wait()
	t.Logf("outcomes: %v", counts)
	if counts["ok"] == 0 {
		t.Error("no request succeeded")
	}
}

// TestStressInterrupt runs many goroutines whose requests another goroutine interrupts at
// random while their owners wait (as the session's clock does with timed-out requests), against
// a server that echoes each request's unique text after a random delay. Every call must end with
// its own response or the interrupt's error (a late response must never reach the next request
// on its stream), and once the late responses are in, every stream id is free again.
func TestStressInterrupt(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		d := time.Duration(rand.IntN(2000)) * time.Microsecond
		echo := proto.AppendInt(nil, int32(proto.ResultSetKeyspace))
		echo, _ = proto.AppendString(echo, queryText(body))
		go func() {
			time.Sleep(d)
			_ = fc.send(h.Stream, proto.OpResult, echo)
		}()
	})
	c := dialFake(t, s, Config{MaxStreams: 64})
	errStress := errors.New("interrupted by the test")
	var regMu sync.Mutex
	waiting := map[*Call]bool{} // calls whose owner waits and has not released them
	stop := make(chan struct{})
	interrupterDone := make(chan struct{})
	go func() {
		defer close(interrupterDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
			regMu.Lock()
			for call := range waiting {
				if rand.IntN(4) == 0 {
					call.Interrupt(errStress)
				}
			}
			regMu.Unlock()
		}
	}()
	var mu sync.Mutex
	counts := map[string]int{}
	wg := cqltest.RunWorkers(16, stop, func(w, i int) bool {
		text := fmt.Sprintf("w%d-%d", w, i)
		call, err := c.Start(context.Background(), query(text))
		if err != nil {
			t.Errorf("Start: %v", err)
			return false
		}
		regMu.Lock()
		waiting[call] = true
		regMu.Unlock()
		<-call.Done()
		call.Received()
		regMu.Lock()
		delete(waiting, call)
		regMu.Unlock()
		resp, err := call.Response()
		kind := "interrupted"
		switch {
		case err == errStress:
		case err != nil:
			t.Errorf("request %s: %v", text, err)
			kind = "unexpected"
		default:
			kind = "ok"
			if ks, ok := resp.Msg.(*proto.SetKeyspaceResult); !ok || ks.Keyspace != text {
				t.Errorf("request %s got the response %+v", text, resp.Msg)
				kind = "unexpected"
			}
		}
		call.Release()
		mu.Lock()
		counts[kind]++
		mu.Unlock()
		return kind != "unexpected"
	})
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	<-interrupterDone
	t.Logf("outcomes: %v", counts)
	if counts["ok"] == 0 || counts["interrupted"] == 0 {
		t.Errorf("want both outcomes, got %v", counts)
	}
	// The late responses of interrupted calls free their streams.
	deadline := time.Now().Add(10 * time.Second)
	for c.InFlight() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := c.InFlight(); n != 0 {
		t.Errorf("InFlight = %d after every late response, want 0", n)
	}
	if c.Err() != nil {
		t.Errorf("connection closed: %v", c.Err())
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
