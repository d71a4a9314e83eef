package cqlsim_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// midClient is a raw client of protocol v3 or v4 that encodes its requests and decodes the
// answers with native/proto, opting in to ScyllaDB's result metadata ids (and LWT mark) when
// ids is set, and keeps the raw answers.
type midClient struct {
	t      *testing.T
	rc     *rawConn
	v      proto.Version
	ids    bool
	stream int16
	frames [][]byte // the raw answers since the handshake
}

// dialMID connects a midClient to addr and runs the handshake; it returns the client and the
// options of the node's SUPPORTED.
func dialMID(t *testing.T, addr string, v proto.Version, ids bool) (*midClient, map[string][]string) {
	t.Helper()
	c := &midClient{t: t, rc: dialRaw(t, addr), v: v, ids: ids}
	sup := c.do(&proto.Options{}).Msg.(*proto.Supported).Options
	opts := map[string]string{proto.StartupCQLVersion: "3.0.0"}
	if ids {
		opts[proto.StartupUseMetadataID] = ""
		opts[proto.StartupLWTMark] = "LWT_OPTIMIZATION_META_BIT_MASK=2147483648"
	}
	if _, ok := c.do(&proto.Startup{Options: opts}).Msg.(*proto.Ready); !ok {
		t.Fatal("STARTUP not answered READY")
	}
	c.frames = nil
	return c, sup
}

// do sends req (with the result metadata id, when the client opted in) and returns the decoded
// answer; an error answer fails the test.
func (c *midClient) do(req proto.Request) *proto.Response {
	c.t.Helper()
	c.stream++
	if c.ids {
		req = proto.WithMetadataID(req)
	}
	b, err := proto.AppendFrame(nil, c.v, c.stream, req, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.rc.write(b)
	head := c.rc.readRaw(proto.HeaderSize)
	body := c.rc.readRaw(int(binary.BigEndian.Uint32(head[5:])))
	c.frames = append(c.frames, append(slices.Clone(head), body...))
	h, err := proto.ParseHeader(head, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	r := proto.AcquireResponse()
	c.t.Cleanup(r.Release)
	if err := r.Decode(h, body, nil, &proto.DecodeOptions{MetadataID: c.ids}); err != nil {
		c.t.Fatalf("%s: decoding the answer % x: %v", req.Opcode(), body, err)
	}
	if err := r.Err(); err != nil {
		c.t.Fatalf("%s: %v", req.Opcode(), err)
	}
	return r
}

func (c *midClient) query(cql string) {
	c.t.Helper()
	c.do(&proto.Query{Query: cql, Params: proto.QueryParams{Consistency: proto.One}})
}

func (c *midClient) prepare(cql string) *proto.PreparedResult {
	c.t.Helper()
	return c.do(&proto.Prepare{Query: cql}).Msg.(*proto.PreparedResult)
}

// execute runs the prepared statement id, sending result metadata id rmid, with k bound, asking
// to skip the result metadata.
func (c *midClient) execute(id, rmid []byte, k int32) *proto.RowsResult {
	c.t.Helper()
	params := proto.QueryParams{Consistency: proto.One, SkipMetadata: true, Values: proto.Values{proto.AppendInt(nil, k)}}
	return c.do(&proto.Execute{ID: id, ResultMetadataID: rmid, Params: params}).Msg.(*proto.RowsResult)
}

// metadataIDScenario prepares a SELECT * on a client of cl's first node, executes it, adds a
// column to the table, has another client prepare the statement again (the node's statement
// then has the new result columns) and executes it again with the first PREPARE's result
// metadata id. It returns the client, the first PREPARE's answer and the last rows.
func metadataIDScenario(t *testing.T, cl *cqlsim.Cluster, v proto.Version, ids bool) (*midClient, *proto.PreparedResult, *proto.RowsResult) {
	t.Helper()
	c, sup := dialMID(t, cl.Addrs()[0], v, ids)
	if _, offered := sup[proto.StartupUseMetadataID]; offered != (len(cl.ShardConns(0)) > 0) {
		t.Fatalf("SUPPORTED offers %s: %v (%v)", proto.StartupUseMetadataID, offered, sup)
	}
	c.query("CREATE KEYSPACE mi WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	c.query("CREATE TABLE mi.t (k int PRIMARY KEY, v text)")
	c.query("INSERT INTO mi.t (k, v) VALUES (1, 'x')")
	const cql = "SELECT * FROM mi.t WHERE k = ?"
	p := c.prepare(cql)
	rows := c.execute(p.ID, p.ResultMetadataID, 1)
	if rows.Metadata.Flags&(proto.MetaNoMetadata|proto.MetaMetadataChanged) != proto.MetaNoMetadata || rows.RowCount != 1 {
		t.Fatalf("first EXECUTE: flags %#x, %d rows; want NO_METADATA alone and one row", rows.Metadata.Flags, rows.RowCount)
	}
	c.query("ALTER TABLE mi.t ADD w int")
	c.query("UPDATE mi.t SET w = 7 WHERE k = 1")
	other, _ := dialMID(t, cl.Addrs()[0], v, false)
	other.prepare(cql)
	return c, p, c.execute(p.ID, p.ResultMetadataID, 1)
}

// A sharded cqlsim node offers SCYLLA_USE_METADATA_ID. To a v3 or v4 client that opted in,
// PREPARED carries the result metadata id after the statement id (with the LWT mark, when
// flagged, in the flags after it), EXECUTE is read with the id after the statement id, and
// rows answering an EXECUTE whose id is not the statement's current one carry the
// METADATA_CHANGED flag, the current id and the full metadata, as in v5.
func TestUseMetadataIDOptedIn(t *testing.T) {
	for _, v := range []proto.Version{proto.Version3, proto.Version4} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			cl := cqlsim.StartT(t, cqlsim.Options{Shards: 2})
			c, p, rows := metadataIDScenario(t, cl, v, true)
			// The raw PREPARED: kind, [short bytes] id, [short bytes] result metadata id.
			prep := c.frames[3][proto.HeaderSize:]
			idLen := int(binary.BigEndian.Uint16(prep[4:]))
			if rl := int(binary.BigEndian.Uint16(prep[6+idLen:])); rl != 16 || !bytes.Equal(prep[8+idLen:8+idLen+rl], p.ResultMetadataID) {
				t.Fatalf("PREPARED body % x: no result metadata id after the statement id", prep)
			}
			if len(p.Bind) != 1 || len(p.Result.Columns) != 2 {
				t.Fatalf("PREPARED decoded as %+v", p)
			}
			m := rows.Metadata
			if m.Flags&proto.MetaMetadataChanged == 0 || len(m.NewMetadataID) != 16 || bytes.Equal(m.NewMetadataID, p.ResultMetadataID) {
				t.Fatalf("EXECUTE with the old id after ALTER: flags %#x, new id %x (old %x); want METADATA_CHANGED with a new id", m.Flags, m.NewMetadataID, p.ResultMetadataID)
			}
			if len(m.Columns) != 3 || m.Columns[2].Name != "w" || !rows.Next() || !bytes.Equal(rows.Cell(2), []byte{0, 0, 0, 7}) {
				t.Fatalf("EXECUTE with the old id after ALTER: columns %+v", m.Columns)
			}
			newID := bytes.Clone(m.NewMetadataID)
			if again := c.prepare("SELECT * FROM mi.t WHERE k = ?"); !bytes.Equal(again.ResultMetadataID, newID) {
				t.Errorf("PREPARE after ALTER: result metadata id %x, want the new one %x", again.ResultMetadataID, newID)
			}
			if r := c.execute(p.ID, newID, 1); r.Metadata.Flags&(proto.MetaNoMetadata|proto.MetaMetadataChanged) != proto.MetaNoMetadata || r.Metadata.ColumnCount != 3 {
				t.Errorf("EXECUTE with the new id: flags %#x, %d columns; want NO_METADATA alone, 3 columns", r.Metadata.Flags, r.Metadata.ColumnCount)
			}
			if r := c.execute(p.ID, nil, 1); r.Metadata.Flags&proto.MetaMetadataChanged == 0 || !bytes.Equal(r.Metadata.NewMetadataID, newID) || len(r.Metadata.Columns) != 3 {
				t.Errorf("EXECUTE with an empty id: flags %#x, new id %x, %d column specs; want METADATA_CHANGED with %x and 3 specs", r.Metadata.Flags, r.Metadata.NewMetadataID, len(r.Metadata.Columns), newID)
			}
			lwt := c.prepare("INSERT INTO mi.t (k, v) VALUES (?, ?) IF NOT EXISTS")
			if uint32(lwt.Flags)&0x80000000 == 0 || len(lwt.ResultMetadataID) != 16 || len(lwt.Bind) != 2 {
				t.Errorf("conditional PREPARED: flags %#x, result metadata id %x, %d bind markers; want the LWT bit, an id, 2 markers", uint32(lwt.Flags), lwt.ResultMetadataID, len(lwt.Bind))
			}
		})
	}
}

