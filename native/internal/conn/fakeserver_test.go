package conn

import (
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// fakeServer speaks just enough of the protocol for fault tests: it answers the handshake
// (OPTIONS before STARTUP, STARTUP, optional PLAIN authentication) and hands every later
// request to handle.
type fakeServer struct {
	t      testing.TB
	ln     net.Listener
	handle func(fc *fakeConn, h proto.Header, body []byte)
	// password, when set, makes STARTUP answer AUTHENTICATE and checks the PLAIN token.
	user, password string
	// tls, when set, makes the server speak TLS.
	tls *tls.Config
	// compressions, when set, replaces the COMPRESSION list of SUPPORTED; an empty list
	// leaves COMPRESSION out.
	compressions []string

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

type fakeConn struct {
	nc net.Conn
	mu sync.Mutex
}

// send writes one response frame.
func (fc *fakeConn) send(stream int16, op proto.Opcode, body []byte) error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	b := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: stream, Opcode: op, Length: len(body)})
	_, err := fc.nc.Write(append(b, body...))
	return err
}

// sendRaw writes raw bytes.
func (fc *fakeConn) sendRaw(b []byte) error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	_, err := fc.nc.Write(b)
	return err
}

func (fc *fakeConn) close() { _ = fc.nc.Close() }

func startFake(t testing.TB, handle func(fc *fakeConn, h proto.Header, body []byte), configure ...func(s *fakeServer)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{t: t, ln: ln, handle: handle}
	for _, f := range configure {
		f(s)
	}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func (s *fakeServer) close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *fakeServer) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		if s.tls != nil {
			nc = tls.Server(nc, s.tls)
		}
		s.mu.Lock()
		s.conns = append(s.conns, nc)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(&fakeConn{nc: nc})
	}
}

func (s *fakeServer) serve(fc *fakeConn) {
	defer s.wg.Done()
	defer fc.close()
	started := false
	var hb [proto.HeaderSize]byte
	for {
		if _, err := io.ReadFull(fc.nc, hb[:]); err != nil {
			return
		}
		h, err := proto.ParseHeader(hb[:], 0)
		if err != nil {
			return
		}
		body := make([]byte, h.Length)
		if _, err := io.ReadFull(fc.nc, body); err != nil {
			return
		}
		switch {
		case h.Opcode == proto.OpOptions && !started:
			algs := []string{"lz4", "snappy"}
			if s.compressions != nil {
				algs = s.compressions
			}
			b := proto.AppendShort(nil, uint16(1+min(len(algs), 1)))
			b, _ = proto.AppendString(b, "CQL_VERSION")
			b, _ = proto.AppendStringList(b, []string{"3.4.7"})
			if len(algs) > 0 {
				b, _ = proto.AppendString(b, "COMPRESSION")
				b, _ = proto.AppendStringList(b, algs)
			}
			_ = fc.send(h.Stream, proto.OpSupported, b)
		case h.Opcode == proto.OpStartup:
			started = true
			if s.password != "" {
				b, _ := proto.AppendString(nil, "org.apache.cassandra.auth.PasswordAuthenticator")
				_ = fc.send(h.Stream, proto.OpAuthenticate, b)
				continue
			}
			_ = fc.send(h.Stream, proto.OpReady, nil)
		case h.Opcode == proto.OpAuthResponse:
			n := int32(binary.BigEndian.Uint32(body))
			token := string(body[4 : 4+n])
			if token == "\x00"+s.user+"\x00"+s.password {
				_ = fc.send(h.Stream, proto.OpAuthSuccess, proto.AppendBytes(nil, nil))
			} else {
				_ = fc.send(h.Stream, proto.OpError, errorBody(proto.ErrCodeAuthentication, "Provided username and/or password are incorrect"))
			}
		default:
			s.handle(fc, h, body)
		}
	}
}

func errorBody(code proto.ErrorCode, msg string) []byte {
	b := proto.AppendInt(nil, int32(code))
	b, _ = proto.AppendString(b, msg)
	return b
}

func voidBody() []byte { return proto.AppendInt(nil, int32(proto.ResultVoid)) }

// queryText extracts the [long string] query of a QUERY body.
func queryText(body []byte) string {
	if len(body) < 4 {
		return ""
	}
	n := int(binary.BigEndian.Uint32(body))
	if n > len(body)-4 {
		return ""
	}
	return string(body[4 : 4+n])
}
