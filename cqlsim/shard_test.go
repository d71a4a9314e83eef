package cqlsim_test

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/murmur3"
)

// refShard is the reference for the shard owning token among n (ScyllaDB's
// biased-token-round-robin with ignore_msb 12), computed with big integers:
// floor(((token + 2^63) * 2^12 mod 2^64) * n / 2^64).
func refShard(token int64, n int) int {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	u := new(big.Int).SetInt64(token)
	u.Add(u, new(big.Int).Lsh(big.NewInt(1), 63))
	u.Lsh(u, 12)
	u.Mod(u, two64)
	u.Mul(u, big.NewInt(int64(n)))
	u.Div(u, two64)
	return int(u.Int64())
}

func TestShardOf(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7, 8, 64, 1024} {
		if got := cqlsim.ShardOf(math.MinInt64, n); got != 0 {
			t.Errorf("shardOf(MinInt64, %d) = %d, want 0", n, got)
		}
		if got := cqlsim.ShardOf(math.MaxInt64, n); got != n-1 {
			t.Errorf("shardOf(MaxInt64, %d) = %d, want %d", n, got, n-1)
		}
	}
	// With 2 shards, the shard flips where the biased token shifted by 12 bits crosses 2^63:
	// biased token 2^51 (token 2^51 - 2^63) is the first of shard 1, and the pattern repeats
	// every 2^52 (the 12 dropped bits).
	flip := int64(1)<<51 + math.MinInt64
	for _, tc := range []struct {
		token int64
		want  int
	}{
		{flip - 1, 0},
		{flip, 1},
		{flip + 1<<51 - 1, 1},
		{flip + 1<<51, 0},
		{-1, 1},
		{0, 0},
		{1<<51 - 1, 0},
		{1 << 51, 1},
	} {
		if got := cqlsim.ShardOf(tc.token, 2); got != tc.want {
			t.Errorf("shardOf(%d, 2) = %d, want %d", tc.token, got, tc.want)
		}
	}
	// Three shards: the first third of each 2^52-wide stripe is shard 0, and so on.
	if got := cqlsim.ShardOf(math.MinInt64+(1<<52)/3+1, 3); got != 1 {
		t.Errorf("shardOf(MinInt64+2^52/3+1, 3) = %d, want 1", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		tok, n := int64(r.Uint64()), 1+r.IntN(300)
		if got, want := cqlsim.ShardOf(tok, n), refShard(tok, n); got != want {
			t.Fatalf("shardOf(%d, %d) = %d, want %d", tok, n, got, want)
		}
	}
}

// dialShard connects to host:port (the shard-aware port) from a local port p in 49152..65535
// with p % n == shard, trying other candidates while the chosen one is taken, and returns the
// connection and p.
func dialShard(t *testing.T, host string, port, n, shard int) (*rawConn, int) {
	t.Helper()
	const lo, hi = 49152, 65535
	p := lo + rand.IntN(hi-lo-n)
	p += ((shard-p)%n + n) % n
	target := net.JoinHostPort(host, strconv.Itoa(port))
	for range 500 {
		if p > hi {
			p = lo + ((shard-lo)%n+n)%n
		}
		d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p}}
		nc, err := d.Dial("tcp4", target)
		if err == nil {
			return newRawConn(t, nc), p
		}
		if !errors.Is(err, syscall.EADDRINUSE) && !errors.Is(err, syscall.EADDRNOTAVAIL) {
			t.Fatalf("dialing %s from port %d: %v", target, p, err)
		}
		p += n
	}
	t.Fatalf("dialing %s: no free local port for shard %d of %d", target, shard, n)
	return nil, 0
}

// supportedOptions sends OPTIONS on rc and returns the SUPPORTED options.
func supportedOptions(t *testing.T, rc *rawConn) map[string][]string {
	t.Helper()
	rc.send(primitive.ProtocolVersion4, 1, &message.Options{})
	f := rc.read()
	s, ok := f.Body.Message.(*message.Supported)
	if !ok {
		t.Fatalf("OPTIONS answered with %v, want SUPPORTED", f.Body.Message)
	}
	return s.Options
}

// connShard returns the shard SUPPORTED announces for rc.
func connShard(t *testing.T, rc *rawConn) int {
	t.Helper()
	v := supportedOptions(t, rc)["SCYLLA_SHARD"]
	if len(v) != 1 {
		t.Fatalf("SCYLLA_SHARD = %v, want one value", v)
	}
	s, err := strconv.Atoi(v[0])
	if err != nil {
		t.Fatalf("SCYLLA_SHARD = %q: %v", v[0], err)
	}
	return s
}

