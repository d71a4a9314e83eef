package cqlsim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

func lwwSession(t *testing.T) (*native.Session, func(string) *native.Result) {
	t.Helper()
	c := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs(), DisablePeerDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	exec := func(q string) *native.Result {
		t.Helper()
		r, err := s.Execute(ctx, native.Query(q))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return r
	}
	exec("CREATE KEYSPACE rv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	return s, exec
}

// A full overwrite of a non-frozen collection is, in Cassandra, a collection tombstone at
// timestamp-1 plus one cell per element at the timestamp (Maps/Sets/Lists.Setter:
// setComplexDeletionTimeForOverwrite). Element writes at the same timestamp (same BATCH)
// therefore survive it, and the overwrite's own elements are always written.
func TestCollectionOverwriteKeepsSameTimestampElements(t *testing.T) {
	_, exec := lwwSession(t)
	exec("CREATE TABLE rv.c (k int PRIMARY KEY, m map<int, int>, s set<int>, l list<int>)")
	exec("BEGIN BATCH UPDATE rv.c SET m[2] = 2 WHERE k = 1; UPDATE rv.c SET m = {1: 1} WHERE k = 1; APPLY BATCH")
	exec("BEGIN BATCH UPDATE rv.c SET s = s + {2} WHERE k = 2; INSERT INTO rv.c (k, s) VALUES (2, {1}); APPLY BATCH")
	// list elements keep the order they were written in
	exec("BEGIN BATCH UPDATE rv.c SET l = l + [2] WHERE k = 3; UPDATE rv.c SET l = [1] WHERE k = 3; APPLY BATCH")
	exec("BEGIN BATCH UPDATE rv.c SET l = [3] WHERE k = 4; UPDATE rv.c SET l = l + [4] WHERE k = 4; APPLY BATCH")
	for q, want := range map[string]string{
		"SELECT toJson(m) FROM rv.c WHERE k = 1": `{"1": 1, "2": 2}`,
		"SELECT toJson(s) FROM rv.c WHERE k = 2": `[1, 2]`,
		"SELECT toJson(l) FROM rv.c WHERE k = 3": `[2, 1]`,
		"SELECT toJson(l) FROM rv.c WHERE k = 4": `[3, 4]`,
	} {
		row, ok := exec(q).First()
		if !ok {
			t.Fatalf("%s: no row", q)
		}
		var got string
		if err := row.Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s (Cassandra 5.0)", q, got, want)
		}
	}
}

// Elements of a non-frozen collection are separate cells in Cassandra, each reconciled by its
// own timestamp: an element tombstone shadows only element cells not newer than it (and wins a
// timestamp tie), and an element write is shadowed only by a newer tombstone of it or of the
// collection, whatever the timestamps of the other elements.
func TestCollectionElementsReconcileByOwnTimestamp(t *testing.T) {
	_, exec := lwwSession(t)
	exec("CREATE TABLE rv.e (k int PRIMARY KEY, m map<int, int>, s set<int>)")
	for _, q := range []string{
		// k=1: an element deletion older than the element must not remove it
		"UPDATE rv.e USING TIMESTAMP 100 SET m = {1: 1} WHERE k = 1",
		"DELETE m[1] FROM rv.e USING TIMESTAMP 50 WHERE k = 1",
		// k=2: an element write newer than the collection's tombstone (99) is kept even
		// though another element is newer still
		"UPDATE rv.e USING TIMESTAMP 100 SET m = {1: 1} WHERE k = 2",
		"UPDATE rv.e USING TIMESTAMP 300 SET m[2] = 2 WHERE k = 2",
		"UPDATE rv.e USING TIMESTAMP 200 SET m[3] = 3 WHERE k = 2",
		// k=3: same timestamp, tombstone wins whatever the order in the batch
		"BEGIN BATCH UPDATE rv.e SET s = s - {2} WHERE k = 3; UPDATE rv.e SET s = s + {1, 2} WHERE k = 3; APPLY BATCH",
	} {
		exec(q)
	}
	for q, want := range map[string]string{
		"SELECT toJson(m) FROM rv.e WHERE k = 1": `{"1": 1}`,
		"SELECT toJson(m) FROM rv.e WHERE k = 2": `{"1": 1, "2": 2, "3": 3}`,
		"SELECT toJson(s) FROM rv.e WHERE k = 3": `[1]`,
	} {
		row, ok := exec(q).First()
		got := "<no row>"
		if ok {
			if err := row.Scan(&got); err != nil {
				t.Fatal(err)
			}
		}
		if got != want {
			t.Errorf("%s = %s, want %s (Cassandra 5.0)", q, got, want)
		}
	}
}

