package native

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/native/internal/conn"
)

// hostPool keeps Config.ConnsPerHost connections to one node, or one per shard to a sharded
// ScyllaDB node (see shard.go). pick never blocks: when no connection is open it starts
// refilling in the background and reports the last dial error.
type hostPool struct {
	s    *Session
	addr string

	conns atomic.Pointer[[]*conn.Conn] // open (or recently open) connections; replaced, never modified
	// shards is the connection of each shard once a connection found the node sharded (nil
	// before, and with Config.DisableShardAwareness); replaced with conns, never modified.
	shards atomic.Pointer[shardConns]

	mu        sync.Mutex
	refilling bool
	closed    bool
	lastErr   error
	lostErr   error         // why the last pruned connection closed, until a connection opens
	wasUp     bool          // a connection was open at some point
	probing   bool          // suspect's probe is running
	wake      chan struct{} // buffered 1: cut a refill's backoff short (a node came back)
	// awarePortFailed is when the node's shard-aware port last did not answer or did not
	// give the shard asked for (zero when never): for awarePortRetry after that, its
	// connections go through the ordinary port.
	awarePortFailed time.Time
	// youngDelay is how long a refill waits before it dials, after connections that closed
	// within youngClose of opening (see closedAfter); 0 once one lived longer.
	youngDelay time.Duration
}

// youngClose is how long a connection must stay open for its close not to count as the node
// refusing it (see hostPool.closedAfter).
const youngClose = time.Second

func newHostPool(s *Session, addr string) *hostPool {
	p := &hostPool{s: s, addr: addr, wake: make(chan struct{}, 1)}
	empty := []*conn.Conn{}
	p.conns.Store(&empty)
	return p
}

// pick returns the open connection with the fewest requests in flight, or nil with the
// reason when none is open.
func (p *hostPool) pick() (*conn.Conn, error) {
	conns := *p.conns.Load()
	var best *conn.Conn
	bestLoad := 0
	var dead error // why the first closed connection closed
	for _, c := range conns {
		if err := c.Err(); err != nil {
			if dead == nil {
				dead = err
			}
			continue
		}
		if load := c.InFlight(); best == nil || load < bestLoad {
			best, bestLoad = c, load
		}
	}
	if dead != nil || p.short(len(conns)) {
		p.startRefill()
	}
	if best == nil {
		p.mu.Lock()
		err, lost := p.lastErr, p.lostErr
		closed := p.closed
		p.mu.Unlock()
		if closed {
			if p.s.closed.Load() {
				return nil, ErrSessionClosed
			}
			return nil, notSentError{errors.New("the node left the cluster")}
		}
		switch {
		case err != nil: // the last dial failed
		case dead != nil:
			err = dead // the connections broke, and no dial has failed since
		case lost != nil:
			err = lost // the same, with the broken connections already dropped
		default:
			err = errors.New("no open connection yet")
		}
		return nil, notSentError{fmt.Errorf("%w: %w", ErrConnClosed, err)}
	}
	return best, nil
}

// short reports whether the pool, holding n connections, lacks some.
func (p *hostPool) short(n int) bool {
	if sc := p.shards.Load(); sc != nil {
		return sc.missing > 0
	}
	return n < p.s.cfg.ConnsPerHost
}

// all returns the open connections.
func (p *hostPool) all() []*conn.Conn { return *p.conns.Load() }

// up reports whether at least one connection is open.
func (p *hostPool) up() bool {
	for _, c := range *p.conns.Load() {
		if c.Err() == nil {
			return true
		}
	}
	return false
}

// down reports whether the node is known to be down: no connection is open, and the last
// dial failed or connections were open before. A pool still making its first connection is
// not down.
func (p *hostPool) down() bool {
	if p.up() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr != nil || p.wasUp
}

// fill dials connections until the pool is full, in the caller's goroutine. It returns the
// first dial error when no connection could be opened, and errShardsMissing when a sharded
// node's ordinary port kept giving shards already served (4 connections per shard tried).
func (p *hostPool) fill(ctx context.Context) error {
	tries := 0
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return ErrSessionClosed
		}
		live := p.pruneLocked()
		p.mu.Unlock()
		var c *conn.Conn
		var err error
		if sc := p.shards.Load(); sc != nil {
			shard := sc.firstMissing()
			if shard < 0 {
				return nil
			}
			if tries >= 4*sc.sh.shards {
				return errShardsMissing
			}
			tries++
			c, err = p.dialShard(ctx, sc.sh, shard)
		} else {
			if live >= p.s.cfg.ConnsPerHost {
				return nil
			}
			c, err = p.s.dial(ctx, p.addr)
		}
		if err != nil {
			if p.s.ctx.Err() != nil {
				// Close cut the dial short: no failure of the node's, and its error (the
				// context's) must not reach a request, which would take it for its own
				// context's end.
				return ErrSessionClosed
			}
			p.mu.Lock()
			p.lastErr = err
			p.mu.Unlock()
			return err
		}
		if err := p.add(ctx, c); err != nil {
			return err
		}
	}
}

