package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestPreparedTable: a statement on one table names that table and its own keyspace (not the
// session's when the query qualifies the table); other statements name none.
func TestPreparedTable(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	te.mustExec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	te.mustExec("CREATE TABLE other.u (k int PRIMARY KEY, v int)")
	for _, tc := range []struct {
		query, ks, table string
	}{
		{"SELECT v FROM t WHERE k = ?", "ks", "t"},
		{"INSERT INTO t (k, v) VALUES (?, ?)", "ks", "t"},
		{"UPDATE other.u SET v = ? WHERE k = ?", "other", "u"},
		{"DELETE FROM other.u WHERE k = ? IF EXISTS", "other", "u"},
		{"SELECT key FROM system.local", "system", "local"},
		{"BEGIN BATCH INSERT INTO t (k, v) VALUES (?, ?) APPLY BATCH", "", ""},
		{"CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY, v int)", "", ""},
	} {
		p, err := te.Prepare("ks", tc.query)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if p.TableKeyspace != tc.ks || p.Table != tc.table || p.Keyspace != "ks" {
			t.Errorf("%s: table %q.%q in keyspace %q, want %q.%q in ks", tc.query, p.TableKeyspace, p.Table, p.Keyspace, tc.ks, tc.table)
		}
	}
}

// TestReplication: the factor of SimpleStrategy, the sum of NetworkTopologyStrategy's data
// centers (and the factor of each data center asked about, 0 for those it does not name), 1
// for LocalStrategy, and an ALTER KEYSPACE is seen at once.
func TestReplication(t *testing.T) {
	te := newTestEngineIn(t, "dc1", "dc2")
	te.mustExec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	te.mustExec("CREATE KEYSPACE nts WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 3}")
	dcs := []string{"dc0", "dc1", "dc2", "dc4", "dc5"}
	for ks, want := range map[string]struct {
		rf      int
		perDC   bool
		factors []int
	}{
		"ks":            {1, false, []int{7, 7, 7, 7, 7}},
		"nts":           {5, true, []int{0, 2, 3, 0, 0}},
		"system":        {1, false, []int{7, 7, 7, 7, 7}},
		"system_traces": {2, false, []int{7, 7, 7, 7, 7}},
	} {
		factors := []int{7, 7, 7, 7, 7}
		if rf, perDC, ok := te.Replication(ks, dcs, factors); !ok || rf != want.rf || perDC != want.perDC || !slices.Equal(factors, want.factors) {
			t.Errorf("Replication(%s) = %d, %v, %v, factors %v; want %d, %v, true, %v", ks, rf, perDC, ok, factors, want.rf, want.perDC, want.factors)
		}
	}
	te.mustExec("ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	if rf, perDC, ok := te.Replication("ks", nil, nil); !ok || rf != 3 || perDC {
		t.Errorf("after ALTER: Replication(ks) = %d, %v, %v; want 3, false, true", rf, perDC, ok)
	}
	te.mustExec("ALTER KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc2': 1}")
	factors := make([]int, 2)
	if rf, perDC, ok := te.Replication("ks", dcs[1:3], factors); !ok || rf != 1 || !perDC || !slices.Equal(factors, []int{0, 1}) {
		t.Errorf("after ALTER: Replication(ks) = %d, %v, %v, factors %v; want 1, true, true, [0 1]", rf, perDC, ok, factors)
	}
	if rf, _, ok := te.Replication("nosuch", dcs, make([]int, len(dcs))); ok {
		t.Errorf("Replication(nosuch) = %d, true; want false", rf)
	}
	factors = make([]int, len(dcs))
	if n := testing.AllocsPerRun(100, func() { te.Replication("nts", dcs, factors) }); n != 0 {
		t.Errorf("Replication allocates %v times per call", n)
	}
}

// TestNetworkTopologyReplicationFactor: as in Cassandra 4.0 and later, NetworkTopologyStrategy's
// replication_factor stands for every data center of the cluster the map does not name (and is
// not stored); factors must be non-negative integers, and data centers the cluster's (unless
// their factor is 0).
func TestNetworkTopologyReplicationFactor(t *testing.T) {
	te := newTestEngineIn(t, "datacenter1", "dc9")
	te.mustExec("CREATE KEYSPACE auto WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 2}")
	te.mustExec("CREATE KEYSPACE named WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 2, 'datacenter1': 1, 'dc9': 3}")
	for ks, want := range map[string][]int{"auto": {2, 2, 0}, "named": {1, 3, 0}} {
		factors := make([]int, 3)
		if _, perDC, ok := te.Replication(ks, []string{"datacenter1", "dc9", "dc8"}, factors); !ok || !perDC || !slices.Equal(factors, want) {
			t.Errorf("%s: factors of datacenter1, dc9 and dc8 (not the cluster's) %v (per DC %v, %v), want %v", ks, factors, perDC, ok, want)
		}
		rows := te.rows("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = '" + ks + "'")
		if len(rows) != 1 || strings.Contains(rows[0], "replication_factor") || !strings.Contains(rows[0], "datacenter1") {
			t.Errorf("%s: system_schema.keyspaces has %q, want datacenter1's factor and no replication_factor", ks, rows)
		}
	}
	// As Cassandra: an ALTER's replication_factor keeps the factors the keyspace had, a map
	// naming no data center takes the previous replication_factor (or 1), and 0 is not stored.
	te.mustExec("CREATE KEYSPACE alt WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 3}")
	te.mustExec("CREATE KEYSPACE simple WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
	te.mustExec("CREATE KEYSPACE empty WITH replication = {'class': 'NetworkTopologyStrategy'}")
	te.mustExec("CREATE KEYSPACE zero WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 0, 'dc9': 1, 'dc8': 0}")
	te.mustExec("ALTER KEYSPACE alt WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1}")
	te.mustExec("ALTER KEYSPACE simple WITH replication = {'class': 'NetworkTopologyStrategy'}")
	for ks, want := range map[string]string{
		"alt":    "{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'datacenter1': '3', 'dc9': '1'}",
		"simple": "{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'datacenter1': '2', 'dc9': '2'}",
		"empty":  "{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'datacenter1': '1', 'dc9': '1'}",
		"zero":   "{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'dc9': '1'}",
	} {
		if got := te.rows("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = '" + ks + "'"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: replication %q, want %s", ks, got, want)
		}
	}
	// The errors as Cassandra 5.0 words them (checked against 5.0.9).
	for bad, want := range map[string]string{
		"'dc1': -1":                       "Replication factor must be non-negative, found -1",
		"'dc1': 'x'":                      `For input string: "x"`,
		"'replication_factor': 'two'":     `For input string: "two"`,
		"'datacenter1': 1, 'dc7': 1":      "Unrecognized strategy option {dc7} passed to NetworkTopologyStrategy for keyspace bad",
		"'bbb': 1, 'aaa': 1":              "Unrecognized strategy option {aaa} passed to NetworkTopologyStrategy for keyspace bad",
		"'replication_factor': 1, 'b': 2": "Unrecognized strategy option {b} passed to NetworkTopologyStrategy for keyspace bad",
	} {
		q := "CREATE KEYSPACE bad WITH replication = {'class': 'NetworkTopologyStrategy', " + bad + "}"
		if _, err := te.exec(q); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", q, err, want)
		}
	}
	if _, err := te.exec("ALTER KEYSPACE alt WITH replication = {'class': 'NetworkTopologyStrategy', 'dcZ': 1}"); err == nil ||
		err.Error() != "Unrecognized strategy option {dcZ} passed to NetworkTopologyStrategy for keyspace alt" {
		t.Errorf("ALTER to an unknown data center: error %v", err)
	}
}

// TestSimpleStrategyOptions: as in Cassandra 5.0, SimpleStrategy without a replication_factor
// takes the default keyspace factor (1), and a negative factor is refused in Cassandra's words.
func TestSimpleStrategyOptions(t *testing.T) {
	te := newTestEngine(t)
	te.mustExec("CREATE KEYSPACE dflt WITH replication = {'class': 'SimpleStrategy'}")
	want := "{'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '1'}"
	if got := te.rows("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = 'dflt'"); len(got) != 1 || got[0] != want {
		t.Errorf("replication %q, want %s", got, want)
	}
	if rf, _, ok := te.Replication("dflt", nil, nil); !ok || rf != 1 {
		t.Errorf("Replication(dflt) = %d, %v; want 1, true", rf, ok)
	}
	_, err := te.exec("CREATE KEYSPACE neg WITH replication = {'class': 'SimpleStrategy', 'replication_factor': -1}")
	if want := "Replication factor must be non-negative, found -1"; err == nil || err.Error() != want {
		t.Errorf("negative factor: error %v, want %q", err, want)
	}
}
