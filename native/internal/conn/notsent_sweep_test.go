package conn

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

type recConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (r *recConn) Write(b []byte) (int, error) {
	n, err := r.Conn.Write(b)
	r.mu.Lock()
	r.buf = append(r.buf, b[:n]...)
	r.mu.Unlock()
	return n, err
}

// written returns the stream ids of the whole frames written.
func (r *recConn) written() map[int16]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[int16]bool{}
	b := r.buf
	for len(b) >= 4 {
		if len(b) < proto.HeaderSize {
			m[int16(binary.BigEndian.Uint16(b[2:4]))] = true
			break
		}
		n := int(binary.BigEndian.Uint32(b[5:9])) + proto.HeaderSize
		if n > len(b) {
			m[int16(binary.BigEndian.Uint16(b[2:4]))] = true // written in part: counts as sent
			break
		}
		m[int16(binary.BigEndian.Uint16(b[2:4]))] = true
		b = b[n:]
	}
	return m
}

// When the connection fails with many requests queued (the server goes away, or Close), a call
// completed with ErrNotSent was not written, and a call whose frame was never written says
// ErrNotSent, so that its caller may send it elsewhere whatever its idempotence. The sweep took
// the frames the writer had gathered, or was writing when the socket closed, for requests in
// flight.
func TestNotSentOnlyForUnwrittenFrames(t *testing.T) {
	for round := 0; round < 30; round++ {
		s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {}) // never answers
		var rc *recConn
		c, err := Dial(context.Background(), s.addr(), Config{HeartbeatInterval: -1, Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			rc = &recConn{Conn: nc}
			return rc, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		type res struct {
			stream int16
			err    error
		}
		out := make(chan res, 2000)
		var wg, responders sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 200; i++ {
					call, err := c.Start(context.Background(), query("x"))
					if err != nil {
						return
					}
					responders.Add(1)
					go func() {
						defer responders.Done()
						_, err := call.Response()
						out <- res{call.Stream(), err}
						call.Release()
					}()
				}
			}()
		}
		time.Sleep(time.Duration(round%5) * 100 * time.Microsecond)
		if round%2 == 1 {
			s.close() // the node goes away: the reader fails the connection
		} else {
			_ = c.Close()
		}
		wg.Wait()
		responders.Wait()
		close(out)
		_ = c.Close()
		w := rc.written()
		var notSentButWritten, sentButNotWritten int
		for r := range out {
			ns := errors.Is(r.err, ErrNotSent)
			if ns && w[r.stream] {
				notSentButWritten++
			}
			if !ns && !w[r.stream] {
				if sentButNotWritten == 0 {
					t.Logf("round %d: stream %d never written, error: %v", round, r.stream, r.err)
				}
				sentButNotWritten++
			}
		}
		if notSentButWritten > 0 || sentButNotWritten > 0 {
			t.Errorf("round %d: %d calls said ErrNotSent for a written frame, %d calls not ErrNotSent for an unwritten frame", round, notSentButWritten, sentButNotWritten)
		}
	}
}

// Start's errors all mean that nothing was sent: on a connection that has failed, whether the
// request finds it failed or waits for a free stream id when it fails, the error matches
// ErrNotSent (and ErrConnClosed), so that its caller may send the request elsewhere whatever
// its idempotence.
func TestStartOnFailedConnIsNotSent(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := startSlowFake(t, release)
	c := dialFake(t, s, Config{MaxStreams: 1})
	held, err := c.Start(context.Background(), query("slow")) // takes the only stream id
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() {
		call, err := c.Start(context.Background(), query("waits"))
		if err == nil {
			call.Release()
		}
		waiting <- err
	}()
	c.Close()
	_, _ = held.Response()
	held.Release()
	check := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, ErrNotSent) || !errors.Is(err, ErrConnClosed) {
			t.Errorf("%s: %v; want an error matching ErrNotSent and ErrConnClosed", name, err)
		}
	}
	check("Start waiting for a stream id", <-waiting)
	_, err = c.Start(context.Background(), query("after"))
	check("Start", err)
	_, err = c.TryStart(query("after"))
	check("TryStart", err)
	_, err = c.StartNotify(query("after"), discardAnswer{})
	check("StartNotify", err)
}
