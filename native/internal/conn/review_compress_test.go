package conn

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Compression end to end, against cqlsim by default and against the nodes of CQL_HOSTS: every
// response on a connection that negotiated compression comes compressed (Cassandra compresses
// all of them, and cqlsim must too, or the client's decompression is never exercised by the
// embedded server), whatever its size and whether or not compression pays off.

// randomBytes returns n bytes that do not compress.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestReviewCompressEveryResponseIsCompressed(t *testing.T) {
	for _, alg := range []string{"lz4", "snappy"} {
		t.Run(alg, func(t *testing.T) {
			c := dialT(t, Config{Compression: alg})
			ctx := context.Background()
			for _, req := range []proto.Request{
				query("SELECT key FROM system.local WHERE key = 'local'"),
				query("SELECT key FROM system.local WHERE key = 'none'"), // no rows
				query("USE system"),
				&proto.Options{}, // empty request body, sent uncompressed
			} {
				resp, err := c.Do(ctx, req)
				if err != nil {
					t.Fatalf("%s: %v", req.Opcode(), err)
				}
				if resp.Header.Flags&proto.FlagCompression == 0 {
					t.Errorf("%s answered with an uncompressed %s on a %s connection", req.Opcode(), resp.Header.Opcode, alg)
				}
				resp.Release()
			}
			// A server error is compressed too, and comes back as the same error.
			_, err := c.Do(ctx, query("SELEC nonsense"))
			var se *proto.ErrorResponse
			if !errors.As(err, &se) || se.Code != proto.ErrCodeSyntax {
				t.Fatalf("syntax error over %s: got %v", alg, err)
			}
		})
	}
}

