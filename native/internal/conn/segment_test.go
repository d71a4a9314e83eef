package conn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
	reflz4 "github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// v5Host returns a node that speaks protocol v5: the first of CQL_HOSTS (Cassandra 4 and later
// speak it), or a cqlsim node started with MaxProtocolVersion 5 (and opts).
func v5Host(t *testing.T, opts cqlsim.Options) string {
	t.Helper()
	if realServer() {
		return cqltest.Hosts(t)[0]
	}
	opts.MaxProtocolVersion = 5
	return cqlsim.StartT(t, opts).Addrs()[0]
}

// recordingDialer dials TCP and keeps a copy of every byte the client writes.
type recordingDialer struct {
	mu      sync.Mutex
	written bytes.Buffer
}

func (d *recordingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: nc, d: d}, nil
}

func (d *recordingDialer) bytes() []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	return bytes.Clone(d.written.Bytes())
}

type recordingConn struct {
	net.Conn
	d *recordingDialer
}

func (c *recordingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.d.mu.Lock()
	c.d.written.Write(p[:n])
	c.d.mu.Unlock()
	return n, err
}

// TestProtocolV5 runs a v5 connection, with and without lz4: the handshake, statements whose
// frames span several segments (a 3 MiB value, in both directions), many concurrent requests
// (several frames per segment), prepared statements with their result metadata id, and an
// OPTIONS after the handshake. The client's bytes after STARTUP must decode as segments with
// an independent codec.
func TestProtocolV5(t *testing.T) {
	for _, comp := range []string{"", "lz4"} {
		t.Run("compression="+comp, func(t *testing.T) {
			host := v5Host(t, cqlsim.Options{})
			ks := cqltest.KeyspaceName(t)
			cqltest.Exec(t, host, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			t.Cleanup(func() { cqltest.Exec(t, host, "DROP KEYSPACE IF EXISTS "+ks) })
			cqltest.Exec(t, host, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v blob)")

			rec := &recordingDialer{}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c, err := Dial(ctx, host, Config{Version: proto.Version5, Compression: comp, Keyspace: ks, Dialer: rec.DialContext})
			if err != nil {
				t.Fatalf("Dial v5: %v", err)
			}
			defer c.Close()
			if c.Version() != proto.Version5 {
				t.Fatalf("Version() = %d", c.Version())
			}

			big := make([]byte, 3<<20)
			for i := range big {
				big[i] = byte(i * 31 / 7)
			}
			resp, err := c.Do(ctx, &proto.Query{Query: "INSERT INTO kv (k, v) VALUES (1, ?)", Params: proto.QueryParams{Consistency: proto.One, Values: proto.Values{big}}})
			if err != nil {
				t.Fatalf("INSERT of 3 MiB: %v", err)
			}
			resp.Release()
			resp, err = c.Do(ctx, query("SELECT v FROM kv WHERE k = 1"))
			if err != nil {
				t.Fatalf("SELECT of 3 MiB: %v", err)
			}
			rows := resp.Msg.(*proto.RowsResult)
			if !rows.Next() || !bytes.Equal(rows.Cell(0), big) {
				t.Errorf("read back %d bytes, want the %d written", len(rows.Cell(0)), len(big))
			}
			resp.Release()

			ins := prepare(t, c, "INSERT INTO kv (k, v) VALUES (?, ?)")
			sel := prepare(t, c, "SELECT k, v FROM kv WHERE k = ?")
			if len(sel.ResultMetadataID) == 0 {
				t.Errorf("PREPARED in v5 carries no result metadata id")
			}
			const n = 300
			errs := make(chan error, n)
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					v := []byte(strings.Repeat(fmt.Sprint(i), 1+i%50))
					resp, err := c.Do(ctx, &proto.Execute{ID: ins.ID, ResultMetadataID: ins.ResultMetadataID, Params: proto.QueryParams{Consistency: proto.One, Values: proto.Values{int32Value(int32(100 + i)), v}}})
					if err != nil {
						errs <- fmt.Errorf("insert %d: %w", i, err)
						return
					}
					resp.Release()
					resp, err = c.Do(ctx, &proto.Execute{ID: sel.ID, ResultMetadataID: sel.ResultMetadataID, Params: proto.QueryParams{Consistency: proto.One, Values: proto.Values{int32Value(int32(100 + i))}}})
					if err != nil {
						errs <- fmt.Errorf("select %d: %w", i, err)
						return
					}
					defer resp.Release()
					rows, ok := resp.Msg.(*proto.RowsResult)
					if !ok || !rows.Next() || !bytes.Equal(rows.Cell(1), v) {
						errs <- fmt.Errorf("select %d: got %T, want the row written", i, resp.Msg)
					}
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}

			resp, err = c.Do(ctx, &proto.Options{})
			if err != nil {
				t.Fatalf("OPTIONS after the handshake: %v", err)
			}
			if _, ok := resp.Msg.(*proto.Supported); !ok {
				t.Errorf("OPTIONS after the handshake: %T", resp.Msg)
			}
			resp.Release()

			// Everything the client wrote after OPTIONS and STARTUP (legacy frames) must be
			// segments, in the format compression asks for.
			wire := rec.bytes()
			for i := 0; i < 2; i++ {
				h, err := proto.ParseHeader(wire, 0)
				if err != nil || h.Version != proto.Version5 {
					t.Fatalf("handshake frame %d: %+v, %v", i, h, err)
				}
				wire = wire[proto.HeaderSize+h.Length:]
			}
			codec := refSegmentCodec(comp)
			src := bytes.NewReader(wire)
			segments, compressed := 0, 0
			for src.Len() > 0 {
				s, err := codec.DecodeSegment(src)
				if err != nil {
					t.Fatalf("segment %d of the client's bytes: %v", segments, err)
				}
				segments++
				if s.Header.CompressedPayloadLength != 0 {
					compressed++
				}
			}
			if min := len(big)/proto.MaxSegmentPayload + 2; segments < min {
				t.Errorf("the client wrote %d segments, fewer than the %d that a 3 MiB value and other requests need", segments, min)
			}
			if comp == "lz4" && compressed == 0 {
				t.Errorf("no segment was compressed, though the 3 MiB value compresses")
			}
		})
	}
}

