package conn

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

func dialFake(t *testing.T, s *fakeServer, cfg Config) *Conn {
	t.Helper()
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = -1
	}
	c, err := Dial(context.Background(), s.addr(), cfg)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func query(q string) *proto.Query {
	return &proto.Query{Query: q, Params: proto.QueryParams{Consistency: proto.One}}
}

// waitDone waits for the connection to close; a generous bound turns a hang into a failure.
func waitDone(t *testing.T, c *Conn) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("connection did not close")
	}
}

// An ERROR on a negative stream id answers no request: the connection fails with it at once,
// and the requests in flight fail as on a closed connection (ErrConnClosed, with the server's
// message), not as if the server had answered them with that error.
func TestUnsolicitedErrorClosesConnection(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		if queryText(body) == "shout" {
			_ = fc.send(-1, proto.OpError, errorBody(proto.ErrCodeServer, "going down"))
		}
		// Every other request waits.
	})
	c := dialFake(t, s, Config{})
	waiting, err := c.Start(context.Background(), query("wait"))
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Release()
	_, err = c.Do(context.Background(), query("shout"))
	for i, err := range []error{err, func() error { _, err := waiting.Response(); return err }()} {
		var er *proto.ErrorResponse
		var un *UnsolicitedError
		switch {
		case !errors.Is(err, ErrConnClosed):
			t.Errorf("call %d: err = %v, want ErrConnClosed", i, err)
		case errors.As(err, &er):
			t.Errorf("call %d: err = %v passes for the server's answer to the request", i, err)
		case !errors.As(err, &un) || un.Stream != -1 || un.Server.Message != "going down":
			t.Errorf("call %d: err = %v, want the server's message from stream -1", i, err)
		}
	}
	waitDone(t, c)
}

func TestServerDropsConnectionMidRequest(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		switch queryText(body) {
		case "drop":
			fc.close()
			return
		case "wait":
			return
		}
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
	c := dialFake(t, s, Config{})
	if _, err := c.Do(context.Background(), query("ok")); err != nil {
		t.Fatalf("first request: %v", err)
	}
	// Several requests in flight when the server goes away: all fail.
	var calls []*Call
	for i := 0; i < 10; i++ {
		call, err := c.Start(context.Background(), query("wait"))
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call)
	}
	_, err := c.Do(context.Background(), query("drop"))
	if !errors.Is(err, ErrConnClosed) {
		t.Fatalf("Do on a dropped connection: err = %v, want ErrConnClosed", err)
	}
	var ce *ClosedError
	if !errors.As(err, &ce) || ce.Addr != s.addr() {
		t.Errorf("error %v is not a *ClosedError for %s", err, s.addr())
	}
	for i, call := range calls {
		if _, err := call.Response(); !errors.Is(err, ErrConnClosed) {
			t.Errorf("in-flight call %d: err = %v, want ErrConnClosed", i, err)
		}
		call.Release()
	}
	waitDone(t, c)
	if _, err := c.Do(context.Background(), query("after")); !errors.Is(err, ErrConnClosed) {
		t.Errorf("Do after the drop: err = %v, want ErrConnClosed", err)
	}
}

func TestCloseFailsInFlightRequests(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {}) // never answers
	c := dialFake(t, s, Config{})
	const n = 50
	var wg sync.WaitGroup
	errs := make([]error, n)
	started := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			call, err := c.Start(context.Background(), query("never answered"))
			started <- struct{}{}
			if err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = call.Response()
			call.Release()
		}(i)
	}
	for i := 0; i < n; i++ {
		<-started
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, ErrConnClosed) || !errors.Is(err, ErrClosedByClient) {
			t.Errorf("request %d: err = %v, want ErrConnClosed caused by ErrClosedByClient", i, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// startSlowFake starts a server that answers every request with a void result, except those
// whose text is "slow": it answers them once release is closed.
func startSlowFake(t *testing.T, release <-chan struct{}) *fakeServer {
	return startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		if queryText(body) == "slow" {
			go func() {
				<-release
				_ = fc.send(h.Stream, proto.OpResult, voidBody())
			}()
			return
		}
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	})
}