// A corrupted paging state whose clustering value has the wrong size for the column type
// (1 byte for an int) makes the engine panic in compareValues (binary.BigEndian.Uint32 on a
// 1-byte slice); serve recovers it into SERVER_ERROR. Cassandra refuses a paging state it
// cannot read as an invalid request (or protocol error), and so should cqlsim.
func TestPagingStateWithBadClusteringIsInvalid(t *testing.T) {
	s, exec := lwwSession(t)
	exec("CREATE TABLE rv.p (k int, c int, v int, PRIMARY KEY (k, c))")
	exec("INSERT INTO rv.p (k, c, v) VALUES (1, 1, 1)")
	exec("INSERT INTO rv.p (k, c, v) VALUES (1, 2, 2)")
	ps := []byte{1, 0, 0, 0, 4, 0, 0, 0, 1} // version 1, partition key [bytes] = int 1
	ps = append(ps, 0, 0, 0, 1)             // one clustering value
	ps = append(ps, 0, 0, 0, 1, 0x07)       // [bytes] of length 1: not an int
	ps = append(ps, 0)                      // not static
	ps = append(ps, make([]byte, 16)...)    // returned, per-partition count
	_, err := s.Execute(context.Background(), native.Query("SELECT * FROM rv.p WHERE k = 1").WithPageSize(1).WithPagingState(ps))
	if err == nil {
		t.Fatal("corrupted paging state accepted")
	}
	if strings.Contains(err.Error(), "internal error") || strings.Contains(strings.ToLower(err.Error()), "server") {
		t.Errorf("corrupted paging state: %v; want an invalid request error", err)
	}
}

// Cassandra refuses an unset value in an LWT condition ("Invalid 'unset' value in condition",
// ColumnCondition; InsertUpdateIfConditionTest.testConditionalUpdate). cqlsim treats the
// condition as true and applies the update.
func TestUnsetValueInConditionIsInvalid(t *testing.T) {
	s, exec := lwwSession(t)
	exec("CREATE TABLE rv.u (k int PRIMARY KEY, v int, w int)")
	exec("INSERT INTO rv.u (k, v, w) VALUES (0, 1, 1)")
	ctx := context.Background()
	for _, q := range []string{
		"UPDATE rv.u SET w = 2 WHERE k = 0 IF v = ?",
		"UPDATE rv.u SET w = 3 WHERE k = 0 IF v IN ?",
	} {
		r, err := s.Execute(ctx, native.Query(q, native.Unset))
		if err == nil {
			t.Errorf("%s with unset: applied=%v, want Invalid 'unset' value in condition", q, r.Applied())
		}
	}
	// In an IN list Cassandra drops unset values: IF z IN (unset, 5) is IF z IN (5), false
	// for a null z.
	exec("ALTER TABLE rv.u ADD z int")
	if r, err := s.Execute(ctx, native.Query("UPDATE rv.u SET w = 4 WHERE k = 0 IF z IN (?, 5)", native.Unset)); err != nil || r.Applied() {
		t.Errorf("IF z IN (unset, 5) with z null: err=%v, applied=%v; want not applied", err, err == nil && r.Applied())
	}
	row, _ := exec("SELECT w FROM rv.u WHERE k = 0").First()
	var w int
	row.Scan(&w)
	if w != 1 {
		t.Errorf("w = %d after updates whose condition was unset, want 1", w)
	}
}

// Cassandra (ModificationStatement.validate): "Cannot provide custom timestamp for counter updates".
func TestCounterUpdateRefusesCustomTimestamp(t *testing.T) {
	s, exec := lwwSession(t)
	exec("CREATE TABLE rv.n (k int PRIMARY KEY, c counter)")
	if _, err := s.Execute(context.Background(), native.Query("UPDATE rv.n USING TIMESTAMP 5 SET c = c + 1 WHERE k = 1")); err == nil {
		t.Error("counter update USING TIMESTAMP accepted")
	}
}
