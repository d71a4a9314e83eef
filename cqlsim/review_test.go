package cqlsim_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// reviewKeyspace is the keyspace the tests of this file create (and drop) on each server.
const reviewKeyspace = "review_sim"

// reviewServer is one server a test of this file runs against.
type reviewServer struct {
	name string
	addr string
}

// reviewServers returns a fresh cqlsim started with opts and, when CQL_HOSTS is set, the first
// reference node: the expectations of these tests were taken from Apache Cassandra 5.0 and are
// checked against it too.
func reviewServers(t *testing.T, opts cqlsim.Options) []reviewServer {
	t.Helper()
	sim := cqlsim.StartT(t, opts)
	servers := []reviewServer{{"cqlsim", sim.Addrs()[0]}}
	if hosts := cqltest.HostsFromEnv(); len(hosts) > 0 {
		servers = append(servers, reviewServer{"cassandra", hosts[0]})
	}
	return servers
}

// rawQueryOpts are the query parameters rawQuery sends.
type rawQueryOpts struct {
	consistency uint16
	serial      int   // the serial consistency code, or -1 for none
	pageSize    int32 // 0: no paging
}

// rawQuery sends QUERY q in protocol v4 with hand-encoded parameters (so that any consistency
// code can be sent) and returns the response.
func rawQuery(rc *rawConn, stream int16, q string, o rawQueryOpts) *frame.Frame {
	rc.t.Helper()
	body := binary.BigEndian.AppendUint32(nil, uint32(len(q)))
	body = append(body, q...)
	body = binary.BigEndian.AppendUint16(body, o.consistency)
	var flags byte
	if o.pageSize > 0 {
		flags |= 0x04
	}
	if o.serial >= 0 {
		flags |= 0x10
	}
	body = append(body, flags)
	if o.pageSize > 0 {
		body = binary.BigEndian.AppendUint32(body, uint32(o.pageSize))
	}
	if o.serial >= 0 {
		body = binary.BigEndian.AppendUint16(body, uint16(o.serial))
	}
	rc.write(rawFrame(4, 0, stream, 0x07, body))
	f := rc.read()
	if f.Header.StreamId != stream {
		rc.t.Fatalf("%s: answer on stream %d, want %d", q, f.Header.StreamId, stream)
	}
	return f
}

// mustQuery runs q at consistency ONE and fails the test unless it succeeds.
func mustQuery(rc *rawConn, q string) *frame.Frame {
	rc.t.Helper()
	f := rawQuery(rc, 1, q, rawQueryOpts{consistency: 1, serial: -1})
	if e, ok := f.Body.Message.(message.Error); ok {
		rc.t.Fatalf("%s: %s", q, e.GetErrorMessage())
	}
	return f
}