// waitShardConns waits until c.ShardConns(node) is want.
func waitShardConns(t *testing.T, c *cqlsim.Cluster, node int, want []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(c.ShardConns(node), want) {
		if time.Now().After(deadline) {
			t.Fatalf("ShardConns(%d) = %v, want %v", node, c.ShardConns(node), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestShardSupported: with Shards, SUPPORTED carries ScyllaDB's sharding keys, and connections
// to the regular port get shards 0, 1, 2, ... round-robin; ShardConns counts the open ones.
func TestShardSupported(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Shards: 3, ShardAwarePort: true})
	port := c.ShardAwarePort()
	if port <= 0 || port == c.Port() {
		t.Fatalf("ShardAwarePort() = %d (regular port %d)", port, c.Port())
	}
	var conns []*rawConn
	for i := range 5 {
		rc := dialRaw(t, c.Addrs()[0])
		conns = append(conns, rc)
		opts := supportedOptions(t, rc)
		want := map[string][]string{
			"SCYLLA_SHARD":                 {strconv.Itoa(i % 3)},
			"SCYLLA_NR_SHARDS":             {"3"},
			"SCYLLA_PARTITIONER":           {"org.apache.cassandra.dht.Murmur3Partitioner"},
			"SCYLLA_SHARDING_ALGORITHM":    {"biased-token-round-robin"},
			"SCYLLA_SHARDING_IGNORE_MSB":   {"12"},
			"SCYLLA_SHARD_AWARE_PORT":      {strconv.Itoa(port)},
			"SCYLLA_LWT_ADD_METADATA_MARK": {"LWT_OPTIMIZATION_META_BIT_MASK=2147483648"}, // TestLWTMark
			"SCYLLA_RATE_LIMIT_ERROR":      {"ERROR_CODE=61440"},                          // TestRateLimitReached
			"SCYLLA_USE_METADATA_ID":       {""},                                          // TestUseMetadataIDOptedIn
			"CQL_VERSION":                  {"3.4.7"},
		}
		for k, v := range want {
			if !slices.Equal(opts[k], v) {
				t.Errorf("connection %d: SUPPORTED[%s] = %v, want %v", i, k, opts[k], v)
			}
		}
		for k := range opts {
			if (strings.HasPrefix(k, "SCYLLA_") && want[k] == nil) || k == "TABLETS_ROUTING_V1" {
				t.Errorf("connection %d: SUPPORTED has %s = %v, which cqlsim does not implement", i, k, opts[k])
			}
		}
	}
	// The shard stays the connection's for its life, after STARTUP too.
	conns[4].startup(nil)
	if s := connShard(t, conns[4]); s != 1 {
		t.Errorf("connection 4 after STARTUP: shard %d, want 1", s)
	}
	waitShardConns(t, c, 0, []int{2, 2, 1})
	_ = conns[0].nc.Close() // shard 0
	_ = conns[2].nc.Close() // shard 2
	waitShardConns(t, c, 0, []int{1, 2, 0})
	if got := c.ShardConns(1); got != nil {
		t.Errorf("ShardConns(1) of a one-node cluster = %v, want nil", got)
	}
	if got := c.ShardConns(-1); got != nil {
		t.Errorf("ShardConns(-1) = %v, want nil", got)
	}
}

// TestShardAwarePort: a connection to the shard-aware port belongs to shard (source port) % n,
// announced in SUPPORTED like on the regular port.
func TestShardAwarePort(t *testing.T) {
	const n = 4
	c := cqlsim.StartT(t, cqlsim.Options{Shards: n, ShardAwarePort: true})
	for _, shard := range []int{3, 0, 2, 2, 1} {
		rc, p := dialShard(t, "127.0.0.1", c.ShardAwarePort(), n, shard)
		opts := supportedOptions(t, rc)
		if got := opts["SCYLLA_SHARD"]; !slices.Equal(got, []string{strconv.Itoa(shard)}) {
			t.Errorf("from port %d: SCYLLA_SHARD = %v, want %d", p, got, shard)
		}
		if got := opts["SCYLLA_SHARD_AWARE_PORT"]; !slices.Equal(got, []string{strconv.Itoa(c.ShardAwarePort())}) {
			t.Errorf("from port %d: SCYLLA_SHARD_AWARE_PORT = %v, want %d", p, got, c.ShardAwarePort())
		}
	}
	waitShardConns(t, c, 0, []int{1, 1, 2, 1})
	// The shard-aware port does not advance the regular port's round-robin.
	if s := connShard(t, dialRaw(t, c.Addrs()[0])); s != 0 {
		t.Errorf("first connection to the regular port: shard %d, want 0", s)
	}
}

// TestShardsWithoutShardAwarePort: Shards alone shards the regular port but opens no
// shard-aware port and does not announce one.
func TestShardsWithoutShardAwarePort(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Shards: 2})
	if p := c.ShardAwarePort(); p != 0 {
		t.Errorf("ShardAwarePort() = %d, want 0", p)
	}
	opts := supportedOptions(t, dialRaw(t, c.Addrs()[0]))
	if v, ok := opts["SCYLLA_SHARD_AWARE_PORT"]; ok {
		t.Errorf("SUPPORTED has SCYLLA_SHARD_AWARE_PORT = %v without a shard-aware port", v)
	}
	if !slices.Equal(opts["SCYLLA_NR_SHARDS"], []string{"2"}) || !slices.Equal(opts["SCYLLA_SHARD"], []string{"0"}) {
		t.Errorf("SUPPORTED = %v, want SCYLLA_NR_SHARDS 2 and SCYLLA_SHARD 0", opts)
	}
}

