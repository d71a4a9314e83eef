package cqlsim

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
)

// node is one simulated node: a listener (two with a shard-aware port) and the connections it
// accepted. A node can be stopped and started again (Cluster.StopNode, Cluster.StartNode) on
// the same address.
type node struct {
	cluster *Cluster
	index   int
	addr    string

	life sync.Mutex // serialises start and stop

	mu      sync.Mutex // guards the fields below
	ln      net.Listener
	shardLn net.Listener // the shard-aware port's listener (Options.ShardAwarePort), else nil
	conns   map[*conn]struct{}
	running bool
	wg      sync.WaitGroup // accept loop and connection goroutines

	// pmu guards prepared: the ids of the statements prepared on this node. As on Cassandra,
	// where each node has its own prepared statement cache, a node answers UNPREPARED for a
	// statement prepared only on other nodes (the engine's shared cache decides what any node
	// may still know: a statement it forgets is forgotten everywhere). Like Cassandra, which
	// keeps prepared statements in system.prepared_statements, a node remembers them across a
	// restart.
	pmu      sync.RWMutex
	prepared map[string]struct{}

	delay  atomic.Int64 // time.Duration every statement waits before it runs (SetNodeDelay)
	faults faultList    // errors answered in place of statements (InjectFault)
	// frozen, while FreezeNode holds the node, is a channel that ThawNode (or StopNode)
	// closes; the connections' writers send nothing until then.
	frozen atomic.Pointer[chan struct{}]

	shards *nodeShards // sharding state (Options.Shards), else nil; set before start
}

func newNode(c *Cluster, index int, ln net.Listener) *node {
	return &node{cluster: c, index: index, addr: ln.Addr().String(), ln: ln, conns: make(map[*conn]struct{}),
		prepared: make(map[string]struct{})}
}

// start runs the accept loops on the node's current listeners.
func (n *node) start() {
	n.mu.Lock()
	n.running = true
	ln, shardLn := n.ln, n.shardLn
	n.wg.Add(1)
	if shardLn != nil {
		n.wg.Add(1)
	}
	n.mu.Unlock()
	go n.acceptLoop(ln, false)
	if shardLn != nil {
		go n.acceptLoop(shardLn, true)
	}
}

// learn records that the statement with the given id was prepared on the node.
func (n *node) learn(id []byte) {
	n.pmu.Lock()
	n.prepared[string(id)] = struct{}{}
	n.pmu.Unlock()
}

// lookup returns the prepared statement with the given id when the node knows it: it was
// prepared on this node and the engine has not forgotten it.
func (n *node) lookup(id []byte) (*engine.Prepared, bool) {
	n.pmu.RLock()
	_, known := n.prepared[string(id)]
	n.pmu.RUnlock()
	if !known {
		return nil, false
	}
	return n.cluster.engine.Lookup(id)
}

func (n *node) isRunning() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.running
}

// acceptLoop accepts connections on ln: the regular port's listener, or the shard-aware
// port's when shardAware.
func (n *node) acceptLoop(ln net.Listener, shardAware bool) {
	defer n.wg.Done()
	log := n.cluster.opts.Logger
	for {
		nc, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log.Warn("cqlsim: accept failed; node stops accepting", "node", n.addr, "err", err)
			}
			return
		}
		c := newConn(n, nc)
		n.mu.Lock()
		if !n.running {
			n.mu.Unlock()
			_ = nc.Close()
			return
		}
		n.conns[c] = struct{}{}
		if n.shards != nil {
			n.shards.accepted(c, shardAware)
		}
		n.wg.Add(2)
		n.mu.Unlock()
		log.Debug("cqlsim: connection accepted", "node", n.addr, "client", nc.RemoteAddr().String())
		go c.readLoop()
		go c.writeLoop()
	}
}

// forget removes a finished connection from the node's set.
func (n *node) forget(c *conn) {
	n.mu.Lock()
	delete(n.conns, c)
	n.mu.Unlock()
	if n.shards != nil {
		n.shards.closed(c)
	}
}

// stop closes the listeners and every connection and waits for their goroutines. Stopping a
// stopped node does nothing.
func (n *node) stop() error {
	n.life.Lock()
	defer n.life.Unlock()
	n.mu.Lock()
	if !n.running {
		n.mu.Unlock()
		return nil
	}
	n.running = false
	conns := make([]*conn, 0, len(n.conns))
	for c := range n.conns {
		conns = append(conns, c)
	}
	ln, shardLn := n.ln, n.shardLn
	n.mu.Unlock()
	err := closeListener(ln)
	if shardLn != nil {
		err = errors.Join(err, closeListener(shardLn))
	}
	// A frozen node's writers wait for the thaw, also those of connections the client closed
	// (which are no longer listed): let them go.
	n.thaw()
	for _, c := range conns {
		c.shutdown()
	}
	n.wg.Wait()
	return err
}

// freeze makes the node's connections send nothing until thaw; it reports false when the node
// was frozen already.
func (n *node) freeze() bool {
	ch := make(chan struct{})
	return n.frozen.CompareAndSwap(nil, &ch)
}

// thaw lets a frozen node's connections send again; it reports false when the node was not
// frozen.
func (n *node) thaw() bool {
	ch := n.frozen.Swap(nil)
	if ch == nil {
		return false
	}
	close(*ch)
	return true
}

// closeListener closes ln; closing a closed listener is not an error.
func closeListener(ln net.Listener) error {
	if err := ln.Close(); !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// restart listens again on the node's address (and shard-aware port) and starts accepting.
// Restarting a running node does nothing.
func (n *node) restart() error {
	n.life.Lock()
	defer n.life.Unlock()
	if n.isRunning() {
		return nil
	}
	ln, err := net.Listen("tcp4", n.addr)
	if err != nil {
		return fmt.Errorf("cqlsim: restarting node %s: %w", n.addr, err)
	}
	var shardLn net.Listener
	if n.cluster.shardPort != 0 {
		if shardLn, err = n.listenShardAware(); err != nil {
			_ = ln.Close()
			return fmt.Errorf("cqlsim: restarting node %s: shard-aware port: %w", n.addr, err)
		}
	}
	n.mu.Lock()
	n.ln = ln
	n.shardLn = shardLn
	n.mu.Unlock()
	n.start()
	return nil
}