// doVoidAsync runs Do in a goroutine; its error (or one for a result that is not void) comes
// on the returned channel.
func doVoidAsync(c *Conn, q string) <-chan error {
	done := make(chan error, 1)
	go func() {
		resp, err := c.Do(context.Background(), query(q))
		if err == nil {
			if _, ok := resp.Msg.(*proto.VoidResult); !ok {
				err = errors.New("not a void result")
			}
			resp.Release()
		}
		done <- err
	}()
	return done
}

func TestCancelledRequestReclaimsStreamOnLateResponse(t *testing.T) {
	release := make(chan struct{})
	s := startSlowFake(t, release)
	c := dialFake(t, s, Config{MaxStreams: 1})

	ctx, cancel := context.WithCancel(context.Background())
	call, err := c.Start(ctx, query("slow"))
	if err != nil {
		t.Fatal(err)
	}
	call.Release() // abandon the started call
	cancel()
	// Do with an already-cancelled context while the only stream is held by the abandoned call.
	if _, err := c.Do(ctx, query("fast")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do with cancelled ctx: err = %v, want context.Canceled", err)
	}
	if got := c.InFlight(); got != 1 {
		t.Fatalf("InFlight = %d while the slow response is pending, want 1", got)
	}

	// A request waits for the stream; the late response frees it.
	done := doVoidAsync(c, "fast")
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("request waiting for a stream: %v", err)
	}
	if got := c.InFlight(); got != 0 {
		t.Errorf("InFlight = %d after all responses, want 0", got)
	}
	if c.Err() != nil {
		t.Errorf("connection closed: %v", c.Err())
	}
}

// An interrupted call completes at once with the given error, from another goroutine, while
// its stream stays reserved until the late response arrives; that response is dropped and
// the stream serves the next request. Interrupting a completed call does nothing.
func TestInterruptCompletesCallAndReclaimsStreamOnLateResponse(t *testing.T) {
	release := make(chan struct{})
	s := startSlowFake(t, release)
	c := dialFake(t, s, Config{MaxStreams: 1})
	call, err := c.Start(context.Background(), query("slow"))
	if err != nil {
		t.Fatal(err)
	}
	errStop := errors.New("stopped by the test")
	interrupted := make(chan bool, 1)
	time.AfterFunc(20*time.Millisecond, func() { interrupted <- call.Interrupt(errStop) })
	<-call.Done()
	call.Received()
	if !<-interrupted {
		t.Fatal("Interrupt of a waiting call returned false")
	}
	if _, err := call.Response(); err != errStop {
		t.Fatalf("Response of the interrupted call: err = %v, want the interrupt's error", err)
	}
	if call.Interrupt(errors.New("again")) {
		t.Error("a second Interrupt returned true")
	}
	call.Release()
	if got := c.InFlight(); got != 1 {
		t.Fatalf("InFlight = %d while the interrupted call's response is pending, want 1", got)
	}

	// The only stream is still reserved: the next request waits for the late response.
	done := doVoidAsync(c, "fast")
	select {
	case err := <-done:
		t.Fatalf("a request got the reserved stream before the late response: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("request after the late response: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the late response did not free the interrupted call's stream")
	}

	// A call that completed normally is not interrupted.
	call, err = c.Start(context.Background(), query("fast"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := call.Response()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := resp.Msg.(*proto.VoidResult); !ok {
		t.Errorf("completed call: %T, want a void result", resp.Msg)
	}
	if call.Interrupt(errStop) {
		t.Error("Interrupt of a completed call returned true")
	}
	call.Release()
	if got := c.InFlight(); got != 0 {
		t.Errorf("InFlight = %d after all responses, want 0", got)
	}
	if c.Err() != nil {
		t.Errorf("connection closed: %v", c.Err())
	}
}

func TestDoReturnsOnContextDeadline(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {})
	c := dialFake(t, s, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := c.Do(ctx, query("never answered"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if c.InFlight() != 1 {
		t.Errorf("InFlight = %d, want 1 (the stream stays reserved)", c.InFlight())
	}
}

func TestMissedHeartbeatClosesConnection(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {}) // ignores heartbeats
	c := dialFake(t, s, Config{HeartbeatInterval: 20 * time.Millisecond})
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, ErrHeartbeat) || !errors.Is(err, ErrConnClosed) {
		t.Fatalf("Err() = %v, want ErrConnClosed caused by ErrHeartbeat", err)
	}
}

func TestOversizedFrameClosesConnection(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		// A header claiming 1 GiB; the body never comes.
		b := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: h.Stream, Opcode: proto.OpResult, Length: 1 << 30})
		_ = fc.sendRaw(b)
	})
	c := dialFake(t, s, Config{MaxFrameSize: 1 << 20})
	_, err := c.Do(context.Background(), query("x"))
	if !errors.Is(err, ErrConnClosed) || !errors.Is(err, proto.ErrFrameTooLarge) {
		t.Fatalf("err = %v, want ErrConnClosed caused by proto.ErrFrameTooLarge", err)
	}
}

