package conn

import (
	"context"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// supportedBody is an empty SUPPORTED body, the answer to a heartbeat.
func supportedBody() []byte { return proto.AppendShort(nil, 0) }

// A heartbeat answered with a server ERROR (an overloaded node, say) proves the server alive:
// the connection stays open and the next heartbeat goes out.
func TestHeartbeatAnsweredWithAnErrorKeepsTheConnection(t *testing.T) {
	second := make(chan struct{})
	heartbeats := 0 // the handler runs in the connection's serving goroutine only
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		if h.Opcode != proto.OpOptions {
			_ = fc.send(h.Stream, proto.OpResult, voidBody())
			return
		}
		if heartbeats++; heartbeats == 2 {
			close(second)
		}
		_ = fc.send(h.Stream, proto.OpError, errorBody(proto.ErrCodeOverloaded, "too busy for OPTIONS"))
	})
	// A generous timeout: only the error answer may close the connection here, not a slow
	// machine delaying the answer past a 10 ms timeout.
	c := dialFake(t, s, Config{HeartbeatInterval: 10 * time.Millisecond, HeartbeatTimeout: 30 * time.Second})
	select {
	case <-second: // the first heartbeat's error did not close the connection
	case <-c.Done():
		t.Fatalf("connection closed after a heartbeat answered with an error: %v", c.Err())
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection closed: %v", err)
	}
}

// A response too large for one read that arrives slowly is progress: the heartbeat must not
// take the connection for dead while its bytes keep coming (it counted only whole frames, so
// a response taking longer than HeartbeatInterval+HeartbeatTimeout to arrive failed its own
// connection, every time it was retried).
func TestHeartbeatDoesNotKillASlowlyArrivingLargeResponse(t *testing.T) {
	const chunks, chunkSize = 150, 100
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		if h.Opcode == proto.OpOptions {
			_ = fc.send(h.Stream, proto.OpSupported, supportedBody())
			return
		}
		// A rows result of one blob cell of chunks*chunkSize bytes, written a chunk at a time.
		b := proto.AppendInt(nil, int32(proto.ResultRows))
		b = proto.AppendInt(b, int32(proto.MetaNoMetadata))
		b = proto.AppendInt(b, 1) // columns
		b = proto.AppendInt(b, 1) // rows
		b = proto.AppendInt(b, chunks*chunkSize)
		hdr := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: h.Stream, Opcode: proto.OpResult, Length: len(b) + chunks*chunkSize})
		if fc.sendRaw(append(hdr, b...)) != nil {
			return
		}
		chunk := make([]byte, chunkSize)
		for i := 0; i < chunks; i++ {
			time.Sleep(2 * time.Millisecond)
			if fc.sendRaw(chunk) != nil {
				return
			}
		}
	})
	// The body takes at least chunks*2ms = 300ms to arrive, several heartbeat periods.
	c := dialFake(t, s, Config{HeartbeatInterval: 50 * time.Millisecond, HeartbeatTimeout: 50 * time.Millisecond})
	resp, err := c.Do(context.Background(), query("big"))
	if err != nil {
		t.Fatalf("slowly arriving response: %v", err)
	}
	defer resp.Release()
	rows, ok := resp.Msg.(*proto.RowsResult)
	if !ok || !rows.Next() || len(rows.Cell(0)) != chunks*chunkSize {
		t.Fatalf("got %T, want one row of %d bytes", resp.Msg, chunks*chunkSize)
	}
}
