package conn

import (
	"context"
	"crypto/tls"
	"errors"
	"testing"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

func TestTLS(t *testing.T) {
	cert, pool := cqltest.ServerCert(t)
	s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
		b := proto.AppendInt(nil, int32(proto.ResultSetKeyspace))
		b, _ = proto.AppendString(b, "over_tls")
		_ = fc.send(h.Stream, proto.OpResult, b)
	}, func(s *fakeServer) { s.tls = &tls.Config{Certificates: []tls.Certificate{cert}} })

	c := dialFake(t, s, Config{TLS: &tls.Config{RootCAs: pool}, Compression: "lz4"})
	resp, err := c.Do(context.Background(), query("USE over_tls"))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := resp.Msg.(*proto.SetKeyspaceResult); !ok || m.Keyspace != "over_tls" {
		t.Errorf("Msg = %#v", resp.Msg)
	}
	resp.Release()

	// An untrusted certificate fails at the TLS step.
	_, err = Dial(context.Background(), s.addr(), Config{HeartbeatInterval: -1, TLS: &tls.Config{}})
	var de *DialError
	if !errors.As(err, &de) || de.Step != "tls handshake" {
		t.Fatalf("Dial with an untrusted certificate: err = %v, want a DialError at step tls handshake", err)
	}
}
