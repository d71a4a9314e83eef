package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestElementSelection: m[key] is a map's value (a set's element) or null, m[from..to] the
// entries whose keys lie within the bounds (both included, either open), as in Cassandra 5.0
// (the differential test compares names, values and errors with Cassandra's).
func TestElementSelection(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE el (k int PRIMARY KEY, m map<text, int>, s set<int>, l list<int>)")
	te.mustExec("INSERT INTO el (k, m, s, l) VALUES (1, {'a': 1, 'b': 2, 'c': 3}, {1, 5, 9}, [1])")
	r := te.mustExec("SELECT m['b'], m['z'], s[5], m['a'..'b'], m['b'..], s[..5], s[6..7] FROM el WHERE k = 1")
	var names []string
	for _, c := range r.Columns {
		names = append(names, c.Name)
	}
	if want := []string{"m['b']", "m['z']", "s[5]", "m['a'..'b']", "m['b'..]", "s[..5]", "s[6..7]"}; !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
	if got, want := render(r), []string{"2|null|5|{'a': 1, 'b': 2}|{'b': 2, 'c': 3}|{1, 5}|null"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	te.wantInvalid(map[string]string{
		"SELECT l[0] FROM el": "Element selection is only allowed on sets and maps, but l is a list",
		"SELECT k[0] FROM el": "Invalid element selection: k is of type int is not a collection",
	})
}

// TestMapEntryRestriction: m[key] = value selects the rows whose map has that entry; it needs
// ALLOW FILTERING unless an entries() index serves it; only equality, only on maps that are
// not frozen (the differential test compares the filtering queries and errors with Cassandra's).
func TestMapEntryRestriction(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE me (k int PRIMARY KEY, m map<text, int>, fm frozen<map<int, int>>)")
	te.mustExec("INSERT INTO me (k, m) VALUES (1, {'a': 1, 'b': 2})")
	te.mustExec("INSERT INTO me (k, m) VALUES (2, {'b': 5})")
	te.mustExec("INSERT INTO me (k) VALUES (3)")
	if got := te.rows("SELECT k FROM me WHERE m['b'] = 2 ALLOW FILTERING"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("m['b'] = 2: %q", got)
	}
	if code, msg := te.errCode("SELECT k FROM me WHERE m['b'] = 2"); code != CodeInvalid || !strings.Contains(msg, "ALLOW FILTERING") {
		t.Errorf("without ALLOW FILTERING: %v %q", code, msg)
	}
	te.mustExec("CREATE INDEX ON me (entries(m))")
	if got := te.rows("SELECT k FROM me WHERE m['b'] = 5"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("through the entries index: %q", got)
	}
	te.wantInvalid(map[string]string{
		"SELECT k FROM me WHERE m['b'] > 1 ALLOW FILTERING": "Only EQ relations are supported on map entries",
		"SELECT k FROM me WHERE fm[1] = 1 ALLOW FILTERING":  "Map-entry equality predicates on frozen map column fm are not supported",
		"SELECT k FROM me WHERE k[1] = 1 ALLOW FILTERING":   "Column k cannot be used as a map",
	})
}