func TestTruncatedFrameClosesConnection(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		b := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: h.Stream, Opcode: proto.OpResult, Length: 100})
		_ = fc.sendRaw(append(b, 0, 0, 0, 1)) // 4 of 100 bytes, then EOF
		fc.close()
	})
	c := dialFake(t, s, Config{})
	_, err := c.Do(context.Background(), query("x"))
	if !errors.Is(err, ErrConnClosed) {
		t.Fatalf("err = %v, want ErrConnClosed", err)
	}
}

func TestMalformedResponseFailsRequestAndClosesConnection(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		// A rows result whose metadata claims 1e9 columns.
		b := proto.AppendInt(nil, int32(proto.ResultRows))
		b = proto.AppendInt(b, int32(proto.MetaNoMetadata))
		b = proto.AppendInt(b, 1_000_000_000)
		b = proto.AppendInt(b, 1_000_000_000)
		_ = fc.send(h.Stream, proto.OpResult, b)
	})
	c := dialFake(t, s, Config{})
	_, err := c.Do(context.Background(), query("x"))
	if !errors.Is(err, proto.ErrMalformed) {
		t.Fatalf("err = %v, want proto.ErrMalformed", err)
	}
	waitDone(t, c)
}

func TestPasswordAuthentication(t *testing.T) {
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		_ = fc.send(h.Stream, proto.OpResult, voidBody())
	}, func(s *fakeServer) { s.user, s.password = "cassandra", "s3cret" })

	c := dialFake(t, s, Config{Authenticator: &proto.PasswordAuthenticator{Username: "cassandra", Password: "s3cret"}})
	if _, err := c.Do(context.Background(), query("x")); err != nil {
		t.Fatalf("request after authentication: %v", err)
	}

	_, err := Dial(context.Background(), s.addr(), Config{HeartbeatInterval: -1, Authenticator: &proto.PasswordAuthenticator{Username: "cassandra", Password: "wrong"}})
	var de *DialError
	var er *proto.ErrorResponse
	if !errors.As(err, &de) || de.Step != "authentication" || !errors.As(err, &er) || er.Code != proto.ErrCodeAuthentication {
		t.Fatalf("Dial with a wrong password: err = %v, want a DialError at step authentication with code 0x0100", err)
	}

	_, err = Dial(context.Background(), s.addr(), Config{HeartbeatInterval: -1})
	if !errors.As(err, &de) || de.Step != "authentication" {
		t.Fatalf("Dial without an authenticator: err = %v, want a DialError at step authentication", err)
	}

	_, err = Dial(context.Background(), s.addr(), Config{HeartbeatInterval: -1, Authenticator: &proto.PasswordAuthenticator{
		Username: "cassandra", Password: "s3cret", AllowedAuthenticators: []string{"com.example.Other"}}})
	if !errors.As(err, &de) || de.Step != "authentication" {
		t.Fatalf("Dial with a disallowed authenticator class: err = %v", err)
	}
}

func TestDialConnectError(t *testing.T) {
	s := startFake(t, nil)
	addr := s.addr()
	s.close()
	_, err := Dial(context.Background(), addr, Config{})
	var de *DialError
	if !errors.As(err, &de) || de.Step != "connect" || de.Addr != addr {
		t.Fatalf("err = %v, want a DialError at step connect for %s", err, addr)
	}
}

func TestDialRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{{MaxStreams: 40000}, {MaxStreams: -1}, {Compression: "zstd"}} {
		if _, err := Dial(context.Background(), "127.0.0.1:1", cfg); err == nil {
			t.Errorf("Dial with %+v succeeded", cfg)
		}
	}
}
