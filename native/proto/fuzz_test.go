package proto

import (
	"errors"
	"net"
	"runtime"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// seedResponses are valid response messages of every kind, for truncation tests and as the
// fuzz seed corpus.
var seedResponses = []message.Message{
	rowsMsg,
	&message.RowsResult{Metadata: &message.RowsMetadata{ColumnCount: 2}, Data: message.RowSet{{{1}, nil}}},
	&message.PreparedResult{PreparedQueryId: []byte{9, 9},
		VariablesMetadata: &message.VariablesMetadata{PkIndices: []uint16{0}, Columns: []*message.ColumnMetadata{
			{Keyspace: "ks", Table: "t", Name: "a", Type: datatype.NewTuple(datatype.Int, datatype.NewCustom("org.example.T"))},
		}},
		ResultMetadata: &message.RowsMetadata{ColumnCount: 1, Columns: []*message.ColumnMetadata{{Keyspace: "ks", Table: "t", Name: "c", Type: datatype.Boolean}}},
	},
	&message.Unavailable{ErrorMessage: "m", Consistency: primitive.ConsistencyLevelQuorum, Required: 2, Alive: 1},
	&message.ReadFailure{ErrorMessage: "m", Consistency: primitive.ConsistencyLevelTwo, Received: 1, BlockFor: 2, NumFailures: 1, DataPresent: true},
	&message.WriteFailure{ErrorMessage: "m", Consistency: primitive.ConsistencyLevelTwo, Received: 1, BlockFor: 2, NumFailures: 1, WriteType: primitive.WriteTypeCas},
	&message.FunctionFailure{ErrorMessage: "m", Keyspace: "ks", Function: "f", Arguments: []string{"int"}},
	&message.AlreadyExists{ErrorMessage: "m", Keyspace: "ks", Table: "t"},
	&message.Unprepared{ErrorMessage: "m", Id: []byte{1, 2}},
	&message.Supported{Options: map[string][]string{"COMPRESSION": {"lz4", "snappy"}}},
	&message.Authenticate{Authenticator: "x"},
	&message.AuthChallenge{Token: []byte{1}},
	&message.SetKeyspaceResult{Keyspace: "ks"},
	&message.SchemaChangeResult{ChangeType: primitive.SchemaChangeTypeCreated, Target: primitive.SchemaChangeTargetAggregate, Keyspace: "ks", Object: "a", Arguments: []string{"int", "text"}},
	&message.StatusChangeEvent{ChangeType: primitive.StatusChangeTypeUp, Address: &primitive.Inet{Addr: net.ParseIP("127.0.0.2"), Port: 9042}},
	&message.SchemaChangeEvent{ChangeType: primitive.SchemaChangeTypeDropped, Target: primitive.SchemaChangeTargetTable, Keyspace: "ks", Object: "t"},
}

// TestTruncatedResponsesFail decodes every proper prefix of every seed response body: each
// must fail with ErrMalformed, never panic and never succeed.
func TestTruncatedResponsesFail(t *testing.T) {
	for _, msg := range seedResponses {
		b := encodeResponseRef(t, msg, "", nil)
		h, err := ParseHeader(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		body := b[HeaderSize:]
		for n := 0; n < len(body); n++ {
			r := AcquireResponse()
			err := r.Decode(h, body[:n], nil, nil)
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("%T truncated to %d of %d bytes: err = %v, want ErrMalformed", msg, n, len(body), err)
			}
			r.Release()
		}
	}
}

func TestBadCountsFail(t *testing.T) {
	rows := func(flags MetadataFlags, cols, count int32, tail ...byte) []byte {
		b := AppendInt(nil, int32(ResultRows))
		b = AppendInt(b, int32(flags))
		b = AppendInt(b, cols)
		return append(AppendInt(b, count), tail...)
	}
	cases := map[string][]byte{
		"negative columns":       rows(MetaNoMetadata, -1, 0),
		"huge columns":           rows(0, 1<<30, 0),
		"negative rows":          rows(MetaNoMetadata, 1, -5),
		"rows without columns":   rows(MetaNoMetadata, 0, 1000000000),
		"rows beyond the data":   rows(MetaNoMetadata, 1, 3, 0, 0, 0, 1, 7),
		"cell beyond the data":   rows(MetaNoMetadata, 1, 1, 0x7f, 0xff, 0xff, 0xff, 1),
		"trailing bytes":         rows(MetaNoMetadata, 1, 1, 0, 0, 0, 1, 7, 8),
		"string list count":      append(AppendInt(nil, int32(ErrCodeFunctionFailure)), 0, 0, 0, 1, 'k', 0, 1, 'f', 0xff, 0xff),
		"inet size":              {0, 13, 'S', 'T', 'A', 'T', 'U', 'S', '_', 'C', 'H', 'A', 'N', 'G', 'E', 0, 2, 'U', 'P', 5, 1, 2, 3, 4, 5, 0, 0, 0, 1},
		"unknown result kind":    AppendInt(nil, 77),
		"negative paging state":  rows(MetaHasMorePages|MetaNoMetadata, 1, 0, 0x80, 0, 0, 0),
		"pk index out of range":  append(append(AppendInt(AppendInt(AppendInt(AppendShort(AppendInt(nil, int32(ResultPrepared)), 0), 0), 0), 1), 0, 5), 0, 0, 0, 4, 0, 0, 0, 0),
		"nested type too deep":   append(rows(MetaGlobalTablesSpec, 1, 0, 0, 1, 'k', 0, 1, 't', 0, 1, 'c'), deepList(100)...),
		"huge global spec count": rows(MetaGlobalTablesSpec, 100000, 0, 0, 1, 'k'),
	}
	for name, body := range cases {
		op := OpResult
		switch name {
		case "string list count":
			op = OpError
		case "inet size":
			op = OpEvent
		}
		r := AcquireResponse()
		err := r.Decode(Header{Version: Version4, Response: true, Opcode: op}, body, nil, nil)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
		r.Release()
	}
}

// TestColumnCountWithoutRowsAllocatesNothing decodes an empty ROWS result without metadata
// that claims 2^31-1 columns: it is well formed (no cell is present), so it decodes, and the
// cursor must not allocate a row of that many cells (the fuzzer's out-of-memory crash in
// FuzzConnReader, seed 7aa4ed505411ce1d).
func TestColumnCountWithoutRowsAllocatesNothing(t *testing.T) {
	b := AppendInt(nil, int32(ResultRows))
	b = AppendInt(b, int32(MetaNoMetadata))
	b = AppendInt(b, 1<<31-1)
	b = AppendInt(b, 0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := AcquireResponse()
	err := r.Decode(Header{Version: Version4, Response: true, Opcode: OpResult}, b, nil, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("decoding: %v", err)
	}
	rows, ok := r.Msg.(*RowsResult)
	if !ok {
		t.Fatalf("decoded %T, want *RowsResult", r.Msg)
	}
	if rows.Metadata.ColumnCount != 1<<31-1 || rows.RowCount != 0 || rows.RowCursor.Next() {
		t.Fatalf("columns %d rows %d: want 2147483647 columns and no row", rows.Metadata.ColumnCount, rows.RowCount)
	}
	r.Release()
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("decoding allocated %d bytes", n)
	}
}

func deepList(depth int) []byte {
	var b []byte
	for i := 0; i < depth; i++ {
		b = append(b, 0, 0x20)
	}
	return append(b, 0, 9)
}

// FuzzDecodeResponse feeds arbitrary bytes to the header and response decoders (with lz4 or
// snappy decompression when the frame says it is compressed) and walks every decoded row,
// decoding each cell as its column's type (types and values both come from the server).
// Nothing may panic, and a decode that succeeds must leave consistent rows.
func FuzzDecodeResponse(f *testing.F) {
	for _, msg := range seedResponses {
		for _, comp := range []string{"", "lz4", "snappy"} {
			f.Add(encodeResponseRef(f, msg, comp, nil))
		}
	}
	tid := primitive.UUID{1}
	f.Add(encodeResponseRef(f, rowsMsg, "", func(fr *frame.Frame) {
		fr.SetTracingId(&tid)
		fr.SetWarnings([]string{"w"})
	}))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHeader(data, 1<<20)
		if err != nil {
			return
		}
		body := data[HeaderSize:]
		if len(body) > h.Length {
			body = body[:h.Length]
		}
		opts := &DecodeOptions{MaxBodySize: 1 << 20}
		if h.Stream%2 == 0 {
			opts.Compressor = LZ4{}
		} else {
			opts.Compressor = Snappy{}
		}
		r := AcquireResponse()
		defer r.Release()
		if err := r.Decode(h, body, nil, opts); err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("error %v wraps neither ErrMalformed nor ErrFrameTooLarge", err)
			}
			return
		}
		switch m := r.Msg.(type) {
		case *RowsResult:
			n := 0
			cols := m.Metadata.Columns
			for m.Next() {
				for i := range m.Row() {
					cell := m.Cell(i)
					if i < len(cols) {
						var v any
						_ = cqltype.Decode(cols[i].Type, cell, &v) // must not panic
					}
				}
				n++
			}
			if n != m.RowCount {
				t.Fatalf("iterated %d rows, RowCount %d", n, m.RowCount)
			}
			for _, c := range m.Metadata.Columns {
				_ = c.Type.String()
			}
		case *ErrorResponse:
			_ = m.Error()
		case *Event:
			_ = m.String()
		case *PreparedResult:
			for _, i := range m.PKIndexes {
				if int(i) >= len(m.Bind) {
					t.Fatalf("pk index %d beyond %d bind markers", i, len(m.Bind))
				}
			}
		}
	})
}

// FuzzDecompress checks that corrupt compressed bodies fail cleanly.
func FuzzDecompress(f *testing.F) {
	for _, s := range []string{"", "a", "hello hello hello hello hello", string(make([]byte, 3000))} {
		lz, _ := LZ4{}.AppendCompressed(nil, []byte(s))
		sn, _ := Snappy{}.AppendCompressed(nil, []byte(s))
		f.Add(lz, true)
		f.Add(sn, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, useLZ4 bool) {
		var c Compressor = Snappy{}
		if useLZ4 {
			c = LZ4{}
		}
		out, err := c.AppendDecompressed(nil, data, 1<<20)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("error %v wraps neither ErrMalformed nor ErrFrameTooLarge", err)
			}
			return
		}
		if len(out) > 1<<20 {
			t.Fatalf("decompressed %d bytes beyond the limit", len(out))
		}
	})
}
