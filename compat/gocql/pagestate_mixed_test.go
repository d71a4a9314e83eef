package gocql_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPageStateAcrossDrivers resumes, with compat, paging started with gocql v1.7.0, and the
// other way round, as the instances of an application migrated one at a time do when a
// client's cursor (a page state handed out with a page) comes back to an instance running
// the other driver: a scan whose pages alternate between the drivers reads every row once,
// in the order either driver alone reads them, and compat hands out the page states gocql
// does, byte for byte.
func TestPageStateAcrossDrivers(t *testing.T) {
	p := newDiffPair(t, "CREATE TABLE KS.review_psx (p int, c int, v text, PRIMARY KEY (p, c))")
	for part := 0; part < 3; part++ {
		for c := 0; c < 7; c++ {
			if err := p.legacy.Query("INSERT INTO review_psx (p, c, v) VALUES (?, ?, ?)", part, c, fmt.Sprint(part, "/", c)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	const scan = "SELECT v FROM review_psx"
	// page reads one page of stmt from state with gocql (legacy) or compat, and returns its
	// rows and the state of the page after it.
	page := func(legacy bool, stmt string, state []byte, values ...any) (rows []string, next []byte) {
		t.Helper()
		var v string
		var err error
		if legacy {
			it := p.legacy.Query(stmt, values...).PageSize(4).PageState(state).Iter()
			next = it.PageState()
			for it.Scan(&v) {
				rows = append(rows, v)
			}
			err = it.Close()
		} else {
			it := p.compat.Query(stmt, values...).PageSize(4).PageState(state).Iter()
			next = it.PageState()
			for it.Scan(&v) {
				rows = append(rows, v)
			}
			err = it.Close()
		}
		if err != nil {
			t.Fatalf("%s (legacy %v): %v", stmt, legacy, err)
		}
		return rows, next
	}
	// all reads every row of stmt a page at a time, the driver of each page given by turn.
	all := func(turn func(i int) bool, stmt string, values ...any) (rows []string, states [][]byte) {
		t.Helper()
		var state []byte
		for i := 0; i < 20; i++ {
			r, next := page(turn(i), stmt, state, values...)
			rows = append(rows, r...)
			if len(next) == 0 {
				return rows, states
			}
			states = append(states, next)
			state = next
		}
		t.Fatalf("%s: no last page after 20 pages", stmt)
		return nil, nil
	}
	legacyRows, _ := all(func(int) bool { return true }, scan)
	if len(legacyRows) != 21 {
		t.Fatalf("gocql read %d rows, want 21: %v", len(legacyRows), legacyRows)
	}
	for name, turn := range map[string]func(int) bool{
		"compat alone":                func(int) bool { return false },
		"gocql first, then by turns":  func(i int) bool { return i%2 == 0 },
		"compat first, then by turns": func(i int) bool { return i%2 == 1 },
	} {
		rows, _ := all(turn, scan)
		if d := cmp.Diff(legacyRows, rows); d != "" {
			t.Errorf("%s: rows differ from gocql's alone (-gocql +%s):\n%s", name, name, d)
		}
	}
	// In one partition the pages have one coordinator's states whatever the cluster.
	const part = "SELECT v FROM review_psx WHERE p = ?"
	_, legacyStates := all(func(int) bool { return true }, part, 1)
	_, compatStates := all(func(int) bool { return false }, part, 1)
	if len(legacyStates) != 1 || len(compatStates) != len(legacyStates) || !bytes.Equal(legacyStates[0], compatStates[0]) {
		t.Errorf("page states of one partition: gocql %x, compat %x", legacyStates, compatStates)
	}
}
