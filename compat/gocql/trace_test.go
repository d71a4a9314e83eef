package gocql

import (
	"errors"
	"testing"
)

// idsTracer records the trace ids it is given.
type idsTracer struct{ ids [][]byte }

func (r *idsTracer) Trace(id []byte) { r.ids = append(r.ids, append([]byte(nil), id...)) }

// TestTracerSeesThePrepare: as gocql v1.7.0, a traced statement that must be prepared first
// has its PREPARE traced too, so the Tracer is called for the PREPARE and for the request; once
// the statement is prepared, only for the request.
func TestTracerSeesThePrepare(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	tr := &idsTracer{}
	if err := s.Query("SELECT v FROM kv WHERE p = ?", 1).Trace(tr).Exec(); err != nil {
		t.Fatal(err)
	}
	if len(tr.ids) != 2 || len(tr.ids[0]) != 16 || len(tr.ids[1]) != 16 || string(tr.ids[0]) == string(tr.ids[1]) {
		t.Fatalf("first traced execution: trace ids %x, want two distinct ones (PREPARE, EXECUTE)", tr.ids)
	}
	tr.ids = nil
	if err := s.Query("SELECT v FROM kv WHERE p = ?", 2).Trace(tr).Exec(); err != nil {
		t.Fatal(err)
	}
	if len(tr.ids) != 1 {
		t.Fatalf("prepared statement: %d trace ids, want 1", len(tr.ids))
	}

	tr.ids = nil
	b := s.NewBatch(UnloggedBatch).Trace(tr)
	b.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 1, 1, "a")
	b.Query("INSERT INTO kv (p, c, v) VALUES (1, 2, 'b')")
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	if len(tr.ids) != 2 {
		t.Fatalf("batch with a new statement with arguments: %d trace ids, want 2 (PREPARE, BATCH)", len(tr.ids))
	}
	tr.ids = nil
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	if len(tr.ids) != 1 {
		t.Fatalf("batch again: %d trace ids, want 1", len(tr.ids))
	}
}

// TestTracerOnErrors: the Tracer is called for an error response that carries a trace id,
// from the PREPARE and from the request itself.
func TestTracerOnErrors(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	tr := &idsTracer{}
	var re RequestError
	err := s.Query("SELECT nope FROM kv WHERE p = ?", 1).Trace(tr).Exec()
	if !errors.As(err, &re) || re.Code() != ErrCodeInvalid {
		t.Fatalf("err = %T %v, want the server's invalid query error", err, err)
	}
	if len(tr.ids) != 1 || len(tr.ids[0]) != 16 {
		t.Fatalf("refused PREPARE: trace ids %x, want one", tr.ids)
	}
	tr.ids = nil
	err = s.Query("CREATE TABLE kv (p int PRIMARY KEY)").Trace(tr).Exec()
	var ae *RequestErrAlreadyExists
	if !errors.As(err, &ae) {
		t.Fatalf("err = %T %v, want RequestErrAlreadyExists", err, err)
	}
	if len(tr.ids) != 1 || len(tr.ids[0]) != 16 {
		t.Fatalf("failed traced request: trace ids %x, want one", tr.ids)
	}
	tr.ids = nil
	if err := s.Query("CREATE TABLE kv (p int PRIMARY KEY)").Exec(); err == nil {
		t.Fatal("CREATE TABLE of an existing table succeeded")
	}
	if len(tr.ids) != 0 {
		t.Fatalf("untraced query called the tracer: %x", tr.ids)
	}
	b := s.NewBatch(LoggedBatch).Trace(tr)
	b.Query("INSERT INTO nope (p) VALUES (1)")
	if err := s.ExecuteBatch(b); !errors.As(err, &re) {
		t.Fatalf("batch on a missing table: %T %v", err, err)
	}
	if len(tr.ids) != 1 {
		t.Fatalf("failed traced batch: trace ids %x, want one", tr.ids)
	}
}
