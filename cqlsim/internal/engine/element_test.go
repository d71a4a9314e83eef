package engine

import (
	"slices"
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
	for q, msg := range map[string]string{
		"SELECT l[0] FROM el": "Element selection is only allowed on sets and maps, but l is a list",
		"SELECT k[0] FROM el": "Invalid element selection: k is of type int is not a collection",
	} {
		if code, got := te.errCode(q); code != CodeInvalid || got != msg {
			t.Errorf("%s: %v %q, want %q", q, code, got, msg)
		}
	}
}
