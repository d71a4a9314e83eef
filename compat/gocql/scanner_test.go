package gocql

import (
	"errors"
	"testing"
)

// TestScannerMovesToNextPageIter: like gocql v1.7.0, a Scanner that crosses a page boundary
// moves on to the next page's *Iter and leaves the *Iter it came from on the first page.
func TestScannerMovesToNextPageIter(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 7)
	it := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(3).Iter()
	first := it.PageState()
	sc := it.Scanner()
	var rows, numRows []int
	var c int
	for sc.Next() {
		if err := sc.Scan(&c); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, c)
		numRows = append(numRows, it.NumRows())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[0] != 1 || rows[6] != 7 {
		t.Fatalf("rows = %v, want 1..7", rows)
	}
	for i, n := range numRows {
		if n != 3 {
			t.Fatalf("the original Iter's NumRows at row %d = %d, want 3 (the first page's) throughout: %v", i+1, n, numRows)
		}
	}
	if string(it.PageState()) != string(first) || len(first) == 0 || !it.WillSwitchPage() {
		t.Fatalf("the original Iter left its first page: state %x (was %x), WillSwitchPage %v", it.PageState(), first, it.WillSwitchPage())
	}
	if err := it.Close(); err != nil {
		t.Fatalf("original Close = %v", err)
	}
}

// TestScannerNextPageFailure: a failed page fetch ends the Scanner, Err reports it, and the
// first page's *Iter (which the Scanner left) has no error, as in gocql v1.7.0.
func TestScannerNextPageFailure(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 4)
	it := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).Prefetch(0).Iter()
	sc := it.Scanner()
	var c int
	for i := 0; i < 2; i++ {
		if !sc.Next() {
			t.Fatal(sc.Err())
		}
		if err := sc.Scan(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Query("DROP TABLE kv").Exec(); err != nil {
		t.Fatal(err)
	}
	if sc.Next() {
		t.Fatal("Next succeeded after the next page failed")
	}
	var re RequestError
	if err := sc.Err(); !errors.As(err, &re) || (re.Code() != ErrCodeInvalid && re.Code() != ErrCodeUnprepared) {
		t.Fatalf("Scanner.Err = %T %v, want the server's error", err, err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("the first page's Iter reports %v; gocql leaves it without error", err)
	}
	if it.NumRows() != 2 {
		t.Fatalf("the first page's Iter has NumRows %d, want 2", it.NumRows())
	}
}
