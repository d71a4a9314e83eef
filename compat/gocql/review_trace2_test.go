package gocql

import (
	"bytes"
	"io"
	"slices"
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestReviewTraceWriterOnClosedSessionLikeGocql: a trace writer whose session is closed
// writes what gocql v1.7.0's writes. gocql reads system_traces on its control connection,
// which Close closes: the single line is "Error: context canceled" when the writer never ran
// on the session (its read has to be prepared, on the closed connection), and "Error: gocql:
// connection closed waiting for response" once it has. Applications log that text.
func TestReviewTraceWriterOnClosedSessionLikeGocql(t *testing.T) {
	for _, usedBefore := range []bool{false, true} {
		sim := cqlsim.StartT(t, cqlsim.Options{})
		s, ls := sessionsOn(t, sim, nil)
		var lids, cids ids
		if err := ls.Query("SELECT key FROM system.local").Trace(legacyTracerFunc(lids.add)).Exec(); err != nil {
			t.Fatalf("gocql: %v", err)
		}
		if err := s.Query("SELECT key FROM system.local").Trace(tracerFunc(cids.add)).Exec(); err != nil {
			t.Fatalf("compat: %v", err)
		}
		if len(lids) == 0 || len(cids) == 0 {
			t.Fatalf("trace ids: gocql %x, compat %x", lids, cids)
		}
		if usedBefore {
			gocqlv1.NewTraceWriter(ls, io.Discard).Trace(lids[0])
			NewTraceWriter(s, io.Discard).Trace(cids[0])
		}
		ls.Close()
		s.Close()
		var lout, cout bytes.Buffer
		gocqlv1.NewTraceWriter(ls, &lout).Trace(lids[len(lids)-1])
		NewTraceWriter(s, &cout).Trace(cids[len(cids)-1])
		if lout.String() != cout.String() {
			t.Errorf("trace writer on a closed session (used before: %v):\n gocql:  %q\n compat: %q", usedBefore, lout.String(), cout.String())
		}
	}
}

// ids collects trace ids.
type ids [][]byte

func (r *ids) add(id []byte) { *r = append(*r, append([]byte(nil), id...)) }

// legacyTracerFunc is tracerFunc for gocql v1.7.0.
type legacyTracerFunc func([]byte)

func (f legacyTracerFunc) Trace(id []byte) { f(id) }

// TestReviewTraceAfterUnpreparedUnlikeGocql pins G59. On one node that forgot a prepared
// statement (cqlsim forgets a table's statements on ALTER TABLE ... ADD; Cassandra on schema
// changes that invalidate them, or when its cache evicts them), a traced execution of it, or a traced batch holding it, gives gocql v1.7.0's
// Tracer three trace ids: the node's traced UNPREPARED answer, the traced PREPARE gocql sends
// then, and the execution sent again. The native core prepares again and sends again by
// itself, untraced: compat's Tracer gets the last id only. Each id is checked by the request
// system_traces.sessions records for it.
func TestReviewTraceAfterUnpreparedUnlikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	s, ls := sessionsOn(t, sim, nil)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.l (p int, c int, PRIMARY KEY (p, c))", // gocql's table
		"CREATE TABLE ks.c (p int, c int, PRIMARY KEY (p, c))", // compat's
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	// requests returns the request recorded for each trace id.
	requests := func(list ids) []string {
		var out []string
		for _, id := range list {
			var req string
			if err := s.Query("SELECT request FROM system_traces.sessions WHERE session_id = ?", id).Scan(&req); err != nil {
				t.Fatalf("reading trace %x: %v", id, err)
			}
			out = append(out, req)
		}
		return out
	}
	const (
		unprepared = "Execute CQL3 prepared query" // the UNPREPARED answer to the EXECUTE
		prepare    = "Preparing CQL3 query"
		execute    = "Execute CQL3 prepared query"
		batch      = "Execute batch of CQL3 queries"
	)
	for _, c := range []struct {
		name          string
		gocql, compat []string
		legacy        func(table string, tr gocqlv1.Tracer) error
		shim          func(table string, tr Tracer) error
	}{
		{
			name:   "query",
			gocql:  []string{unprepared, prepare, execute},
			compat: []string{execute},
			legacy: func(table string, tr gocqlv1.Tracer) error {
				return ls.Query("INSERT INTO ks."+table+" (p, c) VALUES (?, ?)", 1, 1).Trace(tr).Exec()
			},
			shim: func(table string, tr Tracer) error {
				return s.Query("INSERT INTO ks."+table+" (p, c) VALUES (?, ?)", 1, 1).Trace(tr).Exec()
			},
		},
		{
			name:   "batch",
			gocql:  []string{batch, prepare, batch},
			compat: []string{batch},
			legacy: func(table string, tr gocqlv1.Tracer) error {
				b := ls.NewBatch(gocqlv1.LoggedBatch).Trace(tr)
				b.Query("INSERT INTO ks."+table+" (p, c) VALUES (?, ?)", 1, 2)
				return ls.ExecuteBatch(b)
			},
			shim: func(table string, tr Tracer) error {
				b := s.NewBatch(LoggedBatch).Trace(tr)
				b.Query("INSERT INTO ks."+table+" (p, c) VALUES (?, ?)", 1, 2)
				return s.ExecuteBatch(b)
			},
		},
	} {
		forget := func(table string) {
			if err := s.Query("ALTER TABLE ks." + table + " ADD v_" + c.name + " int").Exec(); err != nil {
				t.Fatal(err)
			}
		}
		var lids, cids ids
		if err := c.legacy("l", nil); err != nil {
			t.Fatalf("%s: gocql: %v", c.name, err)
		}
		forget("l")
		if err := c.legacy("l", legacyTracerFunc(lids.add)); err != nil {
			t.Fatalf("%s: gocql: %v", c.name, err)
		}
		if err := c.shim("c", nil); err != nil {
			t.Fatalf("%s: compat: %v", c.name, err)
		}
		forget("c")
		if err := c.shim("c", tracerFunc(cids.add)); err != nil {
			t.Fatalf("%s: compat: %v", c.name, err)
		}
		if got := requests(lids); !slices.Equal(got, c.gocql) {
			t.Errorf("%s: gocql v1.7.0 traced %q, want %q", c.name, got, c.gocql)
		}
		if got := requests(cids); !slices.Equal(got, c.compat) {
			t.Errorf("%s: compat traced %q, want %q (G59)", c.name, got, c.compat)
		}
	}
}
