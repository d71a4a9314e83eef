package conn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// A server answering the handshake's OPTIONS with something other than SUPPORTED fails the
// dial with an error naming what it sent: the message used to be read from the response after
// it went back to the pool, and so named ERROR (the zero opcode) whatever the server sent.
func TestDialNamesTheUnexpectedAnswerToOptions(t *testing.T) {
	for _, op := range []proto.Opcode{proto.OpReady, proto.OpAuthSuccess} {
		t.Run(op.String(), func(t *testing.T) {
			addr := answerOnce(t, func(req proto.Header) []byte {
				body := []byte(nil)
				if op == proto.OpAuthSuccess {
					body = proto.AppendBytes(nil, nil)
				}
				return append(proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Stream: req.Stream, Opcode: op, Length: len(body)}), body...)
			})
			_, err := Dial(context.Background(), addr, Config{HeartbeatInterval: -1})
			var de *DialError
			if !errors.As(err, &de) || de.Step != "OPTIONS" {
				t.Fatalf("Dial: %v, want a *DialError at step OPTIONS", err)
			}
			if want := "got " + op.String(); !strings.Contains(err.Error(), want) {
				t.Errorf("Dial: %v, want it to say %q", err, want)
			}
		})
	}
}
