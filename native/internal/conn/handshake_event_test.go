package conn

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// EVENT frames arriving while the handshake runs (a server that sends them before any
// REGISTER) are dropped by the reader goroutine: it decoded them with c.dopts while the
// handshake goroutine wrote c.dopts (RateLimitCode after SUPPORTED, Compressor before STARTUP,
// MetadataID), a data race the race detector reports.
func TestEventDuringHandshakeNoRace(t *testing.T) {
	for range 5 {
		eventDuringHandshake(t)
	}
}

func eventDuringHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		var mu sync.Mutex
		send := func(stream int16, op proto.Opcode, b []byte) {
			mu.Lock()
			defer mu.Unlock()
			_, _ = nc.Write(append(proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: stream, Opcode: op, Length: len(b)}), b...))
		}
		ev, _ := proto.AppendString(nil, proto.EventStatusChange)
		ev, _ = proto.AppendString(ev, "UP")
		ev = append(ev, 4, 127, 0, 0, 1)
		ev = proto.AppendInt(ev, 9042)
		var hb [proto.HeaderSize]byte
		for {
			if _, err := io.ReadFull(nc, hb[:]); err != nil {
				return
			}
			h, _ := proto.ParseHeader(hb[:], 0)
			if _, err := io.CopyN(io.Discard, nc, int64(h.Length)); err != nil {
				return
			}
			switch h.Opcode {
			case proto.OpOptions:
				b := proto.AppendShort(nil, 1)
				b, _ = proto.AppendString(b, "COMPRESSION")
				b, _ = proto.AppendStringList(b, []string{"lz4"})
				send(h.Stream, proto.OpSupported, b)
				go func() { // events all through the handshake
					for i := 0; i < 200; i++ {
						send(-1, proto.OpEvent, ev)
						time.Sleep(50 * time.Microsecond)
					}
				}()
			case proto.OpStartup:
				time.Sleep(20 * time.Millisecond)
				send(h.Stream, proto.OpReady, nil)
			}
		}
	}()
	c, err := Dial(context.Background(), ln.Addr().String(), Config{Compression: "lz4", HeartbeatInterval: -1, OnEvent: func(proto.Event) {}})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	ln.Close()
	<-served
}
