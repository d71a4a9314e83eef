package proto

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// refBody encodes msg as a response body of version with the reference codec.
func refBody(t *testing.T, version primitive.ProtocolVersion, msg message.Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	f := frame.NewFrame(version, 1, msg)
	f.Header.IsResponse = true
	if err := frame.NewCodec().EncodeFrame(f, &buf); err != nil {
		t.Fatalf("reference encoder: %v", err)
	}
	return buf.Bytes()[HeaderSize:]
}

// decodeBody decodes a response body with header version v and opts.
func decodeBody(t *testing.T, v Version, body []byte, opts *DecodeOptions) (*Response, error) {
	t.Helper()
	r := AcquireResponse()
	if err := r.Decode(Header{Version: v, Response: true, Opcode: OpResult, Length: len(body)}, body, nil, opts); err != nil {
		r.Release()
		return nil, err
	}
	t.Cleanup(r.Release)
	return r, nil
}

// With ScyllaDB's SCYLLA_USE_METADATA_ID, a v4 PREPARED has v5's layout: the result metadata
// id after the statement id, and the rest as in v4 (v4 and v5 share the prepared metadata
// layout, so the reference codec's v5 body is what such a node sends). Without the option the
// v4 body decodes as before, and the v5 body does not decode as plain v4.
func TestPreparedWithMetadataIDAtV4(t *testing.T) {
	msg := &message.PreparedResult{
		PreparedQueryId:  []byte{0xca, 0xfe},
		ResultMetadataId: []byte{1, 2, 3, 4, 5, 6, 7, 8},
		VariablesMetadata: &message.VariablesMetadata{PkIndices: []uint16{0}, Columns: []*message.ColumnMetadata{
			{Keyspace: "ks", Table: "t", Name: "k", Type: datatype.Int},
		}},
		ResultMetadata: &message.RowsMetadata{ColumnCount: 2, Columns: []*message.ColumnMetadata{
			{Keyspace: "ks", Table: "t", Name: "k", Type: datatype.Int},
			{Keyspace: "ks", Table: "t", Name: "v", Type: datatype.Varchar},
		}},
	}
	check := func(t *testing.T, what string, p *PreparedResult, wantID []byte) {
		t.Helper()
		if !bytes.Equal(p.ID, msg.PreparedQueryId) || !bytes.Equal(p.ResultMetadataID, wantID) ||
			len(p.Bind) != 1 || p.Bind[0].Name != "k" || !reflect.DeepEqual(p.PKIndexes, []uint16{0}) ||
			p.Result.ColumnCount != 2 || len(p.Result.Columns) != 2 || p.Result.Columns[1].Name != "v" {
			t.Errorf("%s: decoded %+v (result %+v)", what, p, p.Result)
		}
	}
	ext := refBody(t, primitive.ProtocolVersion5, msg)
	r, err := decodeBody(t, Version4, ext, &DecodeOptions{MetadataID: true})
	if err != nil {
		t.Fatalf("v4 PREPARED with the id, MetadataID set: %v", err)
	}
	check(t, "v4 with MetadataID", r.Msg.(*PreparedResult), msg.ResultMetadataId)

	plain := refBody(t, primitive.ProtocolVersion4, msg)
	if bytes.Equal(plain, ext) {
		t.Fatal("the reference codec wrote the same v4 and v5 bodies")
	}
	r, err = decodeBody(t, Version4, plain, nil)
	if err != nil {
		t.Fatalf("plain v4 PREPARED: %v", err)
	}
	check(t, "plain v4", r.Msg.(*PreparedResult), nil)
	if r, err := decodeBody(t, Version4, ext, nil); err == nil {
		if p := r.Msg.(*PreparedResult); bytes.Equal(p.ResultMetadataID, msg.ResultMetadataId) || p.Result.ColumnCount == 2 {
			t.Errorf("the body with the id decoded without MetadataID as %+v", p)
		}
	}
	// v3 (no partition key indexes) takes the option too.
	v3 := AppendInt(nil, int32(ResultPrepared))
	v3, _ = AppendShortBytes(v3, msg.PreparedQueryId)
	v3, _ = AppendShortBytes(v3, msg.ResultMetadataId)
	v3 = AppendInt(AppendInt(v3, int32(MetaGlobalTablesSpec)), 1) // flags, column count
	for _, s := range []string{"ks", "t", "k"} {
		v3, _ = AppendString(v3, s)
	}
	v3 = AppendShort(v3, 0x0009)                       // int
	v3 = append(v3, plain[lenPreparedBind(plain):]...) // the result metadata
	r, err = decodeBody(t, Version3, v3, &DecodeOptions{MetadataID: true})
	if err != nil {
		t.Fatalf("v3 PREPARED with the id: %v", err)
	}
	if p := r.Msg.(*PreparedResult); !bytes.Equal(p.ResultMetadataID, msg.ResultMetadataId) || len(p.Bind) != 1 || p.PKIndexes != nil || len(p.Result.Columns) != 2 {
		t.Errorf("v3 with MetadataID: decoded %+v", p)
	}
}

