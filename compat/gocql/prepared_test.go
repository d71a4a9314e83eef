package gocql

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A prepared SELECT * whose table changed under it, keeping its column count, reads the rows
// with the new columns: the converted metadata follows the native core's re-prepared
// metadata (gocql v1.7.0 prepares again and reports the new columns too).
func TestPreparedSelectStarAfterAlterTable(t *testing.T) {
	s, _ := newTestSession(t, "CREATE TABLE KS.al (id int PRIMARY KEY, a int)")
	if err := s.Query("INSERT INTO al (id, a) VALUES (1, 7)").Exec(); err != nil {
		t.Fatal(err)
	}
	const sel = "SELECT * FROM al WHERE id = ?"
	var id, a int
	if err := s.Query(sel, 1).Scan(&id, &a); err != nil || id != 1 || a != 7 {
		t.Fatalf("before ALTER: %d %d %v", id, a, err)
	}
	for _, stmt := range []string{
		"ALTER TABLE al DROP a",
		"ALTER TABLE al ADD b text",
		"UPDATE al SET b = 'hello' WHERE id = 1",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}

	iter := s.Query(sel, 1).Iter()
	var cols []string
	for _, c := range iter.Columns() {
		cols = append(cols, fmt.Sprintf("%s:%s", c.Name, c.TypeInfo.Type()))
	}
	if got := strings.Join(cols, " "); got != "id:int b:varchar" {
		t.Errorf("columns after ALTER = %s, want id:int b:varchar", got)
	}
	var x int
	var b string
	if !iter.Scan(&x, &b) || x != 1 || b != "hello" {
		t.Errorf("Scan after ALTER = %d %q, want 1 \"hello\"", x, b)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}

	m := map[string]interface{}{}
	if err := s.Query(sel, 1).MapScan(m); err != nil || len(m) != 2 || m["id"] != 1 || m["b"] != "hello" {
		t.Errorf("MapScan after ALTER = %v, %v; want map[b:hello id:1]", m, err)
	}

	var y int
	err := s.Query(sel, 1).Scan(&x, &y)
	var ue UnmarshalError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "can not unmarshal varchar into *int") {
		t.Errorf("Scan of the text column into *int: %v (y = %d), want gocql's unmarshal error", err, y)
	}
}

// A tuple value binds to a tuple bind marker, in a query and in a batch, and a wrong number of
// values is an error, never a panic (gocql v1.7.0 counts the tuple's elements as values and
// then panics, see docs/deviations.md G23).
func TestTupleBindMarker(t *testing.T) {
	s, _ := newTestSession(t, "CREATE TABLE KS.tt (id int PRIMARY KEY, tp tuple<int, text>)")
	read := func(id int) (int, string) {
		t.Helper()
		var n int
		var str string
		if err := s.Query("SELECT tp FROM tt WHERE id = ?", id).Scan(&n, &str); err != nil {
			t.Fatalf("reading row %d: %v", id, err)
		}
		return n, str
	}

	// Values counted as gocql v1.7.0 counts them (one per tuple element): an error, where
	// gocql either fails to marshal or panics reading past the bind markers.
	for _, values := range [][]interface{}{{5, "e"}, {[]interface{}{5, "e"}, "x"}} {
		err := s.Query("UPDATE tt SET tp = ? WHERE id = 5", values...).Exec()
		if err == nil || err.Error() != "gocql: expected 1 values send got 2" {
			t.Errorf("values %v for one tuple marker: %v", values, err)
		}
		bad := s.NewBatch(LoggedBatch)
		bad.Query("UPDATE tt SET tp = ? WHERE id = 5", values...)
		err = s.ExecuteBatch(bad)
		if err == nil || err.Error() != "gocql: batch statement 0 expected 1 values send got 2" {
			t.Errorf("batch with values %v for one tuple marker: %v", values, err)
		}
	}

	if err := s.Query("UPDATE tt SET tp = ? WHERE id = 1", []interface{}{1, "a"}).Exec(); err != nil {
		t.Fatalf("binding a slice to the tuple marker: %v", err)
	}
	if n, str := read(1); n != 1 || str != "a" {
		t.Errorf("row 1 tp = (%d, %q), want (1, \"a\")", n, str)
	}
	type pair struct {
		N int
		S string
	}
	if err := s.Query("INSERT INTO tt (id, tp) VALUES (?, ?)", 2, pair{2, "b"}).Exec(); err != nil {
		t.Fatalf("binding a struct to the tuple marker: %v", err)
	}
	if n, str := read(2); n != 2 || str != "b" {
		t.Errorf("row 2 tp = (%d, %q), want (2, \"b\")", n, str)
	}

	b := s.NewBatch(LoggedBatch)
	b.Query("UPDATE tt SET tp = ? WHERE id = 3", []interface{}{3, "c"})
	b.Query("INSERT INTO tt (id, tp) VALUES (?, ?)", 4, [2]interface{}{4, "d"})
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatalf("batch binding tuple markers: %v", err)
	}
	if n, str := read(3); n != 3 || str != "c" {
		t.Errorf("row 3 tp = (%d, %q), want (3, \"c\")", n, str)
	}
	if n, str := read(4); n != 4 || str != "d" {
		t.Errorf("row 4 tp = (%d, %q), want (4, \"d\")", n, str)
	}

	if err := s.Query("INSERT INTO tt (id, tp) VALUES (?, ?)", 6).Exec(); err == nil || err.Error() != "gocql: expected 2 values send got 1" {
		t.Errorf("one value for two markers: %v", err)
	}
}
