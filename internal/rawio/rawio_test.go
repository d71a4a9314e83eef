//go:build linux

package rawio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func TestNewOnlyForTCP(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if New(a) != nil {
		t.Fatal("New(net.Pipe) is not nil")
	}
	c, _ := tcpPair(t)
	if New(c) == nil {
		t.Fatal("New(*net.TCPConn) is nil")
	}
}

// TestLargeTransfer writes 16 MiB through Write while the peer reads slowly, so the send
// buffer fills and Write must wait for room and resume mid-buffer; the peer reads it back
// through Read in small pieces. Every byte must arrive in order.
func TestLargeTransfer(t *testing.T) {
	c, s := tcpPair(t)
	w, r := New(c), New(s)
	data := make([]byte, 16<<20)
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	errc := make(chan error, 1)
	go func() {
		n, err := w.Write(data)
		if err == nil && n != len(data) {
			err = io.ErrShortWrite
		}
		errc <- err
	}()
	got := make([]byte, 0, len(data))
	buf := make([]byte, 1000)
	for len(got) < len(data) {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("Read after %d bytes: %v", len(got), err)
		}
		got = append(got, buf[:n]...)
		if len(got)%(1<<20) < 1000 {
			time.Sleep(time.Millisecond) // let the writer's send buffer fill
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the bytes read differ from the bytes written")
	}
}

func TestReadEOF(t *testing.T) {
	c, s := tcpPair(t)
	if _, err := s.Write([]byte("bye")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r := New(c)
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "bye" {
		t.Fatalf("ReadAll = %q, %v; want \"bye\" then EOF", got, err)
	}
	if n, err := r.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Fatalf("Read after EOF = %d, %v; want 0, io.EOF", n, err)
	}
}

func TestReadDeadline(t *testing.T) {
	c, _ := tcpPair(t)
	if err := c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	n, err := New(c).Read(make([]byte, 10))
	if n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline = %d, %v; want os.ErrDeadlineExceeded", n, err)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	c, _ := tcpPair(t)
	r := New(c)
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // let Read wait in the poller
	c.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read on a closed connection: %v; want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked 10s after Close")
	}
}

// TestWriteToResetConnection writes to a connection the peer closed with unread data (which
// makes the peer's kernel reset it): Write must fail with a *net.OpError naming the operation.
func TestWriteToResetConnection(t *testing.T) {
	c, s := tcpPair(t)
	if _, err := c.Write([]byte("unread")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	s.Close() // unread data: the peer answers with RST
	w := New(c)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = w.Write(bytes.Repeat([]byte("x"), 4096))
		time.Sleep(time.Millisecond)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "write" {
		t.Fatalf("Write to a reset connection: %v; want a *net.OpError for write", err)
	}
}

// PeerClosed sees the peer's close without consuming anything: not while the connection is
// open, nor while data is still waiting (which stays readable), then once the peer closed and
// the data was read; and on a connection closed on this side.
func TestPeerClosed(t *testing.T) {
	c, s := tcpPair(t)
	r := New(c)
	if r.PeerClosed() {
		t.Fatal("open connection reported closed")
	}
	if _, err := s.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The data and the FIN arrive over loopback; until the data is read, it is what a peek sees.
	time.Sleep(20 * time.Millisecond)
	if r.PeerClosed() {
		t.Fatal("closed reported while data is waiting")
	}
	buf := make([]byte, 2)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "hi" {
		t.Fatalf("the peek consumed data: read %q, %v", buf, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !r.PeerClosed() {
		if time.Now().After(deadline) {
			t.Fatal("the peer's close was not seen within 5s")
		}
		time.Sleep(time.Millisecond)
	}
	c.Close()
	if !r.PeerClosed() {
		t.Fatal("a connection closed on this side reported open")
	}
}
