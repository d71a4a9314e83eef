package cqlsim

import (
	"bytes"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// TestAppendRowsFrameMatchesLibrary checks the fast rows encoder byte for byte against
// go-cassandra-native-protocol's codec, and that the codec decodes it back to the same rows.
func TestAppendRowsFrameMatchesLibrary(t *testing.T) {
	udt, err := datatype.NewUserDefined("ks", "addr", []string{"street", "zip"}, []datatype.DataType{datatype.Varchar, datatype.Int})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]*engine.Result{
		"one table": {Kind: engine.ResultRows,
			Columns: []engine.Column{{Keyspace: "ks", Table: "t", Name: "k", Type: datatype.Int}, {Keyspace: "ks", Table: "t", Name: "v", Type: datatype.Varchar}},
			Rows:    [][][]byte{{{0, 0, 0, 1}, []byte("one")}, {{0, 0, 0, 2}, nil}, {{0, 0, 0, 3}, {}}}},
		"paging state and no rows": {Kind: engine.ResultRows,
			Columns:     []engine.Column{{Keyspace: "ks", Table: "t", Name: "k", Type: datatype.Int}},
			PagingState: []byte{1, 2, 3}},
		"several tables": {Kind: engine.ResultRows,
			Columns: []engine.Column{{Keyspace: "ks", Table: "a", Name: "x", Type: datatype.Bigint}, {Keyspace: "ks2", Table: "b", Name: "y", Type: datatype.Boolean}},
			Rows:    [][][]byte{{{0, 0, 0, 0, 0, 0, 0, 9}, {1}}}},
		"nested types": {Kind: engine.ResultRows,
			Columns: []engine.Column{
				{Keyspace: "ks", Table: "t", Name: "l", Type: datatype.NewList(datatype.Int)},
				{Keyspace: "ks", Table: "t", Name: "m", Type: datatype.NewMap(datatype.Varchar, datatype.NewSet(datatype.Uuid))},
				{Keyspace: "ks", Table: "t", Name: "u", Type: udt},
				{Keyspace: "ks", Table: "t", Name: "tu", Type: datatype.NewTuple(datatype.Int, datatype.Varchar)},
			},
			Rows: [][][]byte{{nil, nil, nil, nil}}},
	}
	for name, res := range cases {
		for _, v := range []uint8{3, 4} {
			h := wire.Header{Version: v, Stream: 77}
			got, err := appendRowsFrame([]byte("prefix"), h, res, false, nil)
			if err != nil {
				t.Fatalf("%s v%d: %v", name, v, err)
			}
			if string(got[:6]) != "prefix" {
				t.Fatalf("%s v%d: appendRowsFrame overwrote the destination's prefix", name, v)
			}
			got = got[6:]
			want, err := encodeFrame(h, rowsMessage(res, h.Version), nil)
			if err != nil {
				t.Fatalf("%s v%d: library encoding: %v", name, v, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s v%d:\n got  % x\n want % x", name, v, got, want)
				continue
			}
			f, err := frame.NewCodec().DecodeFrame(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("%s v%d: decoding: %v", name, v, err)
			}
			rows := f.Body.Message.(*message.RowsResult)
			if len(rows.Data) != len(res.Rows) || f.Header.StreamId != 77 {
				t.Errorf("%s v%d: decoded %d rows on stream %d", name, v, len(rows.Data), f.Header.StreamId)
			}

			// Without metadata: NO_METADATA and the column count only.
			got, err = appendRowsFrame(nil, h, res, true, nil)
			if err != nil {
				t.Fatalf("%s v%d without metadata: %v", name, v, err)
			}
			bare := rowsMessage(res, h.Version)
			bare.Metadata.Columns = nil
			if want, err = encodeFrame(h, bare, nil); err != nil {
				t.Fatalf("%s v%d: library encoding without metadata: %v", name, v, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s v%d without metadata:\n got  % x\n want % x", name, v, got, want)
			}
		}
	}
}

func TestAppendRowsFrameRejectsShortRows(t *testing.T) {
	res := &engine.Result{Kind: engine.ResultRows,
		Columns: []engine.Column{{Name: "a", Type: datatype.Int}, {Name: "b", Type: datatype.Int}},
		Rows:    [][][]byte{{{0, 0, 0, 1}}}}
	out, err := appendRowsFrame([]byte("keep"), wire.Header{Version: 4}, res, false, nil)
	if err == nil {
		t.Fatal("a row with fewer values than columns was encoded")
	}
	if string(out) != "keep" {
		t.Errorf("failed encoding left %q, want the destination unchanged", out)
	}
}