// lenPreparedBind returns the length of the kind, id and bind metadata of the plain v4
// PREPARED body b built in TestPreparedWithMetadataIDAtV4 (one global int column "k" in ks.t,
// one partition key index), so that what follows is its result metadata.
func lenPreparedBind(b []byte) int {
	return 4 + 2 + 2 + // kind, id
		4 + 4 + 4 + 2 + // flags, column count, pk count, pk index
		(2 + 2) + (2 + 1) + (2 + 1) + 2 // "ks", "t", "k", int
}

// Rows with Metadata_changed decode at v4 as at v5 (a node that negotiated the extension
// sends them): the new id, then the full metadata.
func TestRowsMetadataChangedAtV4(t *testing.T) {
	msg := &message.RowsResult{
		Metadata: &message.RowsMetadata{ColumnCount: 1, NewResultMetadataId: []byte{9, 9}, Columns: []*message.ColumnMetadata{
			{Keyspace: "ks", Table: "t", Name: "w", Type: datatype.Int},
		}},
		Data: message.RowSet{{{0, 0, 0, 7}}},
	}
	r, err := decodeBody(t, Version4, refBody(t, primitive.ProtocolVersion5, msg), &DecodeOptions{MetadataID: true})
	if err != nil {
		t.Fatal(err)
	}
	rows := r.Msg.(*RowsResult)
	if rows.Metadata.Flags&MetaMetadataChanged == 0 || !bytes.Equal(rows.Metadata.NewMetadataID, []byte{9, 9}) ||
		len(rows.Metadata.Columns) != 1 || rows.Metadata.Columns[0].Name != "w" || rows.RowCount != 1 {
		t.Errorf("decoded %+v", rows.Metadata)
	}
}

// On a v4 connection that negotiated the extension, EXECUTE carries the result metadata id
// after the statement id (empty when the statement has none) and keeps v4's one-byte query
// flags; without it (or for other requests) the encoding is the plain v4 one.
func TestExecuteWithMetadataIDAtV4(t *testing.T) {
	e := &Execute{
		FrameOptions:     FrameOptions{Tracing: true, CustomPayload: map[string][]byte{"k": {1}}},
		ID:               []byte{0xca, 0xfe},
		ResultMetadataID: []byte{1, 2, 3},
		Params:           QueryParams{Consistency: One, Values: Values{{0, 0, 0, 1}}, SkipMetadata: true},
	}
	payload, _ := appendBytesMap(nil, e.CustomPayload)
	params := []byte{0, 1, queryFlagValues | queryFlagSkipMetadata, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1}
	frameOf := func(t *testing.T, req Request) []byte {
		t.Helper()
		b, err := AppendFrame(nil, Version4, 7, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ParseHeader(b, 0)
		if err != nil || h.Version != Version4 || h.Opcode != OpExecute || h.Flags != FlagTracing|FlagCustomPayload || h.Length != len(b)-HeaderSize {
			t.Fatalf("header %+v, %v", h, err)
		}
		return b[HeaderSize:]
	}
	want := append(append(bytes.Clone(payload), 0, 2, 0xca, 0xfe, 0, 3, 1, 2, 3), params...)
	if got := frameOf(t, WithMetadataID(e)); !bytes.Equal(got, want) {
		t.Errorf("v4 EXECUTE with the id:\n got % x\nwant % x", got, want)
	}
	plain := append(append(bytes.Clone(payload), 0, 2, 0xca, 0xfe), params...)
	if got := frameOf(t, e); !bytes.Equal(got, plain) {
		t.Errorf("plain v4 EXECUTE:\n got % x\nwant % x", got, plain)
	}
	none := *e
	none.ResultMetadataID = nil
	want = append(append(bytes.Clone(payload), 0, 2, 0xca, 0xfe, 0, 0), params...)
	if got := frameOf(t, WithMetadataID(&none)); !bytes.Equal(got, want) {
		t.Errorf("v4 EXECUTE with no id to send:\n got % x\nwant % x", got, want)
	}
	// At v5 the id is there either way, with v5's query flags.
	v5a, err := AppendFrame(nil, Version5, 7, WithMetadataID(e), nil)
	if err != nil {
		t.Fatal(err)
	}
	v5b, _ := AppendFrame(nil, Version5, 7, e, nil)
	if !bytes.Equal(v5a, v5b) {
		t.Errorf("v5: WithMetadataID changed the frame:\n% x\n% x", v5a, v5b)
	}
	q := &Query{Query: "SELECT 1"}
	if WithMetadataID(q) != Request(q) {
		t.Error("WithMetadataID wrapped a QUERY")
	}
	buf := make([]byte, 0, 256)
	bare := *e
	bare.FrameOptions = FrameOptions{}
	if n := testing.AllocsPerRun(100, func() {
		buf, _ = AppendFrame(buf[:0], Version4, 7, WithMetadataID(&bare), nil)
	}); n != 0 {
		t.Errorf("WithMetadataID and AppendFrame: %v allocations, want 0", n)
	}
}