func refSegmentCodec(comp string) segment.Codec {
	if comp == "lz4" {
		return segment.NewCodecWithCompression(reflz4.Compressor{})
	}
	return segment.NewCodec()
}

// TestProtocolV5Authentication authenticates a v5 connection: AUTHENTICATE arrives in the
// legacy framing, AUTH_RESPONSE and what follows in segments (cqlsim only: the test node has
// no authentication).
func TestProtocolV5Authentication(t *testing.T) {
	if realServer() {
		t.Skip("the Cassandra test node runs without authentication")
	}
	addr := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5, Username: "u", Password: "p"}).Addrs()[0]
	ctx := context.Background()
	c, err := Dial(ctx, addr, Config{Version: proto.Version5, Authenticator: &proto.PasswordAuthenticator{Username: "u", Password: "p"}})
	if err != nil {
		t.Fatalf("Dial v5 with authentication: %v", err)
	}
	defer c.Close()
	resp, err := c.Do(ctx, query("SELECT release_version FROM system.local"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Release()
	_, err = Dial(ctx, addr, Config{Version: proto.Version5, Authenticator: &proto.PasswordAuthenticator{Username: "u", Password: "wrong"}})
	var se *proto.ErrorResponse
	if !errors.As(err, &se) || se.Code != proto.ErrCodeAuthentication {
		t.Fatalf("wrong password over v5: %v, want a bad credentials error", err)
	}
}

// TestProtocolV5Refusals: snappy cannot compress v5, and a node that does not speak v5 fails the
// dial with a *VersionError.
func TestProtocolV5Refusals(t *testing.T) {
	if _, err := Dial(context.Background(), "127.0.0.1:1", Config{Version: proto.Version5, Compression: "snappy"}); err == nil || !strings.Contains(err.Error(), "lz4") {
		t.Errorf("v5 with snappy: %v, want an error naming lz4", err)
	}
	addr := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 4}).Addrs()[0]
	_, err := Dial(context.Background(), addr, Config{Version: proto.Version5})
	var ve *VersionError
	if !errors.As(err, &ve) {
		t.Fatalf("v5 against a v4 node: %v, want a *VersionError", err)
	}
}
