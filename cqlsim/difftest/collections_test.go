package difftest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// malformedCollectionSteps binds malformed list, set and map values (sent as raw bytes): too short,
// with a negative element count, with bytes after the last element, and with null or unset
// elements, which Cassandra 5.0.9 refuses with a server error in a list and as invalid in a
// set or map.
func malformedCollectionSteps() []Step {
	steps := []Step{
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TABLE {ks}.c (k int PRIMARY KEY, li list<int>, fl frozen<list<int>>, si set<int>, mi map<int, int>, ll list<frozen<list<int>>>)"},
	}
	for i, c := range []struct {
		col string
		v   boundBytes
		ok  bool
	}{
		{"li", boundBytes{}, false}, {"li", boundBytes{0, 0}, false}, {"li", boundBytes{0, 0, 0, 1}, false},
		{"li", boundBytes{0, 0, 0, 1, 0, 0, 0, 4, 0}, false}, {"li", boundBytes{0, 0, 0, 0, 1}, false},
		{"li", boundBytes{0xff, 0xff, 0xff, 0xff}, false}, {"li", boundBytes{0x7f, 0xff, 0xff, 0xff}, false},
		{"li", boundBytes{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, false}, {"li", boundBytes{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}, false},
		{"li", boundBytes{0, 0, 0, 1, 0, 0, 0, 9, 1}, false}, {"li", boundBytes{0, 0, 0, 0}, true},
		{"fl", boundBytes{}, false}, {"fl", boundBytes{0, 0, 0, 1, 0, 0, 0, 2, 0, 1}, false},
		{"si", boundBytes{}, false}, {"si", boundBytes{0xff, 0xff, 0xff, 0xfe, 0, 0}, false}, {"si", boundBytes{0, 0, 0, 0, 1}, false},
		{"si", boundBytes{0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, false},
		{"mi", boundBytes{}, false}, {"mi", boundBytes{0xff, 0xff, 0xff, 0xff}, false}, {"mi", boundBytes{0, 0, 0, 0, 1}, false},
		{"mi", boundBytes{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1}, false},
		{"mi", boundBytes{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 2}, false},
		{"mi", boundBytes{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, false},
		{"mi", boundBytes{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 4, 0, 0, 0, 1}, false},
		{"ll", boundBytes{0, 0, 0, 1, 0, 0, 0, 0}, false}, {"ll", boundBytes{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, false},
		{"ll", boundBytes{0, 0, 0, 1, 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7}, true},
	} {
		// A list with a null (or negative-length) element makes Cassandra 5.0.9 answer a server
		// error from a NullPointerException, whose message is the JVM's helpful text on some runs
		// and the bare class name on others (once the JIT throws its preallocated exception):
		// only the code is compared there.
		npe := (c.col == "li" || c.col == "ll") && len(c.v) == 8 && c.v[4] == 0xff
		steps = append(steps, Step{Query: "INSERT INTO {ks}.c (k, " + c.col + ") VALUES (?, ?)", Args: []any{i, c.v}, WantErr: !c.ok, CodeOnly: npe})
	}
	return append(steps, Step{Query: "SELECT * FROM {ks}.c", Sorted: true})
}

// TestMalformedCollections compares how cqlsim and a real Cassandra node refuse malformed
// bound collection values.
func TestMalformedCollections(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	steps := malformedCollectionSteps()
	want := Run(session(t, hosts[0]), ks, steps)
	sim := cqlsim.StartT(t, cqlsim.Options{})
	got := Run(session(t, sim.Addrs()[0]), ks, steps)
	for i := range steps {
		if (want[i].Error != "") != steps[i].WantErr {
			t.Errorf("step %d on Cassandra: %+v", i, want[i])
		}
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("step %d (%s %x): Cassandra (-) vs cqlsim (+):\n%s", i, want[i].Query, steps[i].Args, d)
		}
	}
}
