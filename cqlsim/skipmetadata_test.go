package cqlsim_test

import (
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestExecuteSkipMetadata checks that an EXECUTE asking to skip the result metadata gets rows
// flagged NO_METADATA with the column count only, as Cassandra answers, while a QUERY, an EXECUTE
// that does not ask, and an LWT whose [applied] columns differ from the prepared ones keep it.
func TestExecuteSkipMetadata(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	one := &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}
	skip := &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, SkipMetadata: true}

	for i, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
		"INSERT INTO ks.t (k, v) VALUES (1, 'one')",
	} {
		rc.send(primitive.ProtocolVersion4, int16(i+1), &message.Query{Query: q, Options: one})
		if f := rc.read(); f.Header.OpCode != primitive.OpCodeResult {
			t.Fatalf("%s: %v", q, f.Body.Message)
		}
	}
	prepare := func(stream int16, q string) []byte {
		rc.send(primitive.ProtocolVersion4, stream, &message.Prepare{Query: q})
		p, ok := rc.read().Body.Message.(*message.PreparedResult)
		if !ok {
			t.Fatalf("PREPARE %s failed", q)
		}
		return p.PreparedQueryId
	}
	rows := func(stream int16, msg message.Message) *message.RowsResult {
		rc.send(primitive.ProtocolVersion4, stream, msg)
		f := rc.read()
		r, ok := f.Body.Message.(*message.RowsResult)
		if !ok {
			t.Fatalf("stream %d: got %v, want rows", stream, f.Body.Message)
		}
		return r
	}

	sel := prepare(10, "SELECT k, v FROM ks.t")
	r := rows(11, &message.Execute{QueryId: sel, Options: skip})
	if r.Metadata.ColumnCount != 2 || len(r.Metadata.Columns) != 0 {
		t.Errorf("EXECUTE with skip_metadata: %d columns with %d specs, want 2 without specs", r.Metadata.ColumnCount, len(r.Metadata.Columns))
	}
	if len(r.Data) != 1 || string(r.Data[0][1]) != "one" {
		t.Errorf("EXECUTE with skip_metadata: rows %q", r.Data)
	}
	r = rows(12, &message.Execute{QueryId: sel, Options: one})
	if len(r.Metadata.Columns) != 2 || r.Metadata.Columns[1].Name != "v" {
		t.Errorf("EXECUTE without skip_metadata: column specs %v, want k and v", r.Metadata.Columns)
	}
	r = rows(13, &message.Query{Query: "SELECT k, v FROM ks.t", Options: skip})
	if len(r.Metadata.Columns) != 2 {
		t.Errorf("QUERY with skip_metadata: %d column specs, want 2 (only EXECUTE skips)", len(r.Metadata.Columns))
	}

	lwt := prepare(20, "INSERT INTO ks.t (k, v) VALUES (1, 'again') IF NOT EXISTS")
	r = rows(21, &message.Execute{QueryId: lwt, Options: skip})
	if len(r.Metadata.Columns) == 0 || r.Metadata.Columns[0].Name != "[applied]" {
		t.Errorf("LWT EXECUTE with skip_metadata: column specs %v, want [applied] first", r.Metadata.Columns)
	}
}
