package native_test

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// metadataIDSessions starts a one-node cqlsim cluster, emulating ScyllaDB (which offers
// SCYLLA_USE_METADATA_ID) when scylla is set, creates the table mi.kv (k int PRIMARY KEY,
// v text) with the row (1, 'x'), and returns a session that counts its re-prepares (see
// Attempt.Reprepare) and a second session.
func metadataIDSessions(t *testing.T, scylla bool) (s, other *native.Session, reprepares *atomic.Int64) {
	t.Helper()
	reprepares = new(atomic.Int64)
	opts := cqlsim.Options{}
	if scylla {
		opts.Shards = 2
	}
	cl, s := simClusterSession(t, opts, func(c *native.Config) {
		c.Observer = func(_ context.Context, a native.Attempt) {
			if a.Reprepare {
				reprepares.Add(1)
			}
		}
	})
	other, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	mustExec(t, s, "CREATE KEYSPACE mi WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE mi.kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO mi.kv (k, v) VALUES (1, 'x')")
	return s, other, reprepares
}

// alterUnder prepares sel's statement in s and runs it, changes the table with the alter
// statements, and has other prepare the statement again (so that the node's statement has the
// new result columns while s still holds the old ones); it returns the statement and resets
// the re-prepare count.
func alterUnder(t *testing.T, s, other *native.Session, reprepares *atomic.Int64, alter ...string) *native.Prepared {
	t.Helper()
	const cql = "SELECT * FROM mi.kv WHERE k = ?"
	sel := mustPrepare(t, s, cql)
	execT(t, s, sel.Bind(1))
	for _, a := range alter {
		mustExec(t, s, a)
	}
	execT(t, other, mustPrepare(t, other, cql).Bind(1))
	reprepares.Store(0)
	return sel
}

// On ScyllaDB, with SCYLLA_USE_METADATA_ID negotiated at v4, a prepared SELECT * whose table
// gained a column that another client prepared again gets the new columns from the node
// (Metadata_changed, with the new result metadata id) and is not prepared again. Without the
// extension (a plain cqlsim node), the rows come without metadata, their column count shows
// the change, and the session prepares the statement again.
func TestMetadataIDColumnAdded(t *testing.T) {
	onScyllaAndPlain(t, func(t *testing.T, scylla bool) {
		s, other, reprepares := metadataIDSessions(t, scylla)
		sel := alterUnder(t, s, other, reprepares, "ALTER TABLE mi.kv ADD w int", "UPDATE mi.kv SET w = 7 WHERE k = 1")
		if id := native.ResultMetadataID(sel); (len(id) != 0) != scylla {
			t.Fatalf("result metadata id %x after PREPARE", id)
		}
		for i := range 3 {
			res := execT(t, s, sel.Bind(1))
			m, err := mustRow(t, res, 0).Map()
			if err != nil {
				t.Fatal(err)
			}
			if m["w"] != int32(7) || m["v"] != "x" || len(res.Columns()) != 3 || len(sel.Columns()) != 3 {
				t.Fatalf("execution %d after ALTER: row %v, result columns %v, prepared columns %v", i, m, res.Columns(), sel.Columns())
			}
		}
		want := int64(1) // errStaleMetadata: the column count changed
		if scylla {
			want = 0
		}
		if n := reprepares.Load(); n != want {
			t.Errorf("%d re-prepares after the column was added, want %d", n, want)
		}
	})
}

// A column dropped and another of another type added keep the column count: at v4 without the
// extension nothing tells the session that the columns changed, and it reads the new int
// column as the old text one. With SCYLLA_USE_METADATA_ID the node answers the outdated id
// with the new metadata, which the session adopts: the values decode with their new type.
func TestMetadataIDSameColumnCount(t *testing.T) {
	onScyllaAndPlain(t, func(t *testing.T, scylla bool) {
		s, other, reprepares := metadataIDSessions(t, scylla)
		sel := alterUnder(t, s, other, reprepares, "ALTER TABLE mi.kv DROP v", "ALTER TABLE mi.kv ADD n int", "UPDATE mi.kv SET n = 7 WHERE k = 1")
		before := native.ResultMetadataID(sel)
		for i := range 2 {
			res := execT(t, s, sel.Bind(1))
			cols := res.Columns()
			if len(cols) != 2 {
				t.Fatalf("execution %d: columns %v", i, cols)
			}
			if !scylla {
				// The limitation the extension removes: the old columns, no error.
				if cols[1].Name != "v" || reprepares.Load() != 0 {
					t.Fatalf("without the extension: columns %v, %d re-prepares; want the stale columns k, v (the column count did not change)", cols, reprepares.Load())
				}
				return
			}
			m, err := mustRow(t, res, 0).Map()
			if err != nil {
				t.Fatal(err)
			}
			if cols[1].Name != "n" || m["n"] != int32(7) || len(m) != 2 || sel.Columns()[1].Name != "n" {
				t.Fatalf("execution %d after DROP and ADD: row %v, result columns %v, prepared columns %v", i, m, cols, sel.Columns())
			}
		}
		if after := native.ResultMetadataID(sel); len(after) == 0 || bytes.Equal(after, before) {
			t.Errorf("result metadata id %x after the change, was %x: want the new one adopted", after, before)
		}
		if n := reprepares.Load(); n != 0 {
			t.Errorf("%d re-prepares, want none", n)
		}
	})
}

// A statement prepared where result metadata ids are not in use has none; executed on a
// connection that negotiated SCYLLA_USE_METADATA_ID it sends an empty one, which the node
// answers with the current id and the full metadata, and the session adopts both.
func TestMetadataIDMissing(t *testing.T) {
	s, _, reprepares := metadataIDSessions(t, true)
	sel := mustPrepare(t, s, "SELECT * FROM mi.kv WHERE k = ?")
	want := native.ResultMetadataID(sel)
	native.DropResultMetadataID(sel)
	for i := range 2 {
		res := execT(t, s, sel.Bind(1))
		if m, err := mustRow(t, res, 0).Map(); err != nil || m["v"] != "x" || len(res.Columns()) != 2 {
			t.Fatalf("execution %d: row %v (%v), columns %v", i, m, err, res.Columns())
		}
		if got := native.ResultMetadataID(sel); len(want) == 0 || !bytes.Equal(got, want) {
			t.Fatalf("execution %d: result metadata id %x, want the node's %x", i, got, want)
		}
	}
	if n := reprepares.Load(); n != 0 {
		t.Errorf("%d re-prepares, want none", n)
	}
}

// onScyllaAndPlain runs test as subtests "scylla" (a sharded cqlsim node, which offers
// SCYLLA_USE_METADATA_ID) and "plain" (one that does not).
func onScyllaAndPlain(t *testing.T, test func(t *testing.T, scylla bool)) {
	for _, scylla := range []bool{true, false} {
		name := "scylla"
		if !scylla {
			name = "plain"
		}
		t.Run(name, func(t *testing.T) { test(t, scylla) })
	}
}