// A client that did not opt in gets the same bytes from a sharded node, which offers
// SCYLLA_USE_METADATA_ID, as from a plain one: PREPARED without the result metadata id, and
// after the ALTER rows without metadata (the column count alone tells the driver the
// statement changed).
func TestUseMetadataIDNotOptedIn(t *testing.T) {
	for _, v := range []proto.Version{proto.Version3, proto.Version4} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			var answers [2][][]byte
			for i, shards := range []int{2, 0} {
				c, p, rows := metadataIDScenario(t, cqlsim.StartT(t, cqlsim.Options{Shards: shards}), v, false)
				if p.ResultMetadataID != nil || len(p.Result.Columns) != 2 {
					t.Fatalf("shards %d: PREPARED decoded as %+v", shards, p)
				}
				if m := rows.Metadata; m.Flags&(proto.MetaNoMetadata|proto.MetaMetadataChanged) != proto.MetaNoMetadata || m.ColumnCount != 3 {
					t.Fatalf("shards %d: EXECUTE after ALTER: flags %#x, %d columns; want NO_METADATA alone and 3 columns", shards, m.Flags, m.ColumnCount)
				}
				answers[i] = c.frames
			}
			if len(answers[0]) != len(answers[1]) {
				t.Fatalf("%d and %d answers", len(answers[0]), len(answers[1]))
			}
			for i := range answers[0] {
				if !bytes.Equal(answers[0][i], answers[1][i]) {
					t.Errorf("answer %d differs:\nsharded % x\nplain   % x", i, answers[0][i], answers[1][i])
				}
			}
		})
	}
}
