package scenarios

import "testing"

// The runner keys traces by scenario name: of two scenarios with one name, only the last one's
// traces would be compared, under both records.
func TestNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range All() {
		if seen[s.Name] {
			t.Errorf("two scenarios are named %s", s.Name)
		}
		seen[s.Name] = true
	}
}
