package conn

import (
	"bytes"
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// metadataIDNode is a fake ScyllaDB node that offers SCYLLA_USE_METADATA_ID (when offer is
// set) and speaks whatever version the client speaks: it records the STARTUP options and the
// EXECUTE bodies, and answers PREPARE with a PREPARED that carries the result metadata id
// after the statement id exactly when the client opted in, as ScyllaDB does.
type metadataIDNode struct {
	offer bool

	mu       sync.Mutex
	startup  map[string]string
	executes [][]byte
}

// The statement and result metadata ids metadataIDNode's PREPARED answers carry.
var (
	fakeStatementID = []byte{0xca, 0xfe}
	fakeMetadataID  = []byte{1, 2, 3, 4}
)

func (n *metadataIDNode) serve(nc net.Conn) {
	optedIn := false
	for {
		var hb [proto.HeaderSize]byte
		if _, err := io.ReadFull(nc, hb[:]); err != nil {
			return
		}
		h, err := proto.ParseHeader(hb[:], 0)
		if err != nil {
			return
		}
		body := make([]byte, h.Length)
		if _, err := io.ReadFull(nc, body); err != nil {
			return
		}
		var op proto.Opcode
		var out []byte
		switch h.Opcode {
		case proto.OpOptions:
			op, out = proto.OpSupported, cqltest.SupportedBody()
			if n.offer {
				out[1]++ // one more key
				out, _ = proto.AppendString(out, proto.StartupUseMetadataID)
				out, _ = proto.AppendStringList(out, []string{""})
			}
		case proto.OpStartup:
			opts, err := primitive.ReadStringMap(bytes.NewReader(body))
			if err != nil {
				return
			}
			n.mu.Lock()
			n.startup = opts
			n.mu.Unlock()
			_, optedIn = opts[proto.StartupUseMetadataID]
			op = proto.OpReady
		case proto.OpPrepare:
			op = proto.OpResult
			out = proto.AppendInt(nil, int32(proto.ResultPrepared))
			out, _ = proto.AppendShortBytes(out, fakeStatementID)
			if optedIn {
				out, _ = proto.AppendShortBytes(out, fakeMetadataID)
			}
			out = proto.AppendInt(out, 0) // bind metadata: no flags, no column
			out = proto.AppendInt(out, 0)
			if h.Version >= proto.Version4 {
				out = proto.AppendInt(out, 0) // no partition key index
			}
			out = proto.AppendInt(out, int32(proto.MetaNoMetadata)) // result metadata: none
			out = proto.AppendInt(out, 0)
		case proto.OpExecute:
			n.mu.Lock()
			n.executes = append(n.executes, body)
			n.mu.Unlock()
			op, out = proto.OpResult, proto.AppendInt(nil, int32(proto.ResultVoid))
		default:
			return
		}
		f := proto.AppendHeader(nil, proto.Header{Version: h.Version, Response: true, Stream: h.Stream, Opcode: op, Length: len(out)})
		if _, err := nc.Write(append(f, out...)); err != nil {
			return
		}
	}
}

// The handshake opts in to ScyllaDB's result metadata ids at v3 and v4 when the node offers
// them (or when Config.StartupOptions sends the option); the connection then decodes the id
// of PREPARED and sends it in EXECUTE (empty for a statement that has none), and
// Conn.MetadataID reports it. Without the offer nothing changes: the option is not sent,
// PREPARED and EXECUTE keep the plain layout.
func TestHandshakeMetadataID(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version proto.Version
		offer   bool
		extra   map[string]string
		want    bool
	}{
		{"v4 offered", proto.Version4, true, nil, true},
		{"v3 offered", proto.Version3, true, nil, true},
		{"v4 not offered", proto.Version4, false, nil, false},
		{"v4 not offered, StartupOptions", proto.Version4, false, map[string]string{proto.StartupUseMetadataID: ""}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &metadataIDNode{offer: tc.offer}
			addr := cqltest.Serve(t, cqltest.Listen(t), n.serve)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := Dial(ctx, addr, Config{Version: tc.version, StartupOptions: tc.extra})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			n.mu.Lock()
			_, sent := n.startup[proto.StartupUseMetadataID]
			n.mu.Unlock()
			if sent != tc.want || c.MetadataID() != tc.want {
				t.Fatalf("STARTUP sent the option: %v, MetadataID() = %v; want %v", sent, c.MetadataID(), tc.want)
			}
			resp, err := c.Do(ctx, &proto.Prepare{Query: "SELECT * FROM t WHERE k = ?"})
			if err != nil {
				t.Fatal(err)
			}
			p, ok := resp.Msg.(*proto.PreparedResult)
			if !ok {
				t.Fatalf("PREPARE answered %T", resp.Msg)
			}
			var wantID []byte
			if tc.want {
				wantID = fakeMetadataID
			}
			if !bytes.Equal(p.ID, fakeStatementID) || !bytes.Equal(p.ResultMetadataID, wantID) {
				t.Errorf("PREPARED decoded with id %x and result metadata id %x, want %x and %x", p.ID, p.ResultMetadataID, fakeStatementID, wantID)
			}
			resp.Release()

			params := proto.QueryParams{Consistency: proto.One}
			for _, rmid := range [][]byte{fakeMetadataID, nil} {
				resp, err = c.Do(ctx, &proto.Execute{ID: fakeStatementID, ResultMetadataID: rmid, Params: params})
				if err != nil {
					t.Fatal(err)
				}
				resp.Release()
			}
			paramBytes, _ := proto.AppendQueryParams(nil, &params, tc.version)
			var want [][]byte
			for _, rmid := range [][]byte{fakeMetadataID, nil} {
				b, _ := proto.AppendShortBytes(nil, fakeStatementID)
				if tc.want {
					b, _ = proto.AppendShortBytes(b, rmid)
				}
				want = append(want, append(b, paramBytes...))
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			if len(n.executes) != 2 || !bytes.Equal(n.executes[0], want[0]) || !bytes.Equal(n.executes[1], want[1]) {
				t.Errorf("EXECUTE bodies\n% x\nwant\n% x", n.executes, want)
			}
			if v := n.startup[proto.StartupUseMetadataID]; v != "" {
				t.Errorf("STARTUP sent %s=%q, want the value \"\"", proto.StartupUseMetadataID, v)
			}
		})
	}
}