// TestNoShards: without Shards nothing is sharded: no SCYLLA_ key, no port, no counts.
func TestNoShards(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{})
	rc := dialRaw(t, c.Addrs()[0])
	for k, v := range supportedOptions(t, rc) {
		if strings.HasPrefix(k, "SCYLLA_") {
			t.Errorf("SUPPORTED has %s = %v without Shards", k, v)
		}
	}
	rc.startup(nil)
	mustQuery(rc, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(rc, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	id := prepareRaw(t, rc, "SELECT v FROM ks.t WHERE k = ?")
	executeRaw(t, rc, id, []*primitive.Value{intValue(1)}, nil)
	if s := c.ShardStats(); s != (cqlsim.ShardStats{}) {
		t.Errorf("ShardStats() = %+v without Shards, want zero", s)
	}
	if got := c.ShardConns(0); got != nil || c.ShardAwarePort() != 0 {
		t.Errorf("ShardConns(0) = %v, ShardAwarePort() = %d without Shards; want nil and 0", got, c.ShardAwarePort())
	}
}

// prepareRaw prepares q on rc and returns its id.
func prepareRaw(t *testing.T, rc *rawConn, q string) []byte {
	t.Helper()
	rc.send(primitive.ProtocolVersion4, 2, &message.Prepare{Query: q})
	f := rc.read()
	p, ok := f.Body.Message.(*message.PreparedResult)
	if !ok {
		t.Fatalf("PREPARE %s: %v", q, f.Body.Message)
	}
	return p.PreparedQueryId
}

// executeRaw executes statement id on rc with positional values, or named ones when named is
// set, and returns the response message.
func executeRaw(t *testing.T, rc *rawConn, id []byte, values []*primitive.Value, named map[string]*primitive.Value) message.Message {
	t.Helper()
	rc.send(primitive.ProtocolVersion4, 3, &message.Execute{QueryId: id, Options: &message.QueryOptions{
		Consistency: primitive.ConsistencyLevelOne, PositionalValues: values, NamedValues: named}})
	return rc.read().Body.Message
}

func isError(m message.Message) bool {
	_, ok := m.(message.Error)
	return ok
}

func intValue(v int32) *primitive.Value {
	return primitive.NewValue(binary.BigEndian.AppendUint32(nil, uint32(v)))
}

// compositeKey serializes a composite partition key as Cassandra does.
func compositeKey(parts ...[]byte) []byte {
	var key []byte
	for _, p := range parts {
		key = binary.BigEndian.AppendUint16(key, uint16(len(p)))
		key = append(append(key, p...), 0)
	}
	return key
}

// TestShardStats: an EXECUTE with its partition key bound counts OnShard on a connection of
// the shard owning the partition and OffShard on another's; other requests do not count.
func TestShardStats(t *testing.T) {
	const n = 4
	c := cqlsim.StartT(t, cqlsim.Options{Shards: n, ShardAwarePort: true})
	setup := dialRaw(t, c.Addrs()[0])
	setup.startup(nil)
	mustQuery(setup, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(setup, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	mustQuery(setup, "CREATE TABLE ks.c (a int, b text, c int, v int, PRIMARY KEY ((a, b), c))")
	shards := make([]*rawConn, n) // shards[s] is a connection of shard s
	for s := range shards {
		shards[s], _ = dialShard(t, "127.0.0.1", c.ShardAwarePort(), n, s)
		shards[s].startup(nil)
	}
	insert := prepareRaw(t, setup, "INSERT INTO ks.t (k, v) VALUES (?, ?)")
	sel := prepareRaw(t, setup, "SELECT v FROM ks.t WHERE k = :key")
	insertC := prepareRaw(t, setup, "INSERT INTO ks.c (a, b, c, v) VALUES (?, ?, ?, ?)")
	selectC := prepareRaw(t, setup, "SELECT v FROM ks.c WHERE a = ? AND b = ? AND c = ?")

	want := cqlsim.ShardStats{}
	check := func(what string) {
		t.Helper()
		if got := c.ShardStats(); got != want {
			t.Fatalf("after %s: ShardStats() = %+v, want %+v", what, got, want)
		}
	}
	ok := func(m message.Message) {
		t.Helper()
		if isError(m) {
			t.Fatalf("EXECUTE failed: %s", m.(message.Error).GetErrorMessage())
		}
	}
	for k := range int32(12) {
		key := intValue(k)
		owner := refShard(murmur3.Token(key.Contents), n)
		ok(executeRaw(t, shards[owner], insert, []*primitive.Value{key, intValue(k)}, nil))
		want.OnShard++
		check("INSERT on the owning shard")
		ok(executeRaw(t, shards[(owner+1+int(k)%(n-1))%n], sel, []*primitive.Value{key}, nil))
		want.OffShard++
		check("SELECT on another shard")
		ok(executeRaw(t, shards[owner], sel, nil, map[string]*primitive.Value{"key": key}))
		want.OnShard++
		check("SELECT with a named value on the owning shard")
	}
	for k := range int32(12) {
		a, b := intValue(k), primitive.NewValue([]byte("part-"+strconv.Itoa(int(k))))
		owner := refShard(murmur3.Token(compositeKey(a.Contents, b.Contents)), n)
		ok(executeRaw(t, shards[owner], insertC, []*primitive.Value{a, b, intValue(0), intValue(k)}, nil))
		want.OnShard++
		check("composite-key INSERT on the owning shard")
		ok(executeRaw(t, shards[(owner+2)%n], selectC, []*primitive.Value{a, b, intValue(0)}, nil))
		want.OffShard++
		check("composite-key SELECT on another shard")
	}

	// A failing EXECUTE counts too.
	owner := refShard(murmur3.Token(intValue(1).Contents), n)
	if m := executeRaw(t, shards[owner], insert, []*primitive.Value{intValue(1), primitive.NewValue([]byte{1})}, nil); !isError(m) {
		t.Fatalf("INSERT of a 1-byte int succeeded")
	}
	want.OnShard++
	check("a failed EXECUTE")
	// Not counted: a null or unset partition-key value, a statement without a bound partition
	// key, QUERY, BATCH.
	executeRaw(t, shards[0], insert, []*primitive.Value{primitive.NewNullValue(), intValue(1)}, nil)
	executeRaw(t, shards[0], insertC, []*primitive.Value{intValue(1), primitive.NewUnsetValue(), intValue(0), intValue(1)}, nil)
	ok(executeRaw(t, shards[0], prepareRaw(t, shards[0], "SELECT v FROM ks.t"), nil, nil))
	mustQuery(shards[0], "SELECT v FROM ks.t WHERE k = 1")
	shards[0].send(primitive.ProtocolVersion4, 4, &message.Batch{Type: primitive.BatchTypeLogged, Consistency: primitive.ConsistencyLevelOne,
		Children: []*message.BatchChild{{Id: insert, Values: []*primitive.Value{intValue(1), intValue(1)}}}})
	ok(shards[0].read().Body.Message)
	check("requests without a known partition")
}

// TestShardAwarePortMultiNode: every node listens on the same shard-aware port of its own
// address, also after a restart, and counts its own connections.
func TestShardAwarePortMultiNode(t *testing.T) {
	const n = 2
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Shards: n, ShardAwarePort: true})
	port := c.ShardAwarePort()
	dial := func(i int) {
		t.Helper()
		host, _, _ := net.SplitHostPort(c.Addrs()[i])
		rc, _ := dialShard(t, host, port, n, i%n)
		opts := supportedOptions(t, rc)
		if !slices.Equal(opts["SCYLLA_SHARD_AWARE_PORT"], []string{strconv.Itoa(port)}) || !slices.Equal(opts["SCYLLA_SHARD"], []string{strconv.Itoa(i % n)}) {
			t.Errorf("node %d (%s:%d): SUPPORTED = %v, want shard %d and shard-aware port %d", i, host, port, opts, i%n, port)
		}
	}
	for i := range 3 {
		dial(i)
	}
	waitShardConns(t, c, 0, []int{1, 0})
	waitShardConns(t, c, 1, []int{0, 1})
	waitShardConns(t, c, 2, []int{1, 0})

	if err := c.StopNode(1); err != nil {
		t.Fatal(err)
	}
	waitShardConns(t, c, 1, []int{0, 0})
	if nc, err := net.DialTimeout("tcp4", net.JoinHostPort("127.0.0.2", strconv.Itoa(port)), time.Second); err == nil {
		_ = nc.Close()
		t.Errorf("a stopped node's shard-aware port accepted a connection")
	}
	if err := c.StartNode(1); err != nil {
		t.Fatal(err)
	}
	dial(1)
	waitShardConns(t, c, 1, []int{0, 1})
}
