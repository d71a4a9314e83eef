package native_test

import (
	"errors"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

// TestPrepareTraced: the PREPARE is traced when this call sends it, and not when the statement
// is cached; a refused statement's error carries the trace id.
func TestPrepareTraced(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	p, id, err := s.PrepareTraced(ctxT(t), "SELECT v FROM kv WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 16 || string(id) == string(make([]byte, 16)) {
		t.Fatalf("trace id of a traced PREPARE = %x", id)
	}
	if len(p.Params()) != 1 {
		t.Fatalf("prepared statement has %d parameters", len(p.Params()))
	}
	p2, id2, err := s.PrepareTraced(ctxT(t), "SELECT v FROM kv WHERE k = ?")
	if err != nil || p2 != p || id2 != nil {
		t.Fatalf("cached statement: %p (first %p), trace id %x, %v; want the cached one and no trace", p2, p, id2, err)
	}
	if _, err := s.Prepare(ctxT(t), "SELECT v FROM kv WHERE k = 1 AND v = ?"); err == nil {
		t.Fatal("prepare of a filtering query without ALLOW FILTERING succeeded")
	} else if re := requestError(t, err); re.Traced {
		t.Fatalf("untraced PREPARE's error has trace id %x", re.TraceID)
	}
	_, id, err = s.PrepareTraced(ctxT(t), "SELECT nope FROM kv WHERE k = ?")
	re := requestError(t, err)
	if re.Code != native.CodeInvalid || !re.Traced || len(id) != 16 || string(id) != string(re.TraceID[:]) {
		t.Fatalf("refused traced PREPARE: %v, traced %v id %x, returned id %x", err, re.Traced, re.TraceID, id)
	}
}

// TestTracedRequestErrorCarriesTraceID: the ERROR answering a traced request keeps its trace id.
func TestTracedRequestErrorCarriesTraceID(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	_, err := s.Execute(ctxT(t), native.Query("CREATE TABLE kv (k int PRIMARY KEY)").WithTracing(true))
	var ae *native.AlreadyExistsError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %T %v, want AlreadyExistsError", err, err)
	}
	if !ae.Traced || ae.TraceID == ([16]byte{}) {
		t.Fatalf("traced request's error has no trace id: %+v", ae.RequestError)
	}
	_, err = s.Execute(ctxT(t), native.Query("CREATE TABLE kv (k int PRIMARY KEY)"))
	if re := requestError(t, err); re.Traced {
		t.Fatalf("untraced request's error has trace id %x", re.TraceID)
	}
	b := native.NewBatch(native.LoggedBatch, native.Query("INSERT INTO nope (k) VALUES (1)")).WithTracing(true)
	_, err = s.ExecuteBatch(ctxT(t), b)
	if re := requestError(t, err); !re.Traced {
		t.Fatalf("traced batch's error %v has no trace id", err)
	}
}

func requestError(t *testing.T, err error) *native.RequestError {
	t.Helper()
	var re *native.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("err = %T %v, want a server error", err, err)
	}
	return re
}