// setupReviewKeyspace recreates reviewKeyspace on the server behind rc with the given tables,
// and drops it when the test ends.
func setupReviewKeyspace(t *testing.T, srv reviewServer, rc *rawConn, stmts ...string) {
	t.Helper()
	exec := setupRunner(t, srv, func(q string) { mustQuery(rc, q) })
	exec("DROP KEYSPACE IF EXISTS " + reviewKeyspace)
	exec("CREATE KEYSPACE " + reviewKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for _, s := range stmts {
		exec(s)
	}
	t.Cleanup(func() {
		if srv.name == "cassandra" {
			_ = cqltest.ExecErr(srv.addr, "DROP KEYSPACE IF EXISTS "+reviewKeyspace)
		}
	})
}

// setupRunner returns how a test's set-up statements run on srv: on cqlsim through run (the
// test's own connection); on the reference node through cqltest.Exec, over a connection of its
// own, which waits for schema agreement after DDL (on a cluster the statements that follow may
// need a node that has not heard of the change yet, which answers INCOMPATIBLE_SCHEMA).
func setupRunner(t *testing.T, srv reviewServer, run func(q string)) func(q string) {
	if srv.name == "cassandra" {
		return func(q string) { cqltest.Exec(t, srv.addr, q) }
	}
	return run
}

// TestReviewConsistencyValidation: Cassandra refuses consistency levels that make no sense for a
// statement with Invalid errors (ConsistencyLevel.validateForRead, validateForWrite,
// validateCounterForWrite, validateForCas, validateForCasCommit); cqlsim ran such statements.
func TestReviewConsistencyValidation(t *testing.T) {
	const (
		any, one, eachQuorum, serial, localSerial = 0, 1, 7, 8, 9
	)
	const casCommit = ` is not supported as conditional update commit consistency. Use ANY if you mean "make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads"`
	cases := []struct {
		q      string
		o      rawQueryOpts
		errMsg string // "" when the statement must succeed
	}{
		{"SELECT * FROM review_sim.t WHERE k = 1", rawQueryOpts{any, -1, 0}, "ANY ConsistencyLevel is only supported for writes"},
		{"SELECT * FROM review_sim.t", rawQueryOpts{any, -1, 100}, "ANY ConsistencyLevel is only supported for writes"},
		{"SELECT * FROM system.local", rawQueryOpts{any, -1, 0}, "ANY ConsistencyLevel is only supported for writes"},
		{"SELECT * FROM review_sim.nosuch", rawQueryOpts{any, -1, 0}, "table nosuch does not exist"},
		{"SELECT * FROM review_sim.t WHERE k = 1", rawQueryOpts{serial, -1, 0}, ""},
		{"SELECT * FROM review_sim.t WHERE k IN (1, 1)", rawQueryOpts{serial, -1, 0}, ""},
		{"SELECT * FROM review_sim.t WHERE k IN (1, 2)", rawQueryOpts{serial, -1, 0}, "SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time"},
		{"SELECT * FROM review_sim.t WHERE k IN (1, 2) LIMIT 10", rawQueryOpts{localSerial, -1, 100}, "SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time"},
		{"SELECT * FROM review_sim.t WHERE k IN (1, 2)", rawQueryOpts{serial, -1, 100}, ""}, // paged: one partition at a time
		{"SELECT count(*) FROM review_sim.t WHERE k IN (1, 2)", rawQueryOpts{serial, -1, 0}, ""},
		{"SELECT * FROM review_sim.t", rawQueryOpts{serial, -1, 0}, ""},
		{"INSERT INTO review_sim.t (k, c, v) VALUES (1, 1, 'a')", rawQueryOpts{any, -1, 0}, ""},
		{"INSERT INTO review_sim.t (k, c, v) VALUES (1, 1, 'a')", rawQueryOpts{serial, -1, 0}, "You must use conditional updates for serializable writes"},
		{"UPDATE review_sim.t SET v = 'b' WHERE k = 1 AND c = 1", rawQueryOpts{localSerial, -1, 0}, "You must use conditional updates for serializable writes"},
		{"DELETE FROM review_sim.t WHERE k = 1", rawQueryOpts{serial, -1, 0}, "You must use conditional updates for serializable writes"},
		{"UPDATE review_sim.cn SET n = n + 1 WHERE k = 1", rawQueryOpts{any, -1, 0}, "Consistency level ANY is not yet supported for counter table cn"},
		{"UPDATE review_sim.cn SET n = n + 1 WHERE k = 1", rawQueryOpts{localSerial, -1, 0}, "Counter operations are inherently non-serializable"},
		{"INSERT INTO review_sim.t (k, c, v) VALUES (2, 1, 'a') IF NOT EXISTS", rawQueryOpts{serial, -1, 0}, "SERIAL" + casCommit},
		{"INSERT INTO review_sim.t (k, c, v) VALUES (2, 1, 'a') IF NOT EXISTS", rawQueryOpts{localSerial, -1, 0}, "LOCAL_SERIAL" + casCommit},
		{"INSERT INTO review_sim.t (k, c, v) VALUES (2, 1, 'a') IF NOT EXISTS", rawQueryOpts{one, one, 0}, "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL"},
		{"INSERT INTO review_sim.t (k, c, v) VALUES (2, 1, 'a') IF NOT EXISTS", rawQueryOpts{eachQuorum, -1, 0}, "consistency level EACH_QUORUM not compatible with replication strategy (org.apache.cassandra.locator.SimpleStrategy)"},
		{"BEGIN BATCH INSERT INTO review_sim.t (k, c, v) VALUES (3, 1, 'a') IF NOT EXISTS; APPLY BATCH", rawQueryOpts{serial, -1, 0}, "SERIAL" + casCommit},
		{"BEGIN BATCH INSERT INTO review_sim.t (k, c, v) VALUES (3, 1, 'a') IF NOT EXISTS; APPLY BATCH", rawQueryOpts{one, 4, 0}, "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL"},
		{"BEGIN BATCH INSERT INTO review_sim.t (k, c, v) VALUES (3, 1, 'a'); APPLY BATCH", rawQueryOpts{serial, -1, 0}, ""}, // not checked by Cassandra
		{"INSERT INTO review_sim.t (k, c, v) VALUES (2, 2, 'a') IF NOT EXISTS", rawQueryOpts{any, localSerial, 0}, ""},
	}
	for _, srv := range reviewServers(t, cqlsim.Options{}) {
		t.Run(srv.name, func(t *testing.T) {
			rc := dialRaw(t, srv.addr)
			rc.startup(nil)
			setupReviewKeyspace(t, srv, rc,
				"CREATE TABLE review_sim.t (k int, c int, v text, PRIMARY KEY (k, c))",
				"CREATE TABLE review_sim.cn (k int PRIMARY KEY, n counter)",
				"INSERT INTO review_sim.t (k, c, v) VALUES (1, 1, 'a')",
				"INSERT INTO review_sim.t (k, c, v) VALUES (2, 9, 'a')")
			for i, tc := range cases {
				f := rawQuery(rc, int16(10+i), tc.q, tc.o)
				e, failed := f.Body.Message.(message.Error)
				switch {
				case tc.errMsg == "" && failed:
					t.Errorf("%s at consistency %d (serial %d, page size %d): %s, want success", tc.q, tc.o.consistency, tc.o.serial, tc.o.pageSize, e.GetErrorMessage())
				case tc.errMsg != "" && !failed:
					t.Errorf("%s at consistency %d (serial %d, page size %d) succeeded, want Invalid %q", tc.q, tc.o.consistency, tc.o.serial, tc.o.pageSize, tc.errMsg)
				case failed && (e.GetErrorCode() != primitive.ErrorCodeInvalid || e.GetErrorMessage() != tc.errMsg):
					t.Errorf("%s at consistency %d (serial %d, page size %d): error %v %q, want Invalid %q", tc.q, tc.o.consistency, tc.o.serial, tc.o.pageSize, e.GetErrorCode(), e.GetErrorMessage(), tc.errMsg)
				}
			}
		})
	}
}

// TestReviewAggregateWarnings: Cassandra warns about aggregates over several partitions, GROUP BY
// included, and names an IN on the partition key; a token() restriction counts as a partition
// key restriction. cqlsim dropped the warning under GROUP BY, never sent the IN one, and warned
// under token().
func TestReviewAggregateWarnings(t *testing.T) {
	const (
		noKey = "Aggregation query used without partition key"
		in    = "Aggregation query used on multiple partition keys (IN restriction)"
	)
	cases := []struct {
		q    string
		want []string
	}{
		{"SELECT count(*) FROM review_sim.t", []string{noKey}},
		{"SELECT k, count(*) FROM review_sim.t GROUP BY k", []string{noKey}},
		{"SELECT count(*) FROM review_sim.t WHERE k IN (1, 2)", []string{in}},
		{"SELECT k, count(*) FROM review_sim.t WHERE k IN (1, 2) GROUP BY k", []string{in}},
		{"SELECT count(*) FROM review_sim.t WHERE k IN (1)", nil},
		{"SELECT count(*) FROM review_sim.t WHERE k = 1", nil},
		{"SELECT c, count(*) FROM review_sim.t WHERE k = 1 GROUP BY c", nil},
		{"SELECT count(*) FROM review_sim.t WHERE token(k) > 0", nil},
		{"SELECT k, c FROM review_sim.t WHERE k IN (1, 2)", nil},
	}
	for _, srv := range reviewServers(t, cqlsim.Options{}) {
		t.Run(srv.name, func(t *testing.T) {
			rc := dialRaw(t, srv.addr)
			rc.startup(nil)
			setupReviewKeyspace(t, srv, rc,
				"CREATE TABLE review_sim.t (k int, c int, PRIMARY KEY (k, c))",
				"INSERT INTO review_sim.t (k, c) VALUES (1, 1)",
				"INSERT INTO review_sim.t (k, c) VALUES (1, 2)",
				"INSERT INTO review_sim.t (k, c) VALUES (2, 1)")
			for i, tc := range cases {
				f := rawQuery(rc, int16(10+i), tc.q, rawQueryOpts{consistency: 1, serial: -1})
				if e, ok := f.Body.Message.(message.Error); ok {
					t.Errorf("%s: %s", tc.q, e.GetErrorMessage())
					continue
				}
				if !slices.Equal(f.Body.Warnings, tc.want) {
					t.Errorf("%s: warnings %q, want %q", tc.q, f.Body.Warnings, tc.want)
				}
			}
		})
	}
}

// TestReviewV5MetadataChanged: in protocol v5 an EXECUTE names the result metadata id the client
// has; when it is not the current one, Cassandra answers with the full metadata, the
// METADATA_CHANGED flag and the new id (whether or not the client asked to skip the metadata),
// so that the driver updates its cache. cqlsim sent the metadata without the flag and the id.
// Conditional updates never carry the flag.
func TestReviewV5MetadataChanged(t *testing.T) {
	for _, srv := range reviewServers(t, cqlsim.Options{MaxProtocolVersion: 5}) {
		t.Run(srv.name, func(t *testing.T) {
			vc := handshakeV5(t, srv.addr, "")
			exec := setupRunner(t, srv, func(q string) { vc.query(3, q) })
			exec("DROP KEYSPACE IF EXISTS " + reviewKeyspace)
			exec("CREATE KEYSPACE " + reviewKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			if srv.name == "cassandra" {
				t.Cleanup(func() { _ = cqltest.ExecErr(srv.addr, "DROP KEYSPACE IF EXISTS "+reviewKeyspace) })
			}
			exec("CREATE TABLE review_sim.t (k int PRIMARY KEY, v int)")
			exec("INSERT INTO review_sim.t (k, v) VALUES (1, 1)")

			prepare := func(q string) *message.PreparedResult {
				t.Helper()
				vc.sendFrames(7, &message.Prepare{Query: q})
				p, ok := vc.readFrame().Body.Message.(*message.PreparedResult)
				if !ok {
					t.Fatalf("PREPARE %s failed", q)
				}
				return p
			}
			execute := func(p *message.PreparedResult, rmid []byte, skip bool) *message.RowsResult {
				t.Helper()
				vc.sendFrames(8, &message.Execute{QueryId: p.PreparedQueryId, ResultMetadataId: rmid,
					Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, SkipMetadata: skip}})
				f := vc.readFrame()
				rows, ok := f.Body.Message.(*message.RowsResult)
				if !ok {
					t.Fatalf("EXECUTE answered with %v", f.Body.Message)
				}
				return rows
			}
			p := prepare("SELECT k, v FROM review_sim.t WHERE k = 1")
			stale := []byte{1, 2, 3}
			for _, tc := range []struct {
				rmid            []byte
				skip            bool
				wantNewID       []byte
				wantColumnSpecs bool
			}{
				{p.ResultMetadataId, true, nil, false},
				{p.ResultMetadataId, false, nil, true},
				{stale, true, p.ResultMetadataId, true},
				{stale, false, p.ResultMetadataId, true},
			} {
				rows := execute(p, tc.rmid, tc.skip)
				md := rows.Metadata
				if string(md.NewResultMetadataId) != string(tc.wantNewID) || (len(md.Columns) > 0) != tc.wantColumnSpecs || len(rows.Data) != 1 {
					t.Errorf("EXECUTE with result metadata id %x, skip %v: new id %x, %d column specs, %d rows; want new id %x, column specs %v, 1 row",
						tc.rmid, tc.skip, md.NewResultMetadataId, len(md.Columns), len(rows.Data), tc.wantNewID, tc.wantColumnSpecs)
				}
			}
			lwt := prepare("INSERT INTO review_sim.t (k, v) VALUES (1, 1) IF NOT EXISTS")
			for _, rmid := range [][]byte{lwt.ResultMetadataId, stale} {
				if md := execute(lwt, rmid, true).Metadata; md.NewResultMetadataId != nil || len(md.Columns) == 0 {
					t.Errorf("conditional EXECUTE with result metadata id %x: new id %x, %d column specs; want no new id and the column specs", rmid, md.NewResultMetadataId, len(md.Columns))
				}
			}
		})
	}
}

// TestReviewStaticOnlyWithClustering: an UPDATE or DELETE that modifies only static columns
// must not restrict clustering columns; Cassandra rejects it, cqlsim applied it (a DELETE then
// removed the partition's static value).
func TestReviewStaticOnlyWithClustering(t *testing.T) {
	cases := []struct{ q, errMsg string }{
		{"UPDATE review_sim.t SET s = 9 WHERE k = 1 AND c = 1", "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns"},
		{"DELETE s FROM review_sim.t WHERE k = 1 AND c = 1", "Invalid restrictions on clustering columns since the DELETE statement modifies only static columns"},
		{"UPDATE review_sim.t SET s = 9 WHERE k = 1 AND c = 1 IF s = 7", "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns"},
		{"UPDATE review_sim.t SET s = 9, v = 'x' WHERE k = 1 AND c = 1", ""},
		{"UPDATE review_sim.t SET s = 10 WHERE k = 1", ""},
		{"DELETE v FROM review_sim.t WHERE k = 1 AND c = 1", ""},
	}
	for _, srv := range reviewServers(t, cqlsim.Options{}) {
		t.Run(srv.name, func(t *testing.T) {
			rc := dialRaw(t, srv.addr)
			rc.startup(nil)
			setupReviewKeyspace(t, srv, rc,
				"CREATE TABLE review_sim.t (k int, c int, s int static, v text, PRIMARY KEY (k, c))",
				"INSERT INTO review_sim.t (k, c, s, v) VALUES (1, 1, 7, 'a')")
			for i, tc := range cases {
				f := rawQuery(rc, int16(10+i), tc.q, rawQueryOpts{consistency: 1, serial: -1})
				e, failed := f.Body.Message.(message.Error)
				switch {
				case tc.errMsg == "" && failed:
					t.Errorf("%s: %s, want success", tc.q, e.GetErrorMessage())
				case tc.errMsg != "" && !failed:
					t.Errorf("%s succeeded, want Invalid %q", tc.q, tc.errMsg)
				case failed && (e.GetErrorCode() != primitive.ErrorCodeInvalid || e.GetErrorMessage() != tc.errMsg):
					t.Errorf("%s: error %v %q, want Invalid %q", tc.q, e.GetErrorCode(), e.GetErrorMessage(), tc.errMsg)
				}
			}
			rows, ok := mustQuery(rc, "SELECT s FROM review_sim.t WHERE k = 1").Body.Message.(*message.RowsResult)
			if !ok || len(rows.Data) != 1 || len(rows.Data[0][0]) != 4 || binary.BigEndian.Uint32(rows.Data[0][0]) != 10 {
				t.Errorf("static value after the statements: %v, want 10", rows)
			}
		})
	}
}
