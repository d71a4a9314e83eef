package engine

import "testing"

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

// TestReplicationFactor: the factor of SimpleStrategy, the sum of NetworkTopologyStrategy's
// data centers, 1 for LocalStrategy, and an ALTER KEYSPACE is seen at once.
func TestReplicationFactor(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE KEYSPACE nts WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 3}")
	for ks, want := range map[string]int{"ks": 1, "nts": 5, "system": 1, "system_traces": 2} {
		if got, ok := te.ReplicationFactor(ks); !ok || got != want {
			t.Errorf("ReplicationFactor(%s) = %d, %v; want %d", ks, got, ok, want)
		}
	}
	te.mustExec("ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	if got, ok := te.ReplicationFactor("ks"); !ok || got != 3 {
		t.Errorf("after ALTER: ReplicationFactor(ks) = %d, %v; want 3", got, ok)
	}
	if got, ok := te.ReplicationFactor("nosuch"); ok {
		t.Errorf("ReplicationFactor(nosuch) = %d, true; want false", got)
	}
}
