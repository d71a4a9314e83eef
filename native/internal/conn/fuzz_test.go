package conn

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// FuzzConnReader feeds arbitrary server bytes to a connection with one request in flight on
// stream 0. Whatever arrives, the request must complete (with a response or an error), the
// connection must close cleanly once the server goes away, and nothing may panic.
func FuzzConnReader(f *testing.F) {
	frame := func(h proto.Header, body []byte) []byte {
		h.Length = len(body)
		return append(proto.AppendHeader(nil, h), body...)
	}
	resp := proto.Header{Version: proto.Version4, Response: true, Opcode: proto.OpResult}
	rows := proto.AppendInt(nil, int32(proto.ResultRows))
	rows = proto.AppendInt(rows, int32(proto.MetaNoMetadata))
	rows = proto.AppendInt(rows, 1)
	rows = proto.AppendInt(rows, 1)
	rows = proto.AppendBytes(rows, []byte("v"))
	compressed, _ := proto.LZ4{}.AppendCompressed(nil, rows)
	event := proto.Header{Version: proto.Version4, Response: true, Stream: -1, Opcode: proto.OpEvent}
	ev, _ := proto.AppendString(nil, proto.EventStatusChange)
	ev, _ = proto.AppendString(ev, "UP")
	ev = append(ev, 4, 127, 0, 0, 1)
	ev = proto.AppendInt(ev, 9042)
	f.Add(frame(resp, proto.AppendInt(nil, int32(proto.ResultVoid))))
	f.Add(frame(resp, rows))
	f.Add(frame(proto.Header{Version: proto.Version4, Response: true, Flags: proto.FlagCompression, Opcode: proto.OpResult}, compressed))
	f.Add(append(frame(event, ev), frame(resp, rows)...))
	f.Add(frame(resp, rows)[:20])
	f.Add(frame(proto.Header{Version: proto.Version4, Response: true, Stream: 1, Opcode: proto.OpReady}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		cfg, err := Config{MaxStreams: 2, MaxFrameSize: 1 << 16, Compression: "lz4", OnEvent: func(proto.Event) {}}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		c, err := newConn(client, "pipe", cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.start()
		go func() { _, _ = io.Copy(io.Discard, server) }()
		call, err := c.Start(context.Background(), &proto.Options{})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			_, _ = server.Write(data)
			_ = server.Close()
		}()
		r, err := call.Response()
		if err == nil {
			if rr, ok := r.Msg.(*proto.RowsResult); ok {
				for rr.Next() {
					_ = rr.Row()
				}
			}
		} else {
			var er *proto.ErrorResponse
			if !errors.Is(err, ErrConnClosed) && !errors.Is(err, proto.ErrMalformed) && !errors.Is(err, proto.ErrFrameTooLarge) && !errors.As(err, &er) {
				t.Fatalf("unexpected error type: %v", err)
			}
		}
		call.Release()
		_ = c.Close()
	})
}
