package native

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// refShard is the owning shard of token computed with big integers, from the algorithm's
// definition: bias the token to 0 .. 2^64-1, keep its low 64-msb bits as a fraction of the
// range (shifted back to 64 bits), scale by the shard count, round down.
func refShard(token int64, shards int, msb uint) int {
	v := new(big.Int).Add(big.NewInt(token), new(big.Int).Lsh(big.NewInt(1), 63))
	mod := new(big.Int).Lsh(big.NewInt(1), 64)
	v.Lsh(v, msb).Mod(v, mod)
	v.Mul(v, big.NewInt(int64(shards))).Rsh(v, 64)
	return int(v.Int64())
}

func TestShardOfToken(t *testing.T) {
	for _, n := range []int{2, 3, 7, 12, 64, 1024} {
		sh := sharding{shards: n, ignoreMSB: 12}
		if got := sh.shardOf(math.MinInt64); got != 0 {
			t.Errorf("%d shards: the lowest token is on shard %d, want 0", n, got)
		}
		if got := sh.shardOf(math.MaxInt64); got != n-1 {
			t.Errorf("%d shards: the highest token is on shard %d, want %d", n, got, n-1)
		}
		r := rand.New(rand.NewPCG(uint64(n), 1))
		for range 2000 {
			tok := int64(r.Uint64())
			if got, want := sh.shardOf(tok), refShard(tok, n, 12); got != want {
				t.Fatalf("%d shards: token %d on shard %d, want %d", n, tok, got, want)
			}
		}
	}
	// With 2 shards and 12 bits ignored, the shard is the 13th bit of the biased token.
	sh := sharding{shards: 2, ignoreMSB: 12}
	below := int64(math.MinInt64) + (1<<51 - 1) // biased: 0x0007ff..f
	above := int64(math.MinInt64) + 1<<51       // biased: 0x000800..0
	if sh.shardOf(below) != 0 || sh.shardOf(above) != 1 {
		t.Errorf("shards of %d and %d: %d and %d, want 0 and 1", below, above, sh.shardOf(below), sh.shardOf(above))
	}
	// No bit ignored: the two halves of the ring.
	sh.ignoreMSB = 0
	if sh.shardOf(-1) != 0 || sh.shardOf(0) != 1 {
		t.Errorf("without ignored bits: shards of -1 and 0: %d and %d, want 0 and 1", sh.shardOf(-1), sh.shardOf(0))
	}
}

func TestShardingOf(t *testing.T) {
	scylla := func(edit func(map[string][]string)) map[string][]string {
		sup := map[string][]string{
			"SCYLLA_SHARD":                {"3"},
			"SCYLLA_NR_SHARDS":            {"12"},
			"SCYLLA_PARTITIONER":          {"org.apache.cassandra.dht.Murmur3Partitioner"},
			"SCYLLA_SHARDING_ALGORITHM":   {"biased-token-round-robin"},
			"SCYLLA_SHARDING_IGNORE_MSB":  {"12"},
			"SCYLLA_SHARD_AWARE_PORT":     {"19042"},
			"SCYLLA_SHARD_AWARE_PORT_SSL": {"19142"},
		}
		if edit != nil {
			edit(sup)
		}
		return sup
	}
	sh, ok := shardingOf(scylla(nil))
	if want := (sharding{shards: 12, ignoreMSB: 12, port: 19042, portTLS: 19142}); !ok || sh != want {
		t.Errorf("ScyllaDB's options: %+v, %v; want %+v", sh, ok, want)
	}
	sh, ok = shardingOf(scylla(func(m map[string][]string) {
		delete(m, "SCYLLA_SHARD_AWARE_PORT")
		m["SCYLLA_SHARD_AWARE_PORT_SSL"] = []string{"70000"}
	}))
	if !ok || sh.port != 0 || sh.portTLS != 0 {
		t.Errorf("without (valid) shard-aware ports: %+v, %v; want sharded, ports 0", sh, ok)
	}
	notSharded := map[string]func(map[string][]string){
		"Cassandra": func(m map[string][]string) { clear(m) },
		"one shard": func(m map[string][]string) { m["SCYLLA_NR_SHARDS"] = []string{"1"} },
		"too many":  func(m map[string][]string) { m["SCYLLA_NR_SHARDS"] = []string{strconv.Itoa(maxShards + 1)} },
		"not a number": func(m map[string][]string) {
			m["SCYLLA_NR_SHARDS"] = []string{"twelve"}
		},
		"other algorithm":   func(m map[string][]string) { m["SCYLLA_SHARDING_ALGORITHM"] = []string{"round-robin"} },
		"other partitioner": func(m map[string][]string) { m["SCYLLA_PARTITIONER"] = []string{"RandomPartitioner"} },
		"msb out of range":  func(m map[string][]string) { m["SCYLLA_SHARDING_IGNORE_MSB"] = []string{"64"} },
		"two values":        func(m map[string][]string) { m["SCYLLA_NR_SHARDS"] = []string{"12", "4"} },
	}
	for name, edit := range notSharded {
		if sh, ok := shardingOf(scylla(edit)); ok {
			t.Errorf("%s: read as sharded: %+v", name, sh)
		}
	}
}

