package cqltest

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Listen returns a TCP listener on a free port of 127.0.0.1; it fails tb when it cannot.
func Listen(tb testing.TB) net.Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("cqltest: listen: %v", err)
	}
	return ln
}

// Serve accepts connections on ln and runs serve on each, in a goroutine of its own, closing
// the connection when serve returns. At cleanup it closes ln and every accepted connection and
// waits for those goroutines. It returns ln's address.
func Serve(tb testing.TB, ln net.Listener, serve func(c net.Conn)) string {
	tb.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// Relay dials target and copies the bytes of c to it and its bytes back to c, until either
// side closes; it returns at once when target cannot be dialed. As a serve function of Serve
// it makes a proxy (over a TLS listener, one that terminates TLS).
func Relay(c net.Conn, target string) {
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	relay(c, up)
}

// relay copies the bytes of c to up and those of up back to c until either side closes, and
// closes up.
func relay(c, up net.Conn) {
	defer up.Close()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
}

// Frame is one frame of the CQL native protocol (v3/v4 layout) as a fake server reads it.
type Frame struct {
	Stream int16
	Opcode byte // the message's opcode: 0x01 STARTUP, 0x05 OPTIONS, 0x0F AUTH_RESPONSE, ...
	Body   []byte
}

// ReadFrame reads one frame (its 9-byte header and its body) from r.
func ReadFrame(r io.Reader) (Frame, error) {
	var h [9]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Frame{}, err
	}
	n := int32(binary.BigEndian.Uint32(h[5:]))
	if n < 0 || n > 256<<20 {
		return Frame{}, fmt.Errorf("cqltest: frame body of %d bytes", n)
	}
	f := Frame{Stream: int16(binary.BigEndian.Uint16(h[2:])), Opcode: h[4], Body: make([]byte, n)}
	_, err := io.ReadFull(r, f.Body)
	return f, err
}

// WriteFrame writes a protocol v4 response frame with opcode and body, on stream, to w.
func WriteFrame(w io.Writer, stream int16, opcode byte, body []byte) error {
	b := []byte{0x84, 0, 0, 0, opcode, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(b[2:], uint16(stream))
	binary.BigEndian.PutUint32(b[5:], uint32(len(body)))
	_, err := w.Write(append(b, body...))
	return err
}

// SupportedBody is the body of the SUPPORTED answer of a fake server: CQL_VERSION 3.4.7.
func SupportedBody() []byte {
	b := appendString([]byte{0, 1}, "CQL_VERSION") // a multimap of one key
	b = append(b, 0, 1)                            // a list of one string
	return appendString(b, "3.4.7")
}

// appendString appends the protocol's [string] encoding of s to b.
func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// AuthFront starts a fake node that runs the handshake itself: it answers OPTIONS with
// SUPPORTED and STARTUP with AUTHENTICATE naming the authenticator class, then lets auth run
// the SASL exchange on the connection (auth returns true when the client is authenticated).
// It then opens a connection to target, runs OPTIONS and STARTUP on it, and relays the rest of
// the traffic between the two. It returns the fake node's address.
func AuthFront(tb testing.TB, target, class string, auth func(c net.Conn) bool) string {
	tb.Helper()
	return Serve(tb, Listen(tb), func(c net.Conn) {
		for {
			f, err := ReadFrame(c)
			if err != nil {
				return
			}
			if f.Opcode == byte(primitive.OpCodeOptions) {
				_ = WriteFrame(c, f.Stream, byte(primitive.OpCodeSupported), SupportedBody())
				continue
			}
			if f.Opcode != byte(primitive.OpCodeStartup) {
				return
			}
			if WriteFrame(c, f.Stream, byte(primitive.OpCodeAuthenticate), appendString(nil, class)) != nil || !auth(c) {
				return
			}
			break
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			return
		}
		for _, m := range []message.Message{&message.Options{}, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}} {
			if codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 0, m), up) != nil {
				up.Close()
				return
			}
			if _, err := ReadFrame(up); err != nil {
				up.Close()
				return
			}
		}
		relay(c, up)
	})
}

// Proxy forwards TCP connections to a server, one upstream connection per client connection.
// It can hold the server's answers back (requests then hang) and cut every connection, and it
// counts the bytes it forwarded to the server.
type Proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	hold   bool
	wg     sync.WaitGroup
	sent   atomic.Int64
}

// NewProxy starts a Proxy to target on a free port of 127.0.0.1; cleanup closes it (Close).
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	p := &Proxy{ln: Listen(tb), target: target}
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.Close)
	return p
}

// Addr returns the proxy's address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetHold stops (true) or resumes (false) forwarding the server's answers.
func (p *Proxy) SetHold(h bool) { p.mu.Lock(); p.hold = h; p.mu.Unlock() }

// Sent returns the number of bytes forwarded to the server so far.
func (p *Proxy) Sent() int64 { return p.sent.Load() }

// Cut closes every connection the proxy holds, both sides; new connections are still accepted.
func (p *Proxy) Cut() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); _, _ = io.Copy(countingWriter{up, &p.sent}, c); up.Close() }()
		go func() { defer p.wg.Done(); p.copyDown(c, up); c.Close() }()
	}
}

// copyDown forwards the server's bytes to the client, pausing while hold is set.
func (p *Proxy) copyDown(c, up net.Conn) {
	buf := make([]byte, 64<<10)
	for {
		n, err := up.Read(buf)
		if err != nil {
			return
		}
		for p.held() {
			time.Sleep(2 * time.Millisecond)
		}
		if _, err := c.Write(buf[:n]); err != nil {
			return
		}
	}
}

func (p *Proxy) held() bool { p.mu.Lock(); defer p.mu.Unlock(); return p.hold }

// Close stops the proxy: it stops holding, closes the listener and every connection, and waits
// for the proxy's goroutines. Calling it again does nothing more.
func (p *Proxy) Close() {
	p.ln.Close()
	p.SetHold(false)
	p.Cut()
	p.wg.Wait()
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (cw countingWriter) Write(b []byte) (int, error) {
	n, err := cw.w.Write(b)
	cw.n.Add(int64(n))
	return n, err
}
