package cqlsim_test

import (
	"bytes"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// sendTraced sends msg with the tracing flag and returns the response. (The flag is set by
// hand: the library's codec counts a tracing id in the length of a request too.)
func (c *rawConn) sendTraced(stream int16, msg message.Message) *frame.Frame {
	c.t.Helper()
	var buf bytes.Buffer
	if err := frame.NewCodec().EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, stream, msg), &buf); err != nil {
		c.t.Fatalf("encode %v: %v", msg, err)
	}
	b := buf.Bytes()
	b[1] |= byte(primitive.HeaderFlagTracing)
	c.write(b)
	return c.read()
}

// TestTracedRequests: a statement request with the tracing flag is answered with the flag and a
// tracing session id (errors included, as Cassandra does), and the trace is readable from
// system_traces; a request without the flag gets no id.
func TestTracedRequests(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)

	traced := func(f *frame.Frame) primitive.UUID {
		t.Helper()
		if !f.Header.Flags.Contains(primitive.HeaderFlagTracing) || f.Body.TracingId == nil || *f.Body.TracingId == (primitive.UUID{}) {
			t.Fatalf("traced request answered without a tracing id: flags %v, message %v", f.Header.Flags, f.Body.Message)
		}
		return *f.Body.TracingId
	}
	q := func(cql string) *message.Query {
		return &message.Query{Query: cql, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}
	}

	f := rc.sendTraced(2, q("SELECT release_version FROM system.local"))
	if _, ok := f.Body.Message.(*message.RowsResult); !ok {
		t.Fatalf("traced SELECT answered with %v", f.Body.Message)
	}
	queryID := traced(f)

	f = rc.sendTraced(3, q("SELECT nope FROM system.local"))
	if _, ok := f.Body.Message.(*message.Invalid); !ok {
		t.Fatalf("traced invalid SELECT answered with %v, want INVALID", f.Body.Message)
	}
	errorID := traced(f)

	f = rc.sendTraced(4, &message.Prepare{Query: "SELECT key FROM system.local WHERE key = ?"})
	prep, ok := f.Body.Message.(*message.PreparedResult)
	if !ok {
		t.Fatalf("traced PREPARE answered with %v", f.Body.Message)
	}
	prepareID := traced(f)

	f = rc.sendTraced(5, &message.Execute{QueryId: prep.PreparedQueryId, Options: &message.QueryOptions{
		Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{primitive.NewValue([]byte("local"))}}})
	if _, ok := f.Body.Message.(*message.RowsResult); !ok {
		t.Fatalf("traced EXECUTE answered with %v", f.Body.Message)
	}
	executeID := traced(f)

	rc.send(primitive.ProtocolVersion4, 6, q("SELECT release_version FROM system.local"))
	if f := rc.read(); f.Header.Flags.Contains(primitive.HeaderFlagTracing) || f.Body.TracingId != nil {
		t.Fatalf("untraced request answered with a tracing id (flags %v)", f.Header.Flags)
	}

	ids := map[primitive.UUID]string{queryID: "Execute CQL3 query", errorID: "Execute CQL3 query",
		prepareID: "Preparing CQL3 query", executeID: "Execute CQL3 prepared query"}
	if len(ids) != 4 {
		t.Fatalf("tracing ids are not distinct: %v %v %v %v", queryID, errorID, prepareID, executeID)
	}
	for id, request := range ids {
		f := rc.sendTraced(7, &message.Query{Query: "SELECT request FROM system_traces.sessions WHERE session_id = ?",
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{primitive.NewValue(id[:])}}})
		rows, ok := f.Body.Message.(*message.RowsResult)
		if !ok || len(rows.Data) != 1 || string(rows.Data[0][0]) != request {
			t.Fatalf("system_traces.sessions for %v: %v, want one row with request %q", id, f.Body.Message, request)
		}
		f = rc.sendTraced(8, &message.Query{Query: "SELECT activity FROM system_traces.events WHERE session_id = ?",
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{primitive.NewValue(id[:])}}})
		if rows, ok := f.Body.Message.(*message.RowsResult); !ok || len(rows.Data) == 0 {
			t.Fatalf("system_traces.events for %v: %v, want events", id, f.Body.Message)
		}
	}
}