// Several MB in one unpaged result, half of it incompressible (so that the compressed body is
// larger than the uncompressed one), read back intact; then many small requests at once.
func TestReviewCompressLargeAndConcurrent(t *testing.T) {
	for _, alg := range []string{"lz4", "snappy"} {
		t.Run(alg, func(t *testing.T) {
			ks, hosts := keyspace(t)
			exec(t, hosts[0], "CREATE TABLE "+ks+".blobs (k int, c int, v blob, PRIMARY KEY (k, c))")
			c := dialT(t, Config{Compression: alg, Keyspace: ks})
			ctx := context.Background()
			const rows, size = 12, 512 << 10 // 6 MiB
			want := make([][]byte, rows)
			for i := range want {
				if i%2 == 0 {
					want[i] = randomBytes(uint64(i), size)
				} else {
					want[i] = bytes.Repeat([]byte{byte(i)}, size)
				}
				resp, err := c.Do(ctx, &proto.Query{Query: "INSERT INTO blobs (k, c, v) VALUES (1, ?, ?)", Params: proto.QueryParams{
					Consistency: proto.One, Values: proto.Values{int32Value(int32(i)), want[i]},
				}})
				if err != nil {
					t.Fatalf("insert %d: %v", i, err)
				}
				resp.Release()
			}
			resp, err := c.Do(ctx, &proto.Query{Query: "SELECT c, v FROM blobs WHERE k = 1", Params: proto.QueryParams{Consistency: proto.One, PageSize: -1}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Header.Flags&proto.FlagCompression == 0 {
				t.Errorf("large result not compressed")
			}
			rs := resp.Msg.(*proto.RowsResult)
			n := 0
			for rs.Next() {
				if !bytes.Equal(rs.Cell(1), want[n]) {
					t.Errorf("row %d: read back %d bytes that differ from the %d written", n, len(rs.Cell(1)), len(want[n]))
				}
				n++
			}
			resp.Release()
			if n != rows {
				t.Fatalf("read %d rows, want %d", n, rows)
			}

			// Many small requests on one connection at once, answers matched to requests.
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for g := 0; g < 32; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 40; i++ {
						k := 1000 + g*1000 + i
						if i%5 == 4 {
							_, err := c.Do(ctx, query(fmt.Sprintf("SELEC %d", k)))
							var se *proto.ErrorResponse
							if !errors.As(err, &se) || se.Code != proto.ErrCodeSyntax {
								errs <- fmt.Errorf("bad query %d: %v", k, err)
								return
							}
							continue
						}
						resp, err := c.Do(ctx, &proto.Query{Query: "SELECT k, c FROM blobs WHERE k = ? AND c = 0", Params: proto.QueryParams{
							Consistency: proto.One, Values: proto.Values{int32Value(int32(k))},
						}})
						if err != nil {
							errs <- err
							return
						}
						rs, ok := resp.Msg.(*proto.RowsResult)
						if !ok || rs.Next() {
							errs <- fmt.Errorf("query %d: got %T with rows, want no rows", k, resp.Msg)
						}
						resp.Release()
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// A server that refuses the algorithm in STARTUP (Cassandra answers PROTOCOL_ERROR "Unknown
// compression algorithm") fails the dial at STARTUP with the server's error.
func TestReviewCompressStartupRefused(t *testing.T) {
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
		fc := &fakeConn{nc: nc}
		var hb [proto.HeaderSize]byte
		for {
			if _, err := io.ReadFull(nc, hb[:]); err != nil {
				return
			}
			h, err := proto.ParseHeader(hb[:], 0)
			if err != nil {
				return
			}
			if _, err := io.ReadFull(nc, make([]byte, h.Length)); err != nil {
				return
			}
			if h.Opcode == proto.OpOptions {
				_ = fc.send(h.Stream, proto.OpSupported, supportedBody()) // lists no COMPRESSION
				continue
			}
			_ = fc.send(h.Stream, proto.OpError, errorBody(proto.ErrCodeProtocol, "Unknown compression algorithm: snappy"))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, ln.Addr().String(), Config{Compression: "snappy"})
	if err == nil {
		_ = c.Close()
		t.Fatal("dial succeeded")
	}
	var de *DialError
	var se *proto.ErrorResponse
	if !errors.As(err, &de) || de.Step != "STARTUP" || !errors.As(err, &se) || se.Code != proto.ErrCodeProtocol {
		t.Fatalf("got %v, want a STARTUP DialError wrapping the PROTOCOL_ERROR", err)
	}
	_ = ln.Close()
	<-served
}

// Compressed responses over TLS: large ones (arriving over many TLS records and reads) and
// small ones, interleaved on one connection, each decompressed intact.
func TestReviewCompressOverTLS(t *testing.T) {
	cert, pool := cqltest.ServerCert(t)
	for _, alg := range []string{"lz4", "snappy"} {
		t.Run(alg, func(t *testing.T) {
			comp, _ := proto.NewCompressor(alg)
			s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
				// A rows result of one blob cell whose size the query names.
				if h.Flags&proto.FlagCompression == 0 {
					t.Errorf("%s request sent uncompressed", h.Opcode)
					return
				}
				body, err := comp.AppendDecompressed(nil, body, 1<<20)
				if err != nil {
					t.Errorf("request body: %v", err)
					return
				}
				var n int
				if _, err := fmt.Sscanf(queryText(body), "size %d", &n); err != nil {
					t.Errorf("query %q: %v", queryText(body), err)
					return
				}
				b := proto.AppendInt(nil, int32(proto.ResultRows))
				b = proto.AppendInt(b, int32(proto.MetaNoMetadata))
				b = proto.AppendInt(b, 1) // columns
				b = proto.AppendInt(b, 1) // rows
				b = proto.AppendBytes(b, randomBytes(uint64(n), n))
				cb, err := comp.AppendCompressed(nil, b)
				if err != nil {
					return
				}
				f := proto.AppendHeader(nil, proto.Header{Version: proto.Version4, Response: true, Flags: proto.FlagCompression, Stream: h.Stream, Opcode: proto.OpResult, Length: len(cb)})
				_ = fc.sendRaw(append(f, cb...))
			}, func(s *fakeServer) { s.tls = &tls.Config{Certificates: []tls.Certificate{cert}} })
			c := dialFake(t, s, Config{TLS: &tls.Config{RootCAs: pool}, Compression: alg})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			for i, n := range []int{0, 1, 100, 70000, 3 << 20, 5, 1 << 20} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := c.Do(ctx, query(fmt.Sprintf("size %d", n)))
					if err != nil {
						t.Errorf("request %d (%d bytes): %v", i, n, err)
						return
					}
					defer resp.Release()
					rows, ok := resp.Msg.(*proto.RowsResult)
					if !ok || !rows.Next() || !bytes.Equal(rows.Cell(0), randomBytes(uint64(n), n)) {
						t.Errorf("request %d: the %d-byte cell did not come back intact", i, n)
					}
				}()
			}
			wg.Wait()
		})
	}
}

// Config.StartupOptions may give COMPRESSION itself ("CQL_VERSION and COMPRESSION are set by
// Dial unless given here"). The server then compresses its responses with that algorithm, so
// the connection must decode (and encode) with it too: it kept the codec of Config.Compression
// (none, or another algorithm), so READY already failed to decode and the dial failed.
func TestReviewCompressStartupOptionDecidesTheCodec(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"option only", Config{StartupOptions: map[string]string{proto.StartupCompression: "snappy"}}, "snappy"},
		{"option overrides", Config{Compression: "lz4", StartupOptions: map[string]string{proto.StartupCompression: "snappy"}}, "snappy"},
		{"option upper case", Config{StartupOptions: map[string]string{proto.StartupCompression: "LZ4"}}, "lz4"},
		{"empty option turns it off", Config{Compression: "lz4", StartupOptions: map[string]string{proto.StartupCompression: ""}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := cqltest.Hosts(t)[0]
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := Dial(ctx, host, tc.cfg)
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			defer c.Close()
			for i := 0; i < 3; i++ {
				resp, err := c.Do(ctx, query("SELECT key FROM system.local WHERE key = 'local'"))
				if err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
				if _, ok := resp.Msg.(*proto.RowsResult); !ok || (resp.Header.Flags&proto.FlagCompression != 0) != (tc.want != "") {
					t.Errorf("query %d: got %T, flags %x; want rows compressed with %q", i, resp.Msg, resp.Header.Flags, tc.want)
				}
				resp.Release()
			}
			got := ""
			if c.comp != nil {
				got = c.comp.Name()
			}
			if got != tc.want {
				t.Errorf("requests compressed with %q, want %q", got, tc.want)
			}
		})
	}
	// An algorithm the client has no codec for cannot be read back: the dial fails before
	// STARTUP is sent, naming it.
	host := cqltest.Hosts(t)[0]
	_, err := Dial(context.Background(), host, Config{StartupOptions: map[string]string{proto.StartupCompression: "zstd"}})
	var de *DialError
	if !errors.As(err, &de) || de.Step != "STARTUP" || !strings.Contains(err.Error(), "zstd") {
		t.Fatalf("COMPRESSION=zstd: got %v, want a STARTUP DialError naming zstd", err)
	}
}

// TestCompressionFallback: with Config.CompressionFallback, a server whose SUPPORTED does not
// list the requested compression (or lists none) gets an uncompressed connection, as gocql
// connects; without it the dial fails when the server lists other compressions.
func TestCompressionFallback(t *testing.T) {
	for name, algs := range map[string][]string{"other compressions": {"snappy"}, "no compression": {}} {
		t.Run(name, func(t *testing.T) {
			s := startFake(t, func(fc *fakeConn, h proto.Header, body []byte) {
				if h.Flags&proto.FlagCompression != 0 {
					_ = fc.send(h.Stream, proto.OpError, errorBody(proto.ErrCodeProtocol, "compressed frame on an uncompressed connection"))
					return
				}
				_ = fc.send(h.Stream, proto.OpResult, voidBody())
			}, func(s *fakeServer) { s.compressions = algs })
			c := dialFake(t, s, Config{Compression: "lz4", CompressionFallback: true})
			if c.comp != nil {
				t.Fatalf("the connection compresses with %v, want no compression", c.comp)
			}
			if _, err := c.Do(context.Background(), query("SELECT 1")); err != nil {
				t.Fatalf("query on the uncompressed connection: %v", err)
			}
			if len(algs) > 0 {
				if _, err := Dial(context.Background(), s.addr(), Config{Compression: "lz4", HeartbeatInterval: -1}); err == nil {
					t.Fatal("without CompressionFallback, the dial succeeded against a server without lz4")
				}
			}
		})
	}
}
