package native

import (
	"math"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/internal/topology"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

func tabletOf(first, last int64, hosts ...byte) proto.Tablet {
	t := proto.Tablet{FirstToken: first, LastToken: last}
	for i, h := range hosts {
		t.Replicas = append(t.Replicas, proto.TabletReplica{HostID: [16]byte{15: h}, Shard: i})
	}
	return t
}

// ranges lists the table's tablets as [first, last] pairs, in order.
func ranges(t *tabletTable) [][2]int64 {
	var out [][2]int64
	if p := t.list.Load(); p != nil {
		for _, tb := range *p {
			out = append(out, [2]int64{tb.FirstToken, tb.LastToken})
		}
	}
	return out
}

func TestTabletTableLearnReplacesOverlaps(t *testing.T) {
	var tt tabletTable
	if tt.find(0) != nil {
		t.Fatal("an empty table found a tablet")
	}
	tt.learn(tabletOf(0, 100, 1))
	tt.learn(tabletOf(-100, 0, 2))
	tt.learn(tabletOf(200, 300, 3))
	tt.learn(tabletOf(math.MinInt64, -100, 4))
	want := [][2]int64{{math.MinInt64, -100}, {-100, 0}, {0, 100}, {200, 300}}
	if got := ranges(&tt); !equalRanges(got, want) {
		t.Fatalf("tablets %v, want %v", got, want)
	}
	for token, host := range map[int64]byte{math.MinInt64: 4, -100: 4, -99: 2, 0: 2, 1: 1, 100: 1, 250: 3, 300: 3} {
		tb := tt.find(token)
		if tb == nil || tb.Replicas[0].HostID[15] != host {
			t.Errorf("find(%d) = %+v, want the tablet on host %d", token, tb, host)
		}
	}
	for _, token := range []int64{101, 150, 200, 301, math.MaxInt64} {
		if tb := tt.find(token); tb != nil {
			t.Errorf("find(%d) = %+v, want none (no tablet holds it)", token, tb)
		}
	}
	// A merge: one tablet over two known ones and part of a gap.
	tt.learn(tabletOf(-50, 150, 5))
	want = [][2]int64{{math.MinInt64, -100}, {-50, 150}, {200, 300}}
	if got := ranges(&tt); !equalRanges(got, want) {
		t.Fatalf("after a merge: tablets %v, want %v", got, want)
	}
	if tb := tt.find(-60); tb != nil {
		t.Errorf("find(-60) = %+v: the replaced tablet (-100, 0] must be gone", tb)
	}
	// A split: a smaller tablet inside a known one replaces it.
	tt.learn(tabletOf(0, 50, 6))
	want = [][2]int64{{math.MinInt64, -100}, {0, 50}, {200, 300}}
	if got := ranges(&tt); !equalRanges(got, want) {
		t.Fatalf("after a split: tablets %v, want %v", got, want)
	}
	tt.reset()
	if tt.find(10) != nil || ranges(&tt) != nil {
		t.Error("reset left tablets")
	}
}

func equalRanges(a, b [][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTabletMapForget(t *testing.T) {
	var m tabletMap
	a, b, c := m.table("ks", "a"), m.table("ks", "b"), m.table("other", "a")
	if m.table("ks", "a") != a {
		t.Fatal("table made a second entry for ks.a")
	}
	for _, tt := range []*tabletTable{a, b, c} {
		tt.learn(tabletOf(0, 10, 1))
	}
	m.schemaChanged(proto.SchemaChange{Change: "UPDATED", Target: "TABLE", Keyspace: "ks", Name: "a"})
	if a.find(5) == nil {
		t.Error("an ALTER TABLE dropped the table's tablets")
	}
	m.schemaChanged(proto.SchemaChange{Change: "DROPPED", Target: "TABLE", Keyspace: "ks", Name: "a"})
	if a.find(5) != nil || b.find(5) == nil || c.find(5) == nil {
		t.Error("dropping ks.a must forget its tablets and only its")
	}
	m.schemaChanged(proto.SchemaChange{Change: "UPDATED", Target: "KEYSPACE", Keyspace: "ks"})
	if b.find(5) != nil || c.find(5) == nil {
		t.Error("a keyspace's change must forget its tables' tablets and only its")
	}
}

func TestTabletResolve(t *testing.T) {
	nodes := []topology.Node{
		{Addr: "10.0.0.1:9042", HostID: "00000000-0000-0000-0000-000000000001"},
		{Addr: "10.0.0.2:9042", HostID: "00000000-0000-0000-0000-000000000002"},
		{Addr: "10.0.0.3:9042", HostID: "00000000-0000-0000-0000-000000000003"},
	}
	snap, err := topology.Build(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := &tablet{Tablet: tabletOf(0, 10, 3, 9, 1)} // host 9 is not a node: left out
	n := tb.resolve(snap)
	if n == nil || len(n.nodes) != 2 || n.nodes[0] != 2 || n.nodes[1] != 0 {
		t.Fatalf("resolve = %+v, want nodes [2 0]", n)
	}
	if n.shardOn(2) != 0 || n.shardOn(0) != 2 || n.shardOn(1) != -1 {
		t.Errorf("shards on nodes 2, 0, 1: %d %d %d, want 0 2 -1", n.shardOn(2), n.shardOn(0), n.shardOn(1))
	}
	if tb.resolve(snap) != n {
		t.Error("a second resolve for the same snapshot resolved again")
	}
	snap2, _ := topology.Build(nodes[:1], nil)
	if n2 := tb.resolve(snap2); n2 == nil || len(n2.nodes) != 1 || n2.nodes[0] != 0 {
		t.Errorf("resolve on a new snapshot = %+v, want node 0 only", n2)
	}
	unknown := &tablet{Tablet: tabletOf(0, 10, 7)}
	if n := unknown.resolve(snap); n != nil {
		t.Errorf("a tablet on unknown hosts resolved to %+v, want nil (the token ring routes)", n)
	}
	var none *tabletNodes
	if none.shardOn(0) != -1 {
		t.Error("shardOn on no tablet must be -1")
	}
}

// A node describes a tablet again with every request that misses its replicas: a tablet
// known already, the same way, leaves the list (and its resolved replicas) as it is.
func TestTabletLearnKnownTabletKeepsList(t *testing.T) {
	var tt tabletTable
	tt.learn(tabletOf(0, 100, 1, 2))
	tt.learn(tabletOf(100, 200, 3))
	before := tt.list.Load()
	tt.learn(tabletOf(0, 100, 1, 2))
	if tt.list.Load() != before {
		t.Error("learning a known tablet again rebuilt the list")
	}
	tt.learn(tabletOf(0, 100, 2, 1)) // the same replicas in another order: a change
	if tt.list.Load() == before || tt.find(50).Replicas[0].HostID[15] != 2 {
		t.Error("a tablet whose replicas changed was not learnt")
	}
}
