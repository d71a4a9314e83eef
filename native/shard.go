package native

import (
	"context"
	"errors"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"syscall"
	"time"

	"github.com/cqlbridge/cqlbridge/native/internal/conn"
)

// ScyllaDB runs one shard per core, each owning a slice of every node's token range; a request
// arriving on a connection served by another shard is handed over between cores. A node
// describes its sharding in the SUPPORTED options of every connection (see
// Config.DisableShardAwareness).
const (
	// maxShards is the largest shard count believed: a node reporting more is treated as not
	// sharded, rather than opening that many connections.
	maxShards = 1024
	// shardPortLow and shardPortHigh bound the local ports chosen to select a shard through
	// the shard-aware port (the IANA dynamic range, as ScyllaDB's drivers use).
	shardPortLow  = 49152
	shardPortHigh = 65535
	// shardPortTries is how many local ports one connection to the shard-aware port tries
	// when the chosen one is in use.
	shardPortTries = 8
)

// errShardsMissing ends a fill that could not reach every shard of a sharded node within its
// budget of connections through the node's ordinary port: the pool works with the shards it
// has, and its refill tries again after a backoff.
var errShardsMissing = errors.New("native: some shards of the node have no connection yet")

// sharding is how a ScyllaDB node splits its token range between its shards.
type sharding struct {
	shards    int  // SCYLLA_NR_SHARDS
	ignoreMSB uint // SCYLLA_SHARDING_IGNORE_MSB
	port      int  // SCYLLA_SHARD_AWARE_PORT, 0 when the node has none
	portTLS   int  // SCYLLA_SHARD_AWARE_PORT_SSL, 0 when the node has none
}

// shardingOf reads a node's sharding from the SUPPORTED options of a connection to it; ok is
// false when the node does not shard by token in the way this package knows (not ScyllaDB, a
// single shard, another algorithm or partitioner, values out of range).
func shardingOf(sup map[string][]string) (sh sharding, ok bool) {
	if option(sup, "SCYLLA_SHARDING_ALGORITHM") != "biased-token-round-robin" ||
		option(sup, "SCYLLA_PARTITIONER") != "org.apache.cassandra.dht.Murmur3Partitioner" {
		return sharding{}, false
	}
	n, err := strconv.Atoi(option(sup, "SCYLLA_NR_SHARDS"))
	if err != nil || n < 2 || n > maxShards {
		return sharding{}, false
	}
	msb, err := strconv.ParseUint(option(sup, "SCYLLA_SHARDING_IGNORE_MSB"), 10, 8)
	if err != nil || msb > 63 {
		return sharding{}, false
	}
	return sharding{shards: n, ignoreMSB: uint(msb), port: portOption(sup, "SCYLLA_SHARD_AWARE_PORT"),
		portTLS: portOption(sup, "SCYLLA_SHARD_AWARE_PORT_SSL")}, true
}

// option returns the single value of a SUPPORTED option, or "".
func option(sup map[string][]string, key string) string {
	if v := sup[key]; len(v) == 1 {
		return v[0]
	}
	return ""
}

// portOption returns a SUPPORTED option's port, or 0 when it is absent or not a port.
func portOption(sup map[string][]string, key string) int {
	p, err := strconv.Atoi(option(sup, key))
	if err != nil || p < 1 || p > 65535 {
		return 0
	}
	return p
}

// shardOf returns the shard owning token: the token is biased to an unsigned order, its
// ignored most significant bits dropped, and the rest scaled to the shard count.
func (sh sharding) shardOf(token int64) int {
	u := uint64(token) + 1<<63
	u <<= sh.ignoreMSB
	hi, _ := bits.Mul64(u, uint64(sh.shards))
	return int(hi)
}

// connSharding reads, from the SUPPORTED options of c, its node's sharding and the shard
// serving c; ok is false when the node is not sharded in a way this package knows, or names
// no valid shard for c.
func connSharding(c *conn.Conn) (sh sharding, shard int, ok bool) {
	sup := c.Supported()
	if sh, ok = shardingOf(sup); !ok {
		return sharding{}, 0, false
	}
	shard, err := strconv.Atoi(option(sup, "SCYLLA_SHARD"))
	if err != nil || shard < 0 || shard >= sh.shards {
		return sharding{}, 0, false
	}
	return sh, shard, true
}

