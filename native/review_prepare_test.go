package native_test

import (
	"errors"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

// A prepared INSERT whose table is dropped and created again with other column types must not
// store values encoded for the old types: the server forgets the statement (UNPREPARED), and
// the values bound against the stale metadata would be read with the new types.
func TestReviewReprepareWithChangedBindTypes(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE rp_types (k int PRIMARY KEY, v int)")
	ins := mustPrepare(t, s, "INSERT INTO rp_types (k, v) VALUES (?, ?)")
	if _, err := s.Execute(ctxT(t), ins.Bind(1, 10)); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "DROP TABLE rp_types")
	mustExec(t, s, "CREATE TABLE rp_types (k int PRIMARY KEY, v float)")
	_, err := s.Execute(ctxT(t), ins.Bind(2, 10))
	res := mustExec(t, s, "SELECT v FROM rp_types WHERE k = 2")
	if res.Len() > 0 {
		m, _ := mustRow(t, res, 0).Map()
		t.Errorf("stored v = %v (execute error %v): values encoded for the old types were sent", m["v"], err)
	} else if !errors.Is(err, native.ErrBindTypesChanged) {
		t.Errorf("execute error %v, want ErrBindTypesChanged", err)
	}
	// The next execution binds with the new types.
	if _, err := s.Execute(ctxT(t), ins.Bind(3, float32(1.5))); err != nil {
		t.Fatalf("after re-prepare: %v", err)
	}
	res = mustExec(t, s, "SELECT v FROM rp_types WHERE k = 3")
	if m, _ := mustRow(t, res, 0).Map(); m["v"] != float32(1.5) {
		t.Errorf("after re-prepare: v = %v, want 1.5", m["v"])
	}
}

// The same in a batch: the statement whose bind markers changed types is not sent with values
// encoded for the old ones.
func TestReviewReprepareBatchWithChangedBindTypes(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE rp_btypes (k int PRIMARY KEY, v int)")
	ins := mustPrepare(t, s, "INSERT INTO rp_btypes (k, v) VALUES (?, ?)")
	if _, err := s.ExecuteBatch(ctxT(t), native.NewBatch(native.UnloggedBatch, ins.Bind(1, 10))); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "DROP TABLE rp_btypes")
	mustExec(t, s, "CREATE TABLE rp_btypes (k int PRIMARY KEY, v float)")
	_, err := s.ExecuteBatch(ctxT(t), native.NewBatch(native.UnloggedBatch, ins.Bind(2, 10)))
	res := mustExec(t, s, "SELECT v FROM rp_btypes WHERE k = 2")
	if res.Len() > 0 {
		m, _ := mustRow(t, res, 0).Map()
		t.Errorf("stored v = %v (batch error %v): values encoded for the old types were sent", m["v"], err)
	} else if !errors.Is(err, native.ErrBindTypesChanged) {
		t.Errorf("batch error %v, want ErrBindTypesChanged", err)
	}
	if _, err := s.ExecuteBatch(ctxT(t), native.NewBatch(native.UnloggedBatch, ins.Bind(3, float32(1.5)))); err != nil {
		t.Fatalf("after re-prepare: %v", err)
	}
}

// When the server refuses to prepare a statement again (its table was dropped), the session
// forgets it, as gocql does with a failed preparation: the next Prepare of the text asks the
// server and describes the table created since, instead of returning the old metadata.
func TestReviewFailedReprepareEvicts(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE rp_evict (k int PRIMARY KEY, v int)")
	sel := mustPrepare(t, s, "SELECT * FROM rp_evict WHERE k = ?")
	if _, err := s.Execute(ctxT(t), sel.Bind(1)); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "DROP TABLE rp_evict")
	if _, err := s.Execute(ctxT(t), sel.Bind(1)); err == nil {
		t.Fatal("execute after DROP TABLE: no error")
	}
	if !sel.Evicted() {
		t.Error("Evicted() = false after the server refused to prepare the statement again")
	}
	mustExec(t, s, "CREATE TABLE rp_evict (k int PRIMARY KEY, v text, w int)")
	again := mustPrepare(t, s, "SELECT * FROM rp_evict WHERE k = ?")
	if again == sel || len(again.Columns()) != 3 || again.Evicted() {
		t.Errorf("Prepare after the table was created again: same %t, columns %v, evicted %t", again == sel, again.Columns(), again.Evicted())
	}
	// Unchanged statements stay cached.
	if p := mustPrepare(t, s, "SELECT * FROM rp_evict WHERE k = ?"); p != again {
		t.Error("a second Prepare of the text did not return the cached statement")
	}
}

