package cqlsim_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/murmur3"
)

// tabletsKey is the custom payload entry of ScyllaDB's tablets routing.
const tabletsKey = "tablets-routing-v1"

// optInTablets are STARTUP options that opt in to tablets routing.
var optInTablets = map[string]string{"CQL_VERSION": "3.0.0", "TABLETS_ROUTING_V1": ""}

// cursor reads the protocol's big-endian notations; the first short read sets err.
type cursor struct {
	b   []byte
	err error
}

func (c *cursor) take(n int) []byte {
	if c.err != nil || n < 0 || n > len(c.b) {
		if c.err == nil {
			c.err = fmt.Errorf("want %d bytes, have %d", n, len(c.b))
		}
		return nil
	}
	v := c.b[:n]
	c.b = c.b[n:]
	return v
}

func (c *cursor) u16() int {
	if b := c.take(2); b != nil {
		return int(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (c *cursor) i32() int32 {
	if b := c.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (c *cursor) i64() int64 {
	if b := c.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// response is a response frame decoded by hand, its body in the protocol's order: tracing id,
// warnings, custom payload, then the message.
type response struct {
	flags, opcode byte
	tracingID     []byte
	warnings      []string
	payload       map[string][]byte // nil without the custom payload flag
	msg           []byte
}

func parseResponse(b []byte) (response, error) {
	if len(b) < 9 {
		return response{}, fmt.Errorf("frame of %d bytes", len(b))
	}
	r := response{flags: b[1], opcode: b[4]}
	if n := int(binary.BigEndian.Uint32(b[5:9])); n != len(b)-9 {
		return r, fmt.Errorf("header length %d, body of %d bytes", n, len(b)-9)
	}
	c := &cursor{b: b[9:]}
	if r.flags&0x02 != 0 {
		r.tracingID = c.take(16)
	}
	if r.flags&0x08 != 0 {
		for range c.u16() {
			r.warnings = append(r.warnings, string(c.take(c.u16())))
		}
	}
	if r.flags&0x04 != 0 {
		r.payload = map[string][]byte{}
		for range c.u16() {
			k := string(c.take(c.u16()))
			r.payload[k] = c.take(int(c.i32()))
		}
	}
	r.msg = c.b
	return r, c.err
}

// tabletRoute is the decoded value of a tablets-routing-v1 payload.
type tabletRoute struct {
	first, last int64
	replicas    []tabletReplica
}

type tabletReplica struct {
	host  [16]byte
	shard int32
}

func (r tabletRoute) String() string {
	var reps []string
	for _, p := range r.replicas {
		reps = append(reps, fmt.Sprintf("%x/%d", p.host[:4], p.shard))
	}
	return fmt.Sprintf("(%d, %d] %v", r.first, r.last, reps)
}

// decodeTabletRoute decodes tuple<bigint, bigint, list<tuple<uuid, int>>>, strictly: every
// length as expected and nothing left over.
func decodeTabletRoute(v []byte) (tabletRoute, error) {
	var r tabletRoute
	c := &cursor{b: v}
	want := func(n int32, what string) {
		if got := c.i32(); c.err == nil && got != n {
			c.err = fmt.Errorf("%s has length %d, want %d", what, got, n)
		}
	}
	want(8, "first token")
	r.first = c.i64()
	want(8, "last token")
	r.last = c.i64()
	list := &cursor{b: c.take(int(c.i32()))}
	if c.err == nil && len(c.b) != 0 {
		return r, fmt.Errorf("%d bytes after the tuple", len(c.b))
	}
	n := list.i32()
	for range n {
		el := &cursor{b: list.take(int(list.i32()))}
		var p tabletReplica
		if l := el.i32(); l != 16 {
			return r, fmt.Errorf("replica host id of length %d", l)
		}
		copy(p.host[:], el.take(16))
		if l := el.i32(); l != 4 {
			return r, fmt.Errorf("replica shard of length %d", l)
		}
		p.shard = el.i32()
		if el.err != nil || len(el.b) != 0 {
			return r, fmt.Errorf("replica tuple: %v, %d bytes left", el.err, len(el.b))
		}
		r.replicas = append(r.replicas, p)
	}
	if list.err != nil || len(list.b) != 0 {
		return r, fmt.Errorf("replica list: %v, %d bytes left", list.err, len(list.b))
	}
	return r, c.err
}

// refTabletRange is the reference for the tokens (first, last] of tablet t of count, with
// big integers: first = MinInt64 + floor(t * (2^64-1) / count), last the next one's first.
func refTabletRange(t, count int) (first, last int64) {
	bound := func(t int) int64 {
		m := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(1))
		m.Mul(m, big.NewInt(int64(t)))
		m.Div(m, big.NewInt(int64(count)))
		m.Add(m, big.NewInt(math.MinInt64))
		return m.Int64()
	}
	return bound(t), bound(t + 1)
}

// refTabletOf is the tablet of count whose reference range holds token (> MinInt64).
func refTabletOf(token int64, count int) int {
	return sort.Search(count, func(t int) bool {
		_, last := refTabletRange(t, count)
		return token <= last
	})
}

// wantRoute is the route of tablet t of count at generation gen, rf replicas among hosts
// (node i has hosts[i]) with shards shards each.
func wantRoute(t, count, gen, rf, shards int, hosts [][16]byte) tabletRoute {
	first, last := refTabletRange(t, count)
	r := tabletRoute{first: first, last: last}
	for j := range rf {
		r.replicas = append(r.replicas, tabletReplica{host: hosts[(t+gen+j)%len(hosts)], shard: int32((t + gen + j) % shards)})
	}
	return r
}

// onReplica reports whether a request to node i on shard s reaches a replica's shard of route.
func onReplica(route tabletRoute, hosts [][16]byte, i, s int) bool {
	for _, p := range route.replicas {
		if p.host == hosts[i] && int(p.shard) == s {
			return true
		}
	}
	return false
}

// TestTabletLayout checks the tablet ranges and the tablet of a token against big-integer
// references: contiguous ranges from MinInt64 to MaxInt64 of widths within one of each other.
func TestTabletLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, count := range []int{1, 2, 3, 7, 10, 1000, 65535, 65536} {
		var prevLast int64 = math.MinInt64
		var minW, maxW uint64 = math.MaxUint64, 0
		for tab := range count {
			if count > 1000 && tab > 50 && tab < count-50 && r.IntN(100) != 0 {
				prevLast, _ = cqlsim.TabletRange(uint64(tab), uint64(count))
			}
			first, last := cqlsim.TabletRange(uint64(tab), uint64(count))
			if wf, wl := refTabletRange(tab, count); first != wf || last != wl {
				t.Fatalf("count %d: tablet %d covers (%d, %d], want (%d, %d]", count, tab, first, last, wf, wl)
			}
			if first != prevLast || last <= first {
				t.Fatalf("count %d: tablet %d covers (%d, %d] after a tablet ending at %d", count, tab, first, last, prevLast)
			}
			w := uint64(last) - uint64(first)
			minW, maxW = min(minW, w), max(maxW, w)
			for _, tok := range []int64{first + 1, last, first + int64(r.Uint64N(w)) + 1} {
				if got := cqlsim.TabletIndex(tok, uint64(count)); got != uint64(tab) {
					t.Fatalf("count %d: token %d is in tablet %d, want %d (%d, %d]", count, tok, got, tab, first, last)
				}
			}
			prevLast = last
		}
		if prevLast != math.MaxInt64 || maxW-minW > 1 {
			t.Errorf("count %d: last tablet ends at %d, widths %d to %d", count, prevLast, minW, maxW)
		}
		if got := cqlsim.TabletIndex(math.MinInt64, uint64(count)); got != 0 {
			t.Errorf("count %d: MinInt64 is in tablet %d, want 0", count, got)
		}
		for range 200 {
			tok := int64(r.Uint64())
			if tok == math.MinInt64 {
				continue
			}
			if got, want := cqlsim.TabletIndex(tok, uint64(count)), refTabletOf(tok, count); got != uint64(want) {
				t.Fatalf("count %d: token %d is in tablet %d, want %d", count, tok, got, want)
			}
		}
	}
}

// TestWithCustomPayload: the payload goes after the tracing id and the warnings, before the
// message, and the header's flag and length follow; a frame that has a payload already, or
// whose warnings are cut short, is refused.
func TestWithCustomPayload(t *testing.T) {
	trace := bytes.Repeat([]byte{0xab}, 16)
	body := slices.Concat(trace, []byte{0, 2, 0, 2, 'w', '1', 0, 3, 'w', 'w', '2'}, []byte{0, 0, 0, 1})
	frameOf := func(flags byte, body []byte) []byte {
		return append([]byte{0x84, flags, 0, 7, 0x08, 0, 0, 0, byte(len(body))}, body...)
	}
	payload := []byte{0, 1, 0, 1, 'k', 0, 0, 0, 2, 'v', 'v'}
	out, ok := cqlsim.WithCustomPayload(frameOf(0x0a, body), payload)
	if !ok {
		t.Fatal("refused a frame with a tracing id and warnings")
	}
	r, err := parseResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.flags != 0x0e || !bytes.Equal(r.tracingID, trace) || !slices.Equal(r.warnings, []string{"w1", "ww2"}) ||
		string(r.payload["k"]) != "vv" || len(r.payload) != 1 || !bytes.Equal(r.msg, []byte{0, 0, 0, 1}) {
		t.Errorf("got flags %#x, tracing id %x, warnings %q, payload %q, message % x", r.flags, r.tracingID, r.warnings, r.payload, r.msg)
	}
	if out, ok = cqlsim.WithCustomPayload(frameOf(0, []byte{0, 0, 0, 1}), payload); !ok {
		t.Fatal("refused a plain frame")
	}
	if r, err = parseResponse(out); err != nil || r.flags != 0x04 || string(r.payload["k"]) != "vv" || !bytes.Equal(r.msg, []byte{0, 0, 0, 1}) {
		t.Errorf("plain frame: %+v, %v", r, err)
	}
	if _, ok := cqlsim.WithCustomPayload(frameOf(0x04, append(slices.Clone(payload), 0, 0, 0, 1)), payload); ok {
		t.Error("added a second custom payload")
	}
	if _, ok := cqlsim.WithCustomPayload(frameOf(0x08, []byte{0, 2, 0, 1, 'w'}), payload); ok {
		t.Error("accepted a frame whose warnings are cut short")
	}
}

// tabletCluster is a cluster with tablets and connections to each shard of each node.
type tabletCluster struct {
	t      *testing.T
	c      *cqlsim.Cluster
	nodes  int
	shards int
	count  int        // tablets
	hosts  [][16]byte // host id of each node, from its system.local
	dcs    []string   // data center of each node, from its system.local
	optIn  [][]*rawConn
	plain  [][]*rawConn // connections that did not opt in to tablets routing
}

// startTablets starts a cluster of nodes nodes, shards shards, count tablets and a shard-aware
// port, and opens to each shard of each node a connection that opted in and one that did not.
func startTablets(t *testing.T, nodes, shards, count int) *tabletCluster {
	t.Helper()
	return startTabletsWith(t, cqlsim.Options{Nodes: nodes, Shards: shards, Tablets: count})
}

// startTabletsWith is startTablets for a cluster of opts (with a shard-aware port), whose
// Nodes, Shards and Tablets must be set.
func startTabletsWith(t *testing.T, opts cqlsim.Options) *tabletCluster {
	t.Helper()
	opts.ShardAwarePort = true
	nodes, shards := opts.Nodes, opts.Shards
	tc := &tabletCluster{t: t, nodes: nodes, shards: shards, count: opts.Tablets, c: cqlsim.StartT(t, opts)}
	for i := range nodes {
		host, _, _ := net.SplitHostPort(tc.c.Addrs()[i])
		var in, out []*rawConn
		for s := range shards {
			rc, _ := dialShard(t, host, tc.c.ShardAwarePort(), shards, s)
			rc.startup(optInTablets)
			in = append(in, rc)
			rc, _ = dialShard(t, host, tc.c.ShardAwarePort(), shards, s)
			rc.startup(nil)
			out = append(out, rc)
		}
		tc.optIn, tc.plain = append(tc.optIn, in), append(tc.plain, out)
		rows := mustQuery(in[0], "SELECT host_id, data_center FROM system.local").Body.Message.(*message.RowsResult)
		var id [16]byte
		copy(id[:], rows.Data[0][0])
		tc.hosts = append(tc.hosts, id)
		tc.dcs = append(tc.dcs, string(rows.Data[0][1]))
	}
	// The others' host ids and data centers in each node's system.peers agree.
	for n := range nodes {
		peers := mustQuery(tc.optIn[n][0], "SELECT peer, host_id, data_center FROM system.peers").Body.Message.(*message.RowsResult)
		if len(peers.Data) != nodes-1 {
			t.Fatalf("node %d: system.peers has %d rows, want %d", n, len(peers.Data), nodes-1)
		}
		for _, row := range peers.Data {
			i := int(row[0][3]) - 1 // 127.0.0.(i+1)
			if i < 0 || i >= nodes || i == n || !bytes.Equal(row[1], tc.hosts[i][:]) || string(row[2]) != tc.dcs[i] {
				t.Fatalf("node %d: system.peers has host %x in %q at %v; system.local says %x in %q", n, row[1], row[2], row[0], tc.hosts, tc.dcs)
			}
		}
	}
	return tc
}

// prepare prepares q on every node and returns its id.
func (tc *tabletCluster) prepare(q string) []byte {
	tc.t.Helper()
	var id []byte
	for i := range tc.nodes {
		id = prepareRaw(tc.t, tc.optIn[i][0], q)
	}
	return id
}

// execFrame sends EXECUTE of id with values in version, traced when asked, and returns the
// response frame's bytes.
func execFrame(t *testing.T, rc *rawConn, version primitive.ProtocolVersion, traced bool, id []byte, values ...*primitive.Value) []byte {
	t.Helper()
	var buf bytes.Buffer
	msg := &message.Execute{QueryId: id, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: values}}
	if err := frame.NewCodec().EncodeFrame(frame.NewFrame(version, 5, msg), &buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if traced {
		b[1] |= 0x02
	}
	rc.write(b)
	_ = rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	return readFrameBytes(t, rc.br)
}

// execute executes id on rc (protocol v4) and returns the decoded response.
func execute(t *testing.T, rc *rawConn, id []byte, values ...*primitive.Value) response {
	t.Helper()
	r, err := parseResponse(execFrame(t, rc, primitive.ProtocolVersion4, false, id, values...))
	if err != nil {
		t.Fatalf("decoding the response: %v", err)
	}
	return r
}

// routeOf returns the decoded tablets-routing-v1 entry of r, failing when r is not a RESULT
// or the payload has anything else.
func routeOf(t *testing.T, r response) (tabletRoute, bool) {
	t.Helper()
	if r.opcode != byte(primitive.OpCodeResult) {
		t.Fatalf("opcode %#x, message % x; want a RESULT", r.opcode, r.msg)
	}
	if r.payload == nil {
		return tabletRoute{}, false
	}
	v, ok := r.payload[tabletsKey]
	if !ok || len(r.payload) != 1 {
		t.Fatalf("custom payload %q, want the single entry %s", r.payload, tabletsKey)
	}
	route, err := decodeTabletRoute(v)
	if err != nil {
		t.Fatalf("decoding %s % x: %v", tabletsKey, v, err)
	}
	return route, true
}

// checkStats checks TabletStats, and that ShardStats counts the same on and off shard.
func (tc *tabletCluster) checkStats(what string, want cqlsim.TabletStats) {
	tc.t.Helper()
	if got := tc.c.TabletStats(); got != want {
		tc.t.Fatalf("after %s: TabletStats() = %+v, want %+v", what, got, want)
	}
	if got, want := tc.c.ShardStats(), (cqlsim.ShardStats{OnShard: want.OnReplica, OffShard: want.OffReplica}); got != want {
		tc.t.Fatalf("after %s: ShardStats() = %+v, want %+v", what, got, want)
	}
}

// TestTabletsSupported: SUPPORTED offers TABLETS_ROUTING_V1 with the value "" exactly when
// the cluster has tablets.
func TestTabletsSupported(t *testing.T) {
	for _, opts := range []cqlsim.Options{{Shards: 2, Tablets: 8}, {Shards: 2}, {}} {
		c := cqlsim.StartT(t, opts)
		got, ok := supportedOptions(t, dialRaw(t, c.Addrs()[0]))["TABLETS_ROUTING_V1"]
		if want := opts.Tablets > 0; ok != want || (ok && !slices.Equal(got, []string{""})) {
			t.Errorf("Tablets %d: SUPPORTED[TABLETS_ROUTING_V1] = %q, %v; want [\"\"] %v", opts.Tablets, got, ok, want)
		}
	}
}

// TestTabletsRouting: an EXECUTE that misses the replica's shard gets the tablet's route (its
// range brackets the key's token, its replicas are the tablet's, with system.local's host ids)
// when the client opted in; one on a replica's shard gets none; a client that did not opt in
// never does; all of them are counted. MoveTablets moves the replicas, and an ALTER KEYSPACE
// changes their number.
func TestTabletsRouting(t *testing.T) {
	const nodes, shards, count = 3, 4, 10
	tc := startTablets(t, nodes, shards, count)
	setup := tc.optIn[0][0]
	mustQuery(setup, "CREATE KEYSPACE tk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
	mustQuery(setup, "CREATE TABLE tk.t (k int PRIMARY KEY, v int)")
	mustQuery(setup, "CREATE TABLE tk.c (a int, b text, c int, v int, PRIMARY KEY ((a, b), c))")
	sel := tc.prepare("SELECT v FROM tk.t WHERE k = ?")
	ins := tc.prepare("INSERT INTO tk.t (k, v) VALUES (?, ?)")
	selC := tc.prepare("SELECT v FROM tk.c WHERE a = ? AND b = ? AND c = ?")

	var want cqlsim.TabletStats
	// check executes id with values on every shard of every node, on the opted-in and the
	// other connections, for a partition with token at generation gen and rf replicas.
	check := func(id []byte, token int64, gen, rf int, values ...*primitive.Value) {
		t.Helper()
		tab := refTabletOf(token, count)
		route := wantRoute(tab, count, gen, rf, shards, tc.hosts)
		if first, last := route.first, route.last; token <= first || token > last {
			t.Fatalf("token %d outside its reference tablet (%d, %d]", token, first, last)
		}
		ons := 0
		for i := range nodes {
			for s := range shards {
				on := onReplica(route, tc.hosts, i, s)
				if on {
					ons++
				}
				got, has := routeOf(t, execute(t, tc.optIn[i][s], id, values...))
				switch {
				case on && has:
					t.Fatalf("token %d on node %d shard %d, a replica: payload %v", token, i, s, got)
				case !on && !has:
					t.Fatalf("token %d on node %d shard %d, not a replica of %v: no payload", token, i, s, route)
				case !on && fmt.Sprint(got) != fmt.Sprint(route):
					t.Fatalf("token %d on node %d shard %d: route %v, want %v", token, i, s, got, route)
				}
				if _, has := routeOf(t, execute(t, tc.plain[i][s], id, values...)); has {
					t.Fatalf("token %d on node %d shard %d: a payload for a client that did not opt in", token, i, s)
				}
				if on {
					want.OnReplica += 2
				} else {
					want.OffReplica += 2
					want.Payloads++
				}
			}
		}
		if ons != rf {
			t.Fatalf("token %d: %d replica shards, want %d", token, ons, rf)
		}
		tc.checkStats(fmt.Sprintf("token %d", token), want)
	}

	for k := range int32(8) {
		key := intValue(k)
		token := murmur3.Token(key.Contents)
		check(ins, token, 0, 2, key, intValue(k)) // void results
		check(sel, token, 0, 2, key)              // rows results
	}
	for k := range int32(3) {
		a, b := intValue(k), primitive.NewValue([]byte(fmt.Sprint("part-", k)))
		check(selC, murmur3.Token(compositeKey(a.Contents, b.Contents)), 0, 2, a, b, intValue(0))
	}

	// MoveTablets moves each tablet by one node and one shard.
	key := intValue(3)
	token := murmur3.Token(key.Contents)
	tc.c.MoveTablets()
	check(sel, token, 1, 2, key)
	tc.c.MoveTablets()
	tc.c.MoveTablets()
	check(sel, token, 3, 2, key)

	// The replication factor is read at each EXECUTE, and capped by the number of nodes.
	mustQuery(setup, "ALTER KEYSPACE tk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 7}")
	check(sel, token, 3, nodes, key)
}

// TestTabletsReplicationFactors: the replicas are as many as the keyspace's replication
// factor, at least one (a keyspace of factor 0, or whose data centers all have factor 0, has
// one, though its statements fail as Unavailable) and at most one per node; NetworkTopologyStrategy counts the factors of the
// data centers the cluster has (a one-data-center cluster lays its replicas out as
// SimpleStrategy does); tables named through the session keyspace route like qualified ones.
func TestTabletsReplicationFactors(t *testing.T) {
	const nodes, shards, count = 3, 2, 5
	tc := startTablets(t, nodes, shards, count)
	for _, k := range []struct {
		ks, repl string
		rf       int
	}{
		{"zero", "{'class': 'SimpleStrategy', 'replication_factor': 0}", 1},
		{"one", "{'class': 'SimpleStrategy', 'replication_factor': 1}", 1},
		{"seven", "{'class': 'SimpleStrategy', 'replication_factor': 7}", nodes},
		{"nts", "{'class': 'NetworkTopologyStrategy', 'datacenter1': 2, 'dc2': 0}", 2},
		{"ntsbig", "{'class': 'NetworkTopologyStrategy', 'datacenter1': 5}", nodes},
		{"ntsnone", "{'class': 'NetworkTopologyStrategy', 'datacenter1': 0, 'dc2': 0}", 1},
	} {
		mustQuery(tc.optIn[0][0], "CREATE KEYSPACE "+k.ks+" WITH replication = "+k.repl)
		mustQuery(tc.optIn[0][0], "CREATE TABLE "+k.ks+".t (k int PRIMARY KEY)")
		for i := range nodes {
			for s := range shards {
				mustQuery(tc.optIn[i][s], "USE "+k.ks)
			}
		}
		var id []byte
		for i := range nodes {
			id = prepareRaw(t, tc.optIn[i][0], "SELECT k FROM t WHERE k = ?")
		}
		key := intValue(42)
		route := wantRoute(refTabletOf(murmur3.Token(key.Contents), count), count, 0, k.rf, shards, tc.hosts)
		before := tc.c.TabletStats()
		for i := range nodes {
			for s := range shards {
				r := execute(t, tc.optIn[i][s], id, key)
				if k.ks == "zero" || k.ks == "ntsnone" { // Unavailable: no replica in the cluster
					if r.opcode != byte(primitive.OpCodeError) || r.payload != nil {
						t.Errorf("keyspace %s: opcode %#x, payload %q; want an ERROR without payload", k.ks, r.opcode, r.payload)
					}
					continue
				}
				got, has := routeOf(t, r)
				if on := onReplica(route, tc.hosts, i, s); on == has || (has && fmt.Sprint(got) != fmt.Sprint(route)) {
					t.Errorf("keyspace %s: node %d shard %d answered route %v (%v), want %v (on a replica: %v)", k.ks, i, s, got, has, route, on)
				}
			}
		}
		after := tc.c.TabletStats()
		if on, off := after.OnReplica-before.OnReplica, after.OffReplica-before.OffReplica; on != int64(k.rf) || on+off != nodes*shards {
			t.Errorf("keyspace %s: %d EXECUTEs on a replica's shard, %d off; want %d of %d", k.ks, on, off, k.rf, nodes*shards)
		}
	}
}

// wantDCRoute is the route of tablet t of count at generation gen under
// NetworkTopologyStrategy with factors per data center, among hosts (node i has hosts[i] in
// data center dcs[i]) with shards shards each: for each data center the cluster has, in the
// order of their names, its nodes (in index order, n of them) numbered (t+gen+j) % n for
// j < min(factor, n); replica p of the list on shard (t+gen+p) % shards. With no replica that
// way, the one replica of SimpleStrategy with factor 1.
func wantDCRoute(t, count, gen, shards int, hosts [][16]byte, dcs []string, factors map[string]int) tabletRoute {
	byDC := map[string][]int{}
	for i, dc := range dcs {
		byDC[dc] = append(byDC[dc], i)
	}
	names := slices.Sorted(maps.Keys(byDC))
	first, last := refTabletRange(t, count)
	r := tabletRoute{first: first, last: last}
	for _, dc := range names {
		nodes := byDC[dc]
		for j := range min(factors[dc], len(nodes)) {
			node := nodes[(t+gen+j)%len(nodes)]
			r.replicas = append(r.replicas, tabletReplica{host: hosts[node], shard: int32((t + gen + len(r.replicas)) % shards)})
		}
	}
	if len(r.replicas) == 0 {
		return wantRoute(t, count, gen, 1, shards, hosts)
	}
	return r
}

// keysPerTablet returns, for each tablet of count, an int key whose token it holds.
func keysPerTablet(t *testing.T, count int) []*primitive.Value {
	t.Helper()
	keys := make([]*primitive.Value, count)
	found := 0
	for k := int32(0); found < count; k++ {
		if k > 100000 {
			t.Fatalf("no key for some of %d tablets", count)
		}
		key := intValue(k)
		if tab := refTabletOf(murmur3.Token(key.Contents), count); keys[tab] == nil {
			keys[tab] = key
			found++
		}
	}
	return keys
}

// TestTabletsDataCenters: under NetworkTopologyStrategy each data center the keyspace names
// holds its factor of replicas (capped by its nodes) on its own nodes, data centers the
// cluster lacks hold none, a keyspace left with none has one, and MoveTablets moves each
// replica to the next node of its data center; SimpleStrategy ignores data centers. The
// replicas' data centers are those the nodes report in system.local and system.peers.
func TestTabletsDataCenters(t *testing.T) {
	type keyspace struct {
		name, repl string
		simple     int            // SimpleStrategy's factor, else 0
		factors    map[string]int // NetworkTopologyStrategy's factors
		perDC      map[string]int // how many replicas each data center holds (NetworkTopologyStrategy)
	}
	for _, cl := range []struct {
		name      string
		opts      cqlsim.Options
		keyspaces []keyspace
	}{
		{"dc1,dc1,dc2,dc2", cqlsim.Options{Nodes: 4, Shards: 2, Tablets: 8, NodeDataCenters: []string{"dc1", "dc1", "dc2", "dc2"}}, []keyspace{
			{name: "both", repl: "{'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}",
				factors: map[string]int{"dc1": 1, "dc2": 1}, perDC: map[string]int{"dc1": 1, "dc2": 1}},
			{name: "capped", repl: "{'class': 'NetworkTopologyStrategy', 'dc1': 5, 'dc2': 1}",
				factors: map[string]int{"dc1": 5, "dc2": 1}, perDC: map[string]int{"dc1": 2, "dc2": 1}},
			{name: "unknown", repl: "{'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc3': 0}",
				factors: map[string]int{"dc1": 1, "dc3": 0}, perDC: map[string]int{"dc1": 1}},
			{name: "dc2only", repl: "{'class': 'NetworkTopologyStrategy', 'dc1': 0, 'dc2': 2}",
				factors: map[string]int{"dc1": 0, "dc2": 2}, perDC: map[string]int{"dc2": 2}},
			{name: "absent", repl: "{'class': 'NetworkTopologyStrategy', 'dc1': 0, 'dc3': 0}",
				factors: map[string]int{"dc1": 0, "dc3": 0}},
			{name: "simple", repl: "{'class': 'SimpleStrategy', 'replication_factor': 2}", simple: 2},
		}},
		// Data centers interleaved, listed out of their names' order.
		{"b,a,b,a,b", cqlsim.Options{Nodes: 5, Shards: 3, Tablets: 5, NodeDataCenters: []string{"b", "a", "b", "a", "b"}}, []keyspace{
			{name: "ab", repl: "{'class': 'NetworkTopologyStrategy', 'b': 2, 'a': 1}",
				factors: map[string]int{"a": 1, "b": 2}, perDC: map[string]int{"a": 1, "b": 2}},
			{name: "all", repl: "{'class': 'NetworkTopologyStrategy', 'b': 3, 'a': 2}",
				factors: map[string]int{"a": 2, "b": 3}, perDC: map[string]int{"a": 2, "b": 3}},
			{name: "simple", repl: "{'class': 'SimpleStrategy', 'replication_factor': 3}", simple: 3},
		}},
	} {
		t.Run(cl.name, func(t *testing.T) {
			tc := startTabletsWith(t, cl.opts)
			if !slices.Equal(tc.dcs, cl.opts.NodeDataCenters) {
				t.Fatalf("system.local reports data centers %q, want %q", tc.dcs, cl.opts.NodeDataCenters)
			}
			dcOf := map[[16]byte]string{}
			byDC := map[string][]int{} // each data center's nodes, in index order
			for i, h := range tc.hosts {
				dcOf[h] = tc.dcs[i]
				byDC[tc.dcs[i]] = append(byDC[tc.dcs[i]], i)
			}
			nodeOf := func(h [16]byte) int { return slices.Index(tc.hosts, h) }
			keys := keysPerTablet(t, tc.count)
			sel := map[string][]byte{}
			for _, k := range cl.keyspaces {
				mustQuery(tc.optIn[0][0], "CREATE KEYSPACE "+k.name+" WITH replication = "+k.repl)
				mustQuery(tc.optIn[0][0], "CREATE TABLE "+k.name+".t (k int PRIMARY KEY)")
				sel[k.name] = tc.prepare("SELECT k FROM " + k.name + ".t WHERE k = ?")
			}

			// routes executes the statement of keyspace k on each tablet on every shard of
			// every node and returns each tablet's route, checking that exactly the EXECUTEs
			// that TabletStats counts on a replica's shard get no payload and that the others
			// all get the same route, naming those replicas. A keyspace with no replica in the
			// cluster's data centers fails as Unavailable, without payload: its route is then
			// made of the replicas TabletStats counts.
			routes := func(k keyspace) []tabletRoute {
				t.Helper()
				fails := k.simple == 0 && k.perDC == nil
				out := make([]tabletRoute, tc.count)
				for tab, key := range keys {
					var route *tabletRoute
					var ons [][2]int
					for i := range tc.nodes {
						for s := range tc.shards {
							before := tc.c.TabletStats()
							r := execute(t, tc.optIn[i][s], sel[k.name], key)
							after := tc.c.TabletStats()
							on := after.OnReplica-before.OnReplica == 1
							want := before
							switch {
							case on:
								want.OnReplica++
								ons = append(ons, [2]int{i, s})
							case fails: // an error carries no payload
								want.OffReplica++
							default:
								want.OffReplica++
								want.Payloads++
							}
							if after != want {
								t.Fatalf("%s tablet %d node %d shard %d: TabletStats went from %+v to %+v, want %+v", k.name, tab, i, s, before, after, want)
							}
							if fails {
								if r.opcode != byte(primitive.OpCodeError) || r.payload != nil {
									t.Fatalf("%s tablet %d: opcode %#x, payload %q; want an ERROR without payload", k.name, tab, r.opcode, r.payload)
								}
								continue
							}
							got, has := routeOf(t, r)
							if has == on {
								t.Fatalf("%s tablet %d node %d shard %d: on a replica's shard %v, payload %v (%v)", k.name, tab, i, s, on, got, has)
							}
							if !has {
								continue
							}
							if route == nil {
								route = &got
							} else if fmt.Sprint(got) != fmt.Sprint(*route) {
								t.Fatalf("%s tablet %d: node %d shard %d routes to %v, another to %v", k.name, tab, i, s, got, *route)
							}
						}
					}
					first, last := refTabletRange(tab, tc.count)
					if fails {
						route = &tabletRoute{first: first, last: last}
						for _, on := range ons {
							route.replicas = append(route.replicas, tabletReplica{host: tc.hosts[on[0]], shard: int32(on[1])})
						}
					}
					if route == nil {
						t.Fatalf("%s tablet %d: no payload on any shard", k.name, tab)
					}
					if route.first != first || route.last != last {
						t.Fatalf("%s tablet %d: route %v, want range (%d, %d]", k.name, tab, *route, first, last)
					}
					var named [][2]int
					for _, p := range route.replicas {
						named = append(named, [2]int{nodeOf(p.host), int(p.shard)})
					}
					slices.SortFunc(named, func(a, b [2]int) int { return a[0]*1000 + a[1] - b[0]*1000 - b[1] })
					if !slices.Equal(ons, named) {
						t.Fatalf("%s tablet %d: EXECUTEs on a replica's shard on (node, shard) %v; the route %v names %v", k.name, tab, ons, *route, named)
					}
					out[tab] = *route
				}
				return out
			}

			var gen0 map[string][]tabletRoute
			for gen := range 3 {
				got := map[string][]tabletRoute{}
				for _, k := range cl.keyspaces {
					got[k.name] = routes(k)
					for tab, route := range got[k.name] {
						var want tabletRoute
						if k.simple > 0 {
							want = wantRoute(tab, tc.count, gen, k.simple, tc.shards, tc.hosts)
						} else {
							want = wantDCRoute(tab, tc.count, gen, tc.shards, tc.hosts, tc.dcs, k.factors)
						}
						if fmt.Sprint(route) != fmt.Sprint(want) {
							t.Errorf("generation %d, keyspace %s, tablet %d: route %v, want %v", gen, k.name, tab, route, want)
						}
						hosts := map[[16]byte]bool{}
						perDC := map[string]int{}
						for _, p := range route.replicas {
							hosts[p.host] = true
							perDC[dcOf[p.host]]++
						}
						if len(hosts) != len(route.replicas) {
							t.Errorf("generation %d, keyspace %s, tablet %d: route %v names a node twice", gen, k.name, tab, route)
						}
						switch {
						case k.simple > 0:
						case k.perDC == nil: // no replica in the cluster's data centers: one anywhere
							if len(route.replicas) != 1 {
								t.Errorf("generation %d, keyspace %s, tablet %d: route %v, want one replica", gen, k.name, tab, route)
							}
						case !maps.Equal(perDC, k.perDC):
							t.Errorf("generation %d, keyspace %s, tablet %d: route %v has replicas %v per data center, want %v", gen, k.name, tab, route, perDC, k.perDC)
						}
						if k.perDC == nil || gen == 0 {
							continue
						}
						// Each replica moved gen nodes on within its data center, and as many shards.
						for p, r := range route.replicas {
							old := gen0[k.name][tab].replicas[p]
							nodes := byDC[dcOf[old.host]]
							wantNode := nodes[(slices.Index(nodes, nodeOf(old.host))+gen)%len(nodes)]
							if dcOf[r.host] != dcOf[old.host] || nodeOf(r.host) != wantNode || int(r.shard) != (int(old.shard)+gen)%tc.shards {
								t.Errorf("generation %d, keyspace %s, tablet %d: replica %d on node %d shard %d, was on node %d shard %d; want node %d of %s",
									gen, k.name, tab, p, nodeOf(r.host), r.shard, nodeOf(old.host), old.shard, wantNode, dcOf[old.host])
							}
						}
					}
				}
				if gen == 0 {
					gen0 = got
				}
				tc.c.MoveTablets()
			}

			// An ALTER KEYSPACE between the strategies takes effect at the next EXECUTE.
			if cl.opts.Nodes == 4 {
				mustQuery(tc.optIn[0][0], "ALTER KEYSPACE simple WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 2}")
				simple := cl.keyspaces[len(cl.keyspaces)-1]
				for tab, route := range routes(simple) {
					if want := wantDCRoute(tab, tc.count, 3, tc.shards, tc.hosts, tc.dcs, map[string]int{"dc1": 1, "dc2": 2}); fmt.Sprint(route) != fmt.Sprint(want) {
						t.Errorf("after ALTER to NetworkTopologyStrategy: tablet %d route %v, want %v", tab, route, want)
					}
				}
				mustQuery(tc.optIn[0][0], "ALTER KEYSPACE simple WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
				for tab, route := range routes(simple) {
					if want := wantRoute(tab, tc.count, 3, 3, tc.shards, tc.hosts); fmt.Sprint(route) != fmt.Sprint(want) {
						t.Errorf("after ALTER to SimpleStrategy: tablet %d route %v, want %v", tab, route, want)
					}
				}
			}
		})
	}
}

// TestTabletsNoAllocation: finding that an EXECUTE reached its replica's shard allocates
// nothing, under either strategy.
func TestTabletsNoAllocation(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 4, Shards: 2, Tablets: 8, NodeDataCenters: []string{"dc1", "dc1", "dc2", "dc2"}})
	rc := dialRaw(t, c.Addrs()[0])
	rc.startup(nil)
	mustQuery(rc, "CREATE KEYSPACE nts WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 2}")
	mustQuery(rc, "CREATE KEYSPACE simple WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
	for _, ks := range []string{"nts", "simple"} {
		replicas := 0
		for node := range 4 {
			if _, ok := c.TabletShardOn(ks, 42, node); ok {
				replicas++
			}
		}
		if want := map[string]int{"nts": 3, "simple": 2}[ks]; replicas != want {
			t.Errorf("%s: %d nodes hold a replica, want %d", ks, replicas, want)
		}
		if n := testing.AllocsPerRun(100, func() {
			for node := range 4 {
				c.TabletShardOn(ks, 42, node)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations to find the replicas", ks, n)
		}
	}
}

// TestTabletsNoPayload: errors carry no payload (but are counted), protocol v3 has no custom
// payloads, system tables and clusters without tablets never route; a traced result carries
// its tracing id and the payload.
func TestTabletsNoPayload(t *testing.T) {
	const nodes, shards, count = 2, 2, 4
	tc := startTablets(t, nodes, shards, count)
	setup := tc.optIn[0][0]
	mustQuery(setup, "CREATE KEYSPACE tk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(setup, "CREATE TABLE tk.t (k int PRIMARY KEY, v int)")
	ins := tc.prepare("INSERT INTO tk.t (k, v) VALUES (?, ?)")
	key := intValue(7)
	route := wantRoute(refTabletOf(murmur3.Token(key.Contents), count), count, 0, 1, shards, tc.hosts)
	off := -1 // a node that holds no replica
	for i := range nodes {
		if tc.hosts[i] != route.replicas[0].host {
			off = i
		}
	}
	rc := tc.optIn[off][0]
	var want cqlsim.TabletStats

	// An EXECUTE that fails: bad value, injected fault.
	if r := execute(t, rc, ins, key, primitive.NewValue([]byte{1})); r.opcode != byte(primitive.OpCodeError) || r.payload != nil {
		t.Errorf("a failing INSERT: opcode %#x, payload %q; want an ERROR without payload", r.opcode, r.payload)
	}
	want.OffReplica++
	tc.checkStats("a failed EXECUTE", want)
	if err := tc.c.InjectFault(off, cqlsim.Fault{Match: "tk.t", Error: &message.Overloaded{ErrorMessage: "busy"}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	if r := execute(t, rc, ins, key, intValue(1)); r.opcode != byte(primitive.OpCodeError) || r.payload != nil {
		t.Errorf("an injected fault: opcode %#x, payload %q; want an ERROR without payload", r.opcode, r.payload)
	}
	want.OffReplica++
	tc.checkStats("an injected fault", want)

	// A traced EXECUTE: tracing id first, then the payload.
	r, err := parseResponse(execFrame(t, rc, primitive.ProtocolVersion4, true, ins, key, intValue(1)))
	if err != nil {
		t.Fatal(err)
	}
	if got, has := routeOf(t, r); len(r.tracingID) != 16 || !has || fmt.Sprint(got) != fmt.Sprint(route) || !bytes.Equal(r.msg, []byte{0, 0, 0, 1}) {
		t.Errorf("traced: tracing id %x, route %v (%v), message % x; want an id, %v and VOID", r.tracingID, got, has, r.msg, route)
	}
	want.OffReplica++
	want.Payloads++
	tc.checkStats("a traced EXECUTE", want)

	// Protocol v3: no custom payload.
	host, _, _ := net.SplitHostPort(tc.c.Addrs()[off])
	v3, _ := dialShard(t, host, tc.c.ShardAwarePort(), shards, 0)
	v3.send(primitive.ProtocolVersion3, 1, &message.Startup{Options: optInTablets})
	if f := v3.read(); f.Header.OpCode != primitive.OpCodeReady {
		t.Fatalf("v3 STARTUP: %v", f.Body.Message)
	}
	if r, err := parseResponse(execFrame(t, v3, primitive.ProtocolVersion3, false, ins, key, intValue(1))); err != nil || r.opcode != byte(primitive.OpCodeResult) || r.flags != 0 {
		t.Errorf("v3: %+v, %v; want a RESULT without flags", r, err)
	}
	want.OffReplica++
	tc.checkStats("a v3 EXECUTE", want)

	// System tables: counted in ShardStats only, never routed.
	sys := tc.prepare("SELECT host_id FROM system.local WHERE key = ?")
	shardStats := tc.c.ShardStats()
	for i := range nodes {
		for s := range shards {
			if r := execute(t, tc.optIn[i][s], sys, primitive.NewValue([]byte("local"))); r.opcode != byte(primitive.OpCodeResult) || r.payload != nil {
				t.Errorf("system.local on node %d shard %d: opcode %#x, payload %q", i, s, r.opcode, r.payload)
			}
		}
	}
	if got := tc.c.TabletStats(); got != want {
		t.Errorf("after system.local: TabletStats() = %+v, want %+v", got, want)
	}
	if got := tc.c.ShardStats(); got.OnShard+got.OffShard != shardStats.OnShard+shardStats.OffShard+nodes*shards {
		t.Errorf("after %d system.local EXECUTEs: ShardStats() = %+v, was %+v", nodes*shards, got, shardStats)
	}
}

// TestTabletsV5: in protocol v5 the payload travels in the frame inside the segments.
func TestTabletsV5(t *testing.T) {
	const shards, count = 2, 4
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2, Shards: shards, Tablets: count, MaxProtocolVersion: 5})
	setup := dialRaw(t, c.Addrs()[0])
	setup.startup(nil)
	mustQuery(setup, "CREATE KEYSPACE tk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(setup, "CREATE TABLE tk.t (k int PRIMARY KEY, v int)")
	var hosts [][16]byte
	for _, addr := range c.Addrs() {
		rc := dialRaw(t, addr)
		rc.startup(nil)
		var id [16]byte
		copy(id[:], mustQuery(rc, "SELECT host_id FROM system.local").Body.Message.(*message.RowsResult).Data[0][0])
		hosts = append(hosts, id)
	}
	key := intValue(11)
	route := wantRoute(refTabletOf(murmur3.Token(key.Contents), count), count, 0, 1, shards, hosts)
	off := 0
	if hosts[0] == route.replicas[0].host {
		off = 1
	}
	rc := dialRaw(t, c.Addrs()[off])
	rc.send(primitive.ProtocolVersion5, 1, &message.Startup{Options: optInTablets})
	if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady {
		t.Fatalf("v5 STARTUP: %v", f.Body.Message)
	}
	vc := &v5Conn{rawConn: rc, codec: segment.NewCodec()}
	vc.sendFrames(2, &message.Prepare{Query: "SELECT v FROM tk.t WHERE k = ?"})
	p, ok := vc.readFrame().Body.Message.(*message.PreparedResult)
	if !ok {
		t.Fatal("v5 PREPARE failed")
	}
	vc.sendFrames(3, &message.Execute{QueryId: p.PreparedQueryId, ResultMetadataId: p.ResultMetadataId,
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{key}}})
	_ = rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	r, err := parseResponse(readFrameBytes(t, vc))
	if err != nil {
		t.Fatal(err)
	}
	if got, has := routeOf(t, r); !has || fmt.Sprint(got) != fmt.Sprint(route) {
		t.Errorf("v5: route %v (%v), want %v", got, has, route)
	}
	if got := c.TabletStats(); got != (cqlsim.TabletStats{OffReplica: 1, Payloads: 1}) {
		t.Errorf("TabletStats() = %+v, want one payload", got)
	}
}

// TestNoTablets: a sharded cluster without tablets never routes, even a client that asks,
// and counts nothing in TabletStats; MoveTablets does nothing.
func TestNoTablets(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Shards: 2})
	rc := dialRaw(t, c.Addrs()[0]) // shard 0
	rc.startup(optInTablets)
	mustQuery(rc, "CREATE KEYSPACE tk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(rc, "CREATE TABLE tk.t (k int PRIMARY KEY, v int)")
	sel := prepareRaw(t, rc, "SELECT v FROM tk.t WHERE k = ?")
	c.MoveTablets()
	for k := range int32(8) {
		if r := execute(t, rc, sel, intValue(k)); r.opcode != byte(primitive.OpCodeResult) || r.payload != nil {
			t.Fatalf("key %d: opcode %#x, payload %q", k, r.opcode, r.payload)
		}
	}
	if got := c.TabletStats(); got != (cqlsim.TabletStats{}) {
		t.Errorf("TabletStats() = %+v without Tablets, want zero", got)
	}
	if got := c.ShardStats(); got.OnShard+got.OffShard != 8 || got.OffShard == 0 {
		t.Errorf("ShardStats() = %+v, want 8 EXECUTEs, some off shard", got)
	}
}

// TestTabletsOptions: Tablets must be within 0 and 65536, and needs Shards.
func TestTabletsOptions(t *testing.T) {
	for _, tc := range []struct {
		opts cqlsim.Options
		want string
	}{
		{cqlsim.Options{Shards: 2, Tablets: -1}, "Tablets -1 is out of range"},
		{cqlsim.Options{Shards: 2, Tablets: 65537}, "Tablets 65537 is out of range"},
		{cqlsim.Options{Tablets: 4}, "Tablets needs Shards"},
	} {
		c, err := cqlsim.Start(tc.opts)
		if err == nil {
			_ = c.Close()
			t.Errorf("Start(%+v) succeeded", tc.opts)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%+v): %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
	c, err := cqlsim.Start(cqlsim.Options{Shards: 1, Tablets: 65536})
	if err != nil {
		t.Fatalf("Start with 65536 tablets: %v", err)
	}
	if err := c.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		t.Fatal(err)
	}
}
