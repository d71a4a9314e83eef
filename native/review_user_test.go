package native_test

import (
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
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