// Checks that passed on review: concurrent Prepare calls of one text share one Prepared, and
// a failed Prepare is not cached (gocql drops failed preparations from its cache too).
func TestReviewPrepareSharedAndFailureNotCached(t *testing.T) {
	s, _ := connect(t)
	const text = "SELECT v FROM rp_later WHERE k = ?"
	if _, err := s.Prepare(ctxT(t), text); err == nil {
		t.Fatal("Prepare on a missing table: no error")
	}
	mustExec(t, s, "CREATE TABLE rp_later (k int PRIMARY KEY, v int)")
	const n = 32
	got := make(chan *native.Prepared, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			p, err := s.Prepare(ctxT(t), text)
			got <- p
			errs <- err
		}()
	}
	var first *native.Prepared
	for i := range n {
		p, err := <-got, <-errs
		if err != nil {
			t.Fatalf("Prepare after CREATE TABLE: %v", err)
		}
		if i == 0 {
			first = p
		} else if p != first {
			t.Fatal("concurrent Prepare calls of one text returned different statements")
		}
	}
}

// A user-defined type that gains a field still takes values encoded for its old fields: a
// re-prepare after ALTER TYPE ... ADD sends the request again.
func TestReviewReprepareAfterUDTGrows(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TYPE rp_addr (street text)")
	mustExec(t, s, "CREATE TABLE rp_udt (k int PRIMARY KEY, a frozen<rp_addr>)")
	ins := mustPrepare(t, s, "INSERT INTO rp_udt (k, a) VALUES (?, ?)")
	if _, err := s.Execute(ctxT(t), ins.Bind(1, map[string]any{"street": "x"})); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "ALTER TYPE rp_addr ADD city text")
	mustExec(t, s, "ALTER TABLE rp_udt ADD w int") // makes the server forget the statement
	if _, err := s.Execute(ctxT(t), ins.Bind(2, map[string]any{"street": "y"})); err != nil {
		t.Fatalf("after ALTER TYPE: %v", err)
	}
	if n := mustExec(t, s, "SELECT k FROM rp_udt WHERE k = 2").Len(); n != 1 {
		t.Fatalf("after ALTER TYPE: %d rows, want 1", n)
	}
}

// Also inside a collection: a list of a user-defined type that gained a field.
func TestReviewReprepareAfterNestedUDTGrows(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TYPE rp_naddr (street text)")
	mustExec(t, s, "CREATE TABLE rp_nudt (k int PRIMARY KEY, a list<frozen<rp_naddr>>)")
	ins := mustPrepare(t, s, "INSERT INTO rp_nudt (k, a) VALUES (?, ?)")
	v := []map[string]any{{"street": "x"}}
	if _, err := s.Execute(ctxT(t), ins.Bind(1, v)); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "ALTER TYPE rp_naddr ADD city text")
	mustExec(t, s, "ALTER TABLE rp_nudt ADD w int") // makes the server forget the statement
	if _, err := s.Execute(ctxT(t), ins.Bind(2, v)); err != nil {
		t.Fatalf("after ALTER TYPE: %v", err)
	}
	if n := mustExec(t, s, "SELECT k FROM rp_nudt WHERE k = 2").Len(); n != 1 {
		t.Fatalf("after ALTER TYPE: %d rows, want 1", n)
	}
}