func TestLocalPortForShard(t *testing.T) {
	for _, n := range []int{2, 3, 12, 1000, 1024} {
		seen := map[int]bool{}
		for shard := range n {
			for range 20 {
				p := localPortFor(shard, n)
				if p < shardPortLow || p > shardPortHigh || p%n != shard {
					t.Fatalf("%d shards, shard %d: port %d (want %d..%d, port %% %d == %d)", n, shard, p, shardPortLow, shardPortHigh, n, shard)
				}
				seen[p] = true
			}
		}
		if len(seen) < n*10 {
			t.Errorf("%d shards: only %d distinct ports in %d picks", n, len(seen), n*20)
		}
	}
}

// Through the shard-aware port, every connection but a node's first (opened before the
// session knew the node sharded) comes from a local port that selects its shard.
func TestShardAwarePortSelectsTheShard(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Shards: 4, ShardAwarePort: true})
	s, err := Connect(context.Background(), Config{Hosts: cl.Addrs()[:1]})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range s.state.Load().pools {
		sc := p.shards.Load()
		if sc == nil || sc.missing != 0 {
			t.Fatalf("pool of %s: shards %+v, want all four", p.addr, sc)
		}
		selected := 0
		for shard, c := range sc.conns {
			port := c.LocalAddr().(*net.TCPAddr).Port
			if port >= shardPortLow && port%4 == shard {
				selected++
			}
		}
		if selected < 3 {
			t.Errorf("pool of %s: %d connections from a port selecting their shard, want at least 3", p.addr, selected)
		}
	}
}

// A shard-aware port that gives connections other shards than their source ports select (a
// proxy or NAT in between rewrites them) or that does not answer is given up for the node's
// ordinary port, which still connects.
func TestShardAwarePortFallbacks(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Shards: 4, ShardAwarePort: true})
	s, err := Connect(context.Background(), Config{Hosts: cl.Addrs()[:1]})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.state.Load().pools[0]
	sc := p.shards.Load()
	if sc == nil {
		t.Fatal("the pool did not find the node sharded")
	}
	host, _, _ := net.SplitHostPort(p.addr)
	portOf := func(addr string) int {
		_, port, _ := net.SplitHostPort(addr)
		n, _ := strconv.Atoi(port)
		return n
	}
	proxy := cqltest.NewProxy(t, net.JoinHostPort(host, strconv.Itoa(cl.ShardAwarePort())))
	closed := cqltest.Listen(t)
	closedPort := portOf(closed.Addr().String())
	closed.Close()
	for _, tc := range []struct {
		name string
		port int
	}{{"source ports rewritten", portOf(proxy.Addr())}, {"port closed", closedPort}} {
		t.Run(tc.name, func(t *testing.T) {
			p.mu.Lock()
			p.awarePortFailed = time.Time{}
			p.mu.Unlock()
			sh := sc.sh
			sh.port = tc.port
			// Through the proxy a connection reaches the shard asked for one time in four.
			failed := func() bool {
				p.mu.Lock()
				defer p.mu.Unlock()
				return !p.awarePortFailed.IsZero()
			}
			for try := 0; try < 20 && !failed(); try++ {
				c, err := p.dialShard(context.Background(), sh, 1)
				if err != nil {
					t.Fatalf("dialShard: %v", err)
				}
				c.Close()
			}
			if !failed() {
				t.Fatal("the shard-aware port is still used")
			}
			sent := settled(proxy)
			c, err := p.dialShard(context.Background(), sh, 1)
			if err != nil {
				t.Fatalf("dialShard after the fallback: %v", err)
			}
			c.Close()
			if proxy.Sent() != sent {
				t.Errorf("after the fallback a connection went through the shard-aware port (the proxy sent %d more bytes)", proxy.Sent()-sent)
			}
			// awarePortRetry later, the port is tried again.
			p.mu.Lock()
			p.awarePortFailed = time.Now().Add(-awarePortRetry - time.Second)
			p.mu.Unlock()
			if tc.port == closedPort {
				c, err := p.dialShard(context.Background(), sh, 1)
				if err != nil {
					t.Fatalf("dialShard once the port may be tried again: %v", err)
				}
				c.Close()
				if time.Since(p.awarePortFailed) > awarePortRetry {
					t.Error("the closed shard-aware port was not tried again (the pool did not mark it failed anew)")
				}
				return
			}
			sent = settled(proxy)
			for try := 0; try < 20 && proxy.Sent() == sent; try++ {
				c, err := p.dialShard(context.Background(), sh, 1)
				if err != nil {
					t.Fatalf("dialShard once the port may be tried again: %v", err)
				}
				c.Close()
				p.mu.Lock()
				p.awarePortFailed = time.Now().Add(-awarePortRetry - time.Second)
				p.mu.Unlock()
			}
			if proxy.Sent() == sent {
				t.Error("awarePortRetry after the fallback, no connection went through the shard-aware port again")
			}
		})
	}
}

// settled returns the bytes the proxy sent once the count has stopped moving for 50ms: the
// proxy relays the last bytes of closed connections after Close has returned.
func settled(p *cqltest.Proxy) int64 {
	n := p.Sent()
	for {
		time.Sleep(50 * time.Millisecond)
		m := p.Sent()
		if m == n {
			return n
		}
		n = m
	}
}