// localPortFor picks a random local port that the shard-aware port maps to shard (the port
// modulo the shard count).
func localPortFor(shard, shards int) int {
	first := shardPortLow + ((shard-shardPortLow%shards)%shards+shards)%shards
	return first + shards*rand.IntN((shardPortHigh-first)/shards+1)
}

// shardConns is a sharded node's connection of each shard.
type shardConns struct {
	sh      sharding
	conns   []*conn.Conn // conns[i] serves shard i; nil when shard i has none
	missing int          // shards without a connection
}

// newShardConns places the connections of live that sh describes in their shards' slots
// (the first of a shard; the others are not expected, see hostPool.add).
func newShardConns(sh sharding, live []*conn.Conn) *shardConns {
	sc := &shardConns{sh: sh, conns: make([]*conn.Conn, sh.shards), missing: sh.shards}
	for _, c := range live {
		if own, shard, ok := connSharding(c); ok && own == sh && sc.conns[shard] == nil {
			sc.conns[shard] = c
			sc.missing--
		}
	}
	return sc
}

// firstMissing returns the lowest shard without a connection, or -1.
func (sc *shardConns) firstMissing() int {
	for i, c := range sc.conns {
		if c == nil {
			return i
		}
	}
	return -1
}

// pickFor returns the connection of the shard owning token when the node is sharded and that
// connection is open and has a free stream id, else what pick returns. shard, when not -1, is
// the shard owning the partition on this node (its tablet's, see tablets.go), which the token
// does not tell.
func (p *hostPool) pickFor(token int64, hasToken bool, shard int) (*conn.Conn, error) {
	if hasToken {
		if sc := p.shards.Load(); sc != nil {
			if shard < 0 || shard >= len(sc.conns) {
				shard = sc.sh.shardOf(token)
			}
			if c := sc.conns[shard]; c != nil && c.Err() == nil && !c.Saturated() {
				if sc.missing > 0 {
					p.startRefill()
				}
				return c, nil
			}
		}
	}
	return p.pick()
}

// dialShard opens a connection meant for shard of a node sharded as sh: through the node's
// shard-aware port from a local port that selects the shard, when there is one and it works,
// else through the ordinary port (the node then chooses the shard).
func (p *hostPool) dialShard(ctx context.Context, sh sharding, shard int) (*conn.Conn, error) {
	port := sh.port
	if p.s.cfg.TLS != nil {
		port = sh.portTLS
	}
	p.mu.Lock()
	failed := time.Since(p.awarePortFailed) < awarePortRetry // the zero time is long past
	p.mu.Unlock()
	if port == 0 || failed || p.s.cfg.DisableShardAwarePort || p.s.cfg.Dialer != nil {
		return p.s.dial(ctx, p.addr)
	}
	for range shardPortTries {
		c, err := p.s.dialPorts(ctx, p.addr, port, localPortFor(shard, sh.shards))
		if err == nil {
			if own, got, ok := connSharding(c); !ok || own != sh || got != shard {
				// Something between here and the node rewrites source ports: the port
				// cannot select shards. The connection serves a shard all the same.
				p.markAwarePortFailed()
			}
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if !errors.Is(err, syscall.EADDRINUSE) && !errors.Is(err, syscall.EADDRNOTAVAIL) {
			break
		}
	}
	// The shard-aware port does not answer, or no local port could be had. When the ordinary
	// port answers, the shard-aware one is blocked (a firewall): it is not tried again for
	// awarePortRetry.
	c, err := p.s.dial(ctx, p.addr)
	if err == nil {
		p.markAwarePortFailed()
	}
	return c, err
}

// awarePortRetry is how long a pool whose node's shard-aware port failed dials the ordinary
// port only. The port is then tried again, at the pool's next dial (a refill, while shards
// lack a connection): it may have failed only for a while (the node was starting, a firewall
// rule changed), and keeping away from it for the session's life would leave the node's shards
// to its ordinary port's choice. Where it fails for good, trying it costs one dial every
// awarePortRetry: a connection that still serves a shard (a network that rewrites source
// ports), or up to ConnectTimeout (a firewall that drops packets).
const awarePortRetry = time.Minute

// markAwarePortFailed makes the pool's connections use the node's ordinary port for
// awarePortRetry.
func (p *hostPool) markAwarePortFailed() {
	p.mu.Lock()
	p.awarePortFailed = time.Now()
	p.mu.Unlock()
}
