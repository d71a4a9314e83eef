package conn

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// answerOnce serves one connection: it reads the first request frame and writes answer(its
// header) back, then waits for the client to close.
func answerOnce(t *testing.T, answer func(req proto.Header) []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		head := make([]byte, proto.HeaderSize)
		if _, err := io.ReadFull(nc, head); err != nil {
			return
		}
		h, err := proto.ParseHeader(head, 0)
		if err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, nc, int64(h.Length)); err != nil {
			return
		}
		_, _ = nc.Write(answer(h))
		_, _ = io.Copy(io.Discard, nc)
	}()
	return ln.Addr().String()
}

// A server refusing the connection's version fails OPTIONS with a *VersionError: a protocol
// error in a lower version, one saying the version is unsupported, or a v1/v2 frame. Any other
// answer is no refusal of the version.
func TestDialVersionRefused(t *testing.T) {
	errOn := func(stream int16, v proto.Version, code proto.ErrorCode, msg string) func(proto.Header) []byte {
		return func(req proto.Header) []byte {
			if stream == 0 {
				stream = req.Stream
			}
			body := errorBody(code, msg)
			return append(proto.AppendHeader(nil, proto.Header{Version: v, Response: true, Stream: stream, Opcode: proto.OpError, Length: len(body)}), body...)
		}
	}
	protoErr := func(v proto.Version, msg string) func(proto.Header) []byte {
		return errOn(0, v, proto.ErrCodeProtocol, msg)
	}
	v2 := func(proto.Header) []byte {
		body := errorBody(proto.ErrCodeProtocol, "Invalid or unsupported protocol version: 4")
		head := binary.BigEndian.AppendUint32([]byte{0x82, 0, 0, byte(proto.OpError)}, uint32(len(body))) // a v2 header
		return append(head, body...)
	}
	for _, tc := range []struct {
		name    string
		answer  func(proto.Header) []byte
		refused bool
		server  proto.Version
	}{
		{"v3 error", protoErr(proto.Version3, "Invalid or unsupported protocol version (4); the lowest supported version is 3 and the greatest is 3"), true, 3},
		{"v4 error saying so", protoErr(proto.Version4, "Invalid or unsupported protocol version: 4"), true, 0},
		{"v2 frame", v2, true, 2},
		{"other protocol error", protoErr(proto.Version4, "Unexpected message OPTIONS"), false, 0},
		// An ERROR on a negative stream answers no request, but before anything else was sent
		// it is the answer to OPTIONS all the same.
		{"v4 error saying so on stream -1", errOn(-1, proto.Version4, proto.ErrCodeProtocol, "Invalid or unsupported protocol version: 4"), true, 0},
		{"v3 error on stream -1", errOn(-1, proto.Version3, proto.ErrCodeProtocol, "Invalid or unsupported protocol version (4)"), true, 3},
		{"other error on stream -1", errOn(-1, proto.Version4, proto.ErrCodeServer, "overloaded"), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := answerOnce(t, tc.answer)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, err := Dial(ctx, addr, Config{HeartbeatInterval: -1})
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded")
			}
			var de *DialError
			var ve *VersionError
			if !errors.As(err, &de) || de.Step != "OPTIONS" {
				t.Errorf("error %v, want a DialError at OPTIONS", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v: Dial waited for its timeout instead of taking the server's answer", err)
			}
			if got := errors.As(err, &ve); got != tc.refused {
				t.Fatalf("error %v: a *VersionError: %v, want %v", err, got, tc.refused)
			}
			if tc.refused && (ve.Version != proto.Version4 || ve.Server != tc.server) {
				t.Errorf("VersionError %+v, want Version 4, Server %d", ve, tc.server)
			}
		})
	}
}