// add puts the new connection c in the pool, or closes it when the pool is closed or full.
// It holds the session's useMu (for reading) from the check of c's keyspace, which a USE may
// have changed during the dial, until c is in the pool: a USE then either ran before, and c
// follows it, or runs after, and reaches c.
func (p *hostPool) add(ctx context.Context, c *conn.Conn) error {
	p.s.useMu.RLock()
	defer p.s.useMu.RUnlock()
	if err := p.s.alignKeyspace(ctx, c, p.s.Keyspace()); err != nil {
		if p.s.ctx.Err() != nil {
			return ErrSessionClosed // as for a dial that Close cut short (see fill)
		}
		p.mu.Lock()
		p.lastErr = err
		p.mu.Unlock()
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return ErrSessionClosed
	}
	p.lastErr, p.lostErr, p.wasUp = nil, nil, true
	live := p.pruneLocked()
	sc := p.shards.Load()
	// A node naming no valid shard for c is taken as unsharded.
	if sh, shard, sharded := connSharding(c); sharded && !p.s.cfg.DisableShardAwareness {
		p.s.sharded.Store(true)
		if sc == nil || sc.sh != sh {
			sc = newShardConns(sh, *p.conns.Load()) // the first connection, or the node restarted resharded
		}
		p.shards.Store(sc)
		if sc.conns[shard] != nil {
			c.Close() // the node gave a shard already served (or a concurrent fill got there first)
			return nil
		}
	} else {
		if sc != nil {
			p.shards.Store(nil) // the node restarted unsharded
		}
		if live >= p.s.cfg.ConnsPerHost {
			c.Close() // a concurrent fill got there first
			return nil
		}
	}
	next := append(append([]*conn.Conn(nil), *p.conns.Load()...), c)
	p.setConnsLocked(next)
	// When c closes (the server dropped it, a heartbeat found it dead), the pool refills at
	// once, as gocql's does: otherwise a node whose connections closed without a topology
	// event would stay without connection until a request picked it, and a caller that routes
	// around nodes without connection (compat/gocql) never would. Added under p.mu, as in
	// startRefill, so the session's Close waits for it.
	opened := time.Now()
	p.s.wg.Add(1)
	go func() {
		defer p.s.wg.Done()
		<-c.Done()
		p.closedAfter(time.Since(opened))
		p.startRefill()
	}()
	return nil
}

// closedAfter records that a connection of the pool closed after being open for life. A node
// (or a proxy in front of it) that closes connections right after their handshake refuses them
// as surely as one whose dials fail, but each dial succeeds, which would reset the refill's
// backoff: reconnecting at once every time, a pool under load opened hundreds of connections a
// second to it. So a connection that closes within youngClose makes the next refill wait
// before it dials, 100 ms doubling to 10 s as after failed dials; one that lived longer resets
// the wait.
func (p *hostPool) closedAfter(life time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if life >= youngClose {
		p.youngDelay = 0
		return
	}
	p.youngDelay = min(max(2*p.youngDelay, 100*time.Millisecond), 10*time.Second)
}

// pruneLocked drops closed connections and returns how many are open. It keeps why the
// dropped connections closed, for pick to report while no connection is open.
func (p *hostPool) pruneLocked() int {
	conns := *p.conns.Load()
	live := make([]*conn.Conn, 0, len(conns))
	for _, c := range conns {
		if err := c.Err(); err != nil {
			p.lostErr = err
			continue
		}
		live = append(live, c)
	}
	if len(live) != len(conns) {
		p.setConnsLocked(live)
	}
	return len(live)
}

// setConnsLocked makes conns the pool's connections, and places them in their shards when the
// node is sharded.
func (p *hostPool) setConnsLocked(conns []*conn.Conn) {
	p.conns.Store(&conns)
	if sc := p.shards.Load(); sc != nil {
		p.shards.Store(newShardConns(sc.sh, conns))
	}
}

// startRefill starts a background refill unless one is running.
func (p *hostPool) startRefill() {
	p.mu.Lock()
	if p.refilling || p.closed {
		p.mu.Unlock()
		return
	}
	p.refilling = true
	// Added under p.mu: Close marks the pool closed under p.mu before it waits for the
	// session's goroutines, so this Add happens before that Wait or not at all.
	p.s.wg.Add(1)
	p.mu.Unlock()
	go p.refill()
}

