package gocql

import (
	"bytes"
	"io"
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
