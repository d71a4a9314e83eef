package native_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// ExecuteBatchAsync binds the batch's values before it returns, as ExecuteAsync does for a
// statement: a binding error has completed the Pending by then, and the caller may reuse the
// slice it passed to Bind (a buffer of arguments refilled for the next batch) at once. The
// values were bound on a worker, after ExecuteBatchAsync returned: the row got the refilled
// value (and -race reported the slice shared with the worker).
func TestReviewUserBatchAsyncBindsBeforeReturn(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	ins, err := s.Prepare(ctxT(t), "INSERT INTO ks.t (k, v) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}

	p := s.ExecuteBatchAsync(ctxT(t), native.NewBatch(native.UnloggedBatch, ins.Bind(1)))
	select {
	case <-p.Done():
	default:
		t.Error("a batch with a binding error: its Pending is not complete when ExecuteBatchAsync returns")
	}
	if _, err := p.Result(); err == nil {
		t.Error("a batch binding 1 value to 2 markers succeeded")
	}

	const n = 50
	pend := make([]*native.Pending, 0, n)
	args := make([]any, 2)
	for k := range n {
		args[0], args[1] = k, "first"
		pend = append(pend, s.ExecuteBatchAsync(ctxT(t), native.NewBatch(native.UnloggedBatch, ins.Bind(args...))))
		args[0], args[1] = -1, "refilled" // the buffer is reused once the call has returned
	}
	for _, p := range pend {
		if _, err := p.Result(); err != nil {
			t.Fatal(err)
		}
	}
	for k := range n {
		res := mustExec(t, s, "SELECT v FROM ks.t WHERE k = ?", int32(k))
		if v, err := native.ScanOne[string](res); err != nil || v != "first" {
			t.Errorf("row %d: v = %q (%v), want \"first\"", k, v, err)
		}
	}
	if res := mustExec(t, s, "SELECT v FROM ks.t WHERE k = -1"); res.Len() != 0 {
		t.Errorf("a row was written with the values put in the buffer after ExecuteBatchAsync returned")
	}
}

// A simple statement's values are encoded by their Go type (Query): pointers are followed,
// a nil pointer being NULL, as package cqltype documents for every value, and slices and maps
// of the types a simple statement infers become lists and maps (struct{} values: sets). A
// *string for a nullable column, a []cqltype.UUID or a map[string]int64 failed with "cannot
// infer the CQL type of this Go type".
func TestReviewUserSimpleStatementInfersPointersAndCollections(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, name text, ids list<uuid>, counts map<text, bigint>, tags set<text>, flags list<boolean>)")
	id, err := cqltype.NewRandomUUID()
	if err != nil {
		t.Fatal(err)
	}
	name := "ann"
	var noName *string
	ins := "INSERT INTO ks.t (k, name, ids, counts, tags, flags) VALUES (?, ?, ?, ?, ?, ?)"
	for k, nm := range []*string{&name, noName} {
		_, err := s.Execute(ctxT(t), native.Query(ins, int32(k), nm, []cqltype.UUID{id},
			map[string]int64{"a": 1}, map[string]struct{}{"x": {}}, []bool{true}))
		if err != nil {
			t.Fatalf("row %d: %v", k, err)
		}
	}
	type row struct {
		K      int
		Name   *string
		IDs    []cqltype.UUID
		Counts map[string]int64
		Tags   []string
		Flags  []bool
	}
	rows, err := native.Collect(s.Iter(ctxT(t), native.Query("SELECT k, name, ids, counts, tags, flags FROM ks.t")), native.RowToStruct[row])
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		wantName := r.K == 0
		if (r.Name != nil) != wantName || (wantName && *r.Name != "ann") || len(r.IDs) != 1 || r.IDs[0] != id ||
			r.Counts["a"] != 1 || len(r.Tags) != 1 || r.Tags[0] != "x" || len(r.Flags) != 1 || !r.Flags[0] {
			t.Errorf("row %d read back as %+v", r.K, r)
		}
	}
	// time.Duration stays ambiguous (time, duration or bigint): still an error naming the type.
	_, err = s.Execute(ctxT(t), native.Query("INSERT INTO ks.t (k, name) VALUES (?, ?)", int32(9), []time.Duration{time.Second}))
	if err == nil || !strings.Contains(err.Error(), "[]time.Duration") {
		t.Errorf("a []time.Duration value: %v, want an error naming the Go type", err)
	}
}

// A batch of a type the protocol does not have fails before anything is sent, with an error
// naming the type; it failed while its frame was encoded, as a request error of its attempt.
func TestInvalidBatchTypeRefusedBeforeSending(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	b := native.NewBatch(native.BatchType(7), native.Query("INSERT INTO system.x (k) VALUES (1)"))
	for name, run := range map[string]func() error{
		"ExecuteBatch": func() error { _, err := s.ExecuteBatch(ctxT(t), b); return err },
		"ExecuteBatchAsync": func() error {
			p := s.ExecuteBatchAsync(ctxT(t), b)
			select {
			case <-p.Done():
			default:
				return errors.New("the Pending is not complete when ExecuteBatchAsync returns")
			}
			_, err := p.Result()
			return err
		},
	} {
		if err := run(); err == nil || !strings.Contains(err.Error(), "BatchType(7) is not a batch type") {
			t.Errorf("%s of a batch of type 7: %v, want an error naming the type", name, err)
		}
	}
}