// refill dials until the pool is full, backing off between failures (100 ms doubling to
// 10 s), until it succeeds or the session closes. After connections that closed right after
// opening, it waits before its first dial too (see closedAfter).
func (p *hostPool) refill() {
	defer p.s.wg.Done()
	backoff := 100 * time.Millisecond
	p.mu.Lock()
	wait := p.youngDelay
	p.mu.Unlock()
	for {
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-p.wake:
				t.Stop()
				backoff = 100 * time.Millisecond
			case <-p.s.ctx.Done():
				t.Stop()
			}
		}
		ctx, cancel := context.WithTimeout(p.s.ctx, p.s.cfg.ConnectTimeout)
		err := p.fill(ctx)
		cancel()
		if err == nil || errors.Is(err, ErrSessionClosed) || p.s.ctx.Err() != nil {
			p.mu.Lock()
			p.refilling = false
			p.mu.Unlock()
			return
		}
		wait = backoff
		backoff = min(backoff*2, 10*time.Second)
	}
}

// kick makes a pool that is not full try to connect now: it wakes a refill sleeping in its
// backoff, or starts one.
func (p *hostPool) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
	p.startRefill()
}

// downProbeTimeout bounds how long each connection of a node the cluster reports DOWN has to
// answer suspect's probe (ConnectTimeout when shorter).
const downProbeTimeout = 2 * time.Second

// suspect checks the node's connections after the cluster reported the node DOWN (a
// STATUS_CHANGE event, sent once the other nodes' failure detector convicted it): each open
// connection must answer an OPTIONS within downProbeTimeout, or it is closed as a failed
// heartbeat would close it, and the pool reconnects in the background as after any loss. A
// node that is gone closed its connections already; this is for one that stopped answering
// without closing them (a paused process, a partition), which would otherwise hold every
// request sent to it until the request's timeout, for as long as the heartbeat takes to give
// up (HeartbeatInterval, then as long again or ConnectTimeout when longer). A node that
// answers keeps its connections: the other nodes may have lost it while the client still
// reaches it. suspect does not wait.
func (p *hostPool) suspect() {
	p.mu.Lock()
	if p.closed || p.probing {
		p.mu.Unlock()
		return
	}
	p.probing = true
	p.mu.Unlock()
	done := func() {
		p.mu.Lock()
		p.probing = false
		p.mu.Unlock()
	}
	if !p.s.enter() {
		done()
		return
	}
	go func() {
		defer p.s.wg.Done()
		defer done()
		timeout := min(downProbeTimeout, p.s.cfg.ConnectTimeout)
		var wg sync.WaitGroup
		for _, c := range p.all() {
			if c.Err() != nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.Probe(p.s.ctx, timeout)
			}()
		}
		wg.Wait()
	}()
}

// retire takes the pool of a node that left the topology (decommissioned, replaced, or
// rejected by Config.HostFilter) out of service: no request picks it any more, its idle
// connections close at once, and those with requests in flight close when the last response
// arrives, so that those requests complete as they would have, within the request timeout
// (or DefaultTimeout when the timeout is disabled). Closing them at once would fail every
// request in flight on them, non-idempotent ones included, with ErrConnClosed.
func (p *hostPool) retire() {
	busy := closeIdle(p.takeAll())
	if len(busy) == 0 {
		return
	}
	grace := p.s.cfg.Timeout
	if grace <= 0 {
		grace = DefaultTimeout
	}
	// Called by the control connection's goroutine (or by Connect), which the session's
	// WaitGroup counts: Close waits for this one too.
	p.s.wg.Add(1)
	go func() {
		defer p.s.wg.Done()
		drain(p.s.ctx, busy, grace)
	}()
}

// drainPoll is how often drain looks for connections with nothing left in flight.
const drainPoll = 10 * time.Millisecond

// drain closes each connection once nothing is in flight on it, the rest after grace or when
// ctx ends.
func drain(ctx context.Context, conns []*conn.Conn, grace time.Duration) {
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(drainPoll)
	defer tick.Stop()
	for len(conns) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-tick.C:
		}
		conns = closeIdle(conns)
	}
}

// closeIdle closes the connections of conns with nothing in flight (and the broken ones), and
// returns the others in a new slice (conns may be a pool's, which readers share).
func closeIdle(conns []*conn.Conn) []*conn.Conn {
	var busy []*conn.Conn
	for _, c := range conns {
		if c.InFlight() > 0 && c.Err() == nil {
			busy = append(busy, c)
		} else {
			c.Close()
		}
	}
	return busy
}

// takeAll marks the pool closed and takes its connections out of it.
func (p *hostPool) takeAll() []*conn.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	conns := *p.conns.Load()
	empty := []*conn.Conn{}
	p.conns.Store(&empty)
	p.shards.Store(nil)
	return conns
}
