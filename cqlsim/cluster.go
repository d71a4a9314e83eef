package cqlsim

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
)

// Cluster is a running simulated cluster: one listener per node (two with a shard-aware port),
// all sharing one engine (one in-memory store and schema). It is safe for concurrent use.
type Cluster struct {
	opts   Options
	engine *engine.Engine
	nodes  []*node
	events *eventHub
	port   int

	shardPort  int           // the shard-aware port (Options.ShardAwarePort), else 0
	shardCount shardCounters // behind ShardStats
	tablets    *tabletRing   // the tablet layout (Options.Tablets), else nil

	life     sync.Mutex // serialises Close, StopNode and StartNode
	closed   bool
	closeErr error

	// afterFaultCheck, when set (only by the package's tests), runs after a statement's
	// fault check and before the statement runs.
	afterFaultCheck atomic.Pointer[func()]
}

// Start starts a cluster of opts.Nodes nodes and returns once every node accepts connections.
func Start(opts Options) (*Cluster, error) {
	opts = opts.withDefaults()
	if opts.MaxProtocolVersion < 3 || opts.MaxProtocolVersion > 5 {
		return nil, fmt.Errorf("cqlsim: MaxProtocolVersion %d is not supported (use 3, 4 or 5)", opts.MaxProtocolVersion)
	}
	if len(opts.NodeDataCenters) > opts.Nodes || len(opts.NodeRacks) > opts.Nodes {
		return nil, fmt.Errorf("cqlsim: NodeDataCenters (%d entries) and NodeRacks (%d) must not list more nodes than Nodes (%d)",
			len(opts.NodeDataCenters), len(opts.NodeRacks), opts.Nodes)
	}
	if opts.NodeTokens != nil {
		if err := checkNodeTokens(opts.NodeTokens, opts.Nodes); err != nil {
			return nil, err
		}
	}
	if err := checkSharding(opts); err != nil {
		return nil, err
	}
	if err := checkTablets(opts); err != nil {
		return nil, err
	}
	host, portStr, err := net.SplitHostPort(opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("cqlsim: invalid Listen address %q: %w", opts.Listen, err)
	}
	first, err := netip.ParseAddr(host)
	if err != nil || !first.Is4() {
		return nil, fmt.Errorf("cqlsim: Listen host %q must be an IPv4 address", host)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("cqlsim: invalid Listen port %q", portStr)
	}
	addrs := make([]netip.Addr, opts.Nodes)
	addrs[0] = first
	for i := 1; i < opts.Nodes; i++ {
		addrs[i] = addrs[i-1].Next()
		if !addrs[i].IsValid() || !addrs[i].Is4() {
			return nil, fmt.Errorf("cqlsim: no IPv4 address for node %d after %s", i+1, first)
		}
	}

	listeners, err := listenAll(addrs, port)
	if err != nil {
		return nil, err
	}
	port = listeners[0].Addr().(*net.TCPAddr).Port
	var shardLns []net.Listener // the shard-aware port's, when asked for
	if opts.ShardAwarePort {
		if shardLns, err = listenAll(addrs, 0); err != nil {
			closeListeners(listeners)
			return nil, err
		}
	}

	tokens := nodeTokens(opts.Nodes)
	if opts.NodeTokens != nil {
		tokens = opts.NodeTokens
	}
	infos := make([]engine.NodeInfo, opts.Nodes)
	hostIDs := make([][16]byte, opts.Nodes)
	dcOf := make([]string, opts.Nodes)
	for i := range infos {
		hostIDs[i] = newHostID()
		dcOf[i] = nodeSetting(opts.NodeDataCenters, i, opts.DataCenter)
		infos[i] = engine.NodeInfo{
			Addr:       addrs[i].String(),
			Port:       port,
			HostID:     hostIDs[i],
			DataCenter: dcOf[i],
			Rack:       nodeSetting(opts.NodeRacks, i, opts.Rack),
			Tokens:     tokens[i],
		}
	}
	eng, err := engine.New(engine.Options{
		Nodes:          infos,
		ClusterName:    opts.ClusterName,
		ReleaseVersion: opts.ReleaseVersion,
		Now:            opts.Now,

		SchemaPropagationDelay: opts.SchemaPropagationDelay,
	})
	if err != nil {
		closeListeners(listeners)
		closeListeners(shardLns)
		return nil, fmt.Errorf("cqlsim: starting the engine: %w", err)
	}
	c := &Cluster{opts: opts, engine: eng, events: newEventHub(), port: port, tablets: newTabletRing(opts, hostIDs, dcOf)}
	for i, l := range listeners {
		n := newNode(c, i, l)
		c.nodes = append(c.nodes, n)
	}
	c.setupShards(shardLns)
	for _, n := range c.nodes {
		n.start()
	}
	return c, nil
}

// listenAll binds one TCP listener per address on the same port. With port 0 it lets the kernel
// pick a port for the first address and retries a few times when that port is taken on another.
func listenAll(addrs []netip.Addr, port int) ([]net.Listener, error) {
	const attempts = 10
	var lastErr error
	for try := 0; try < attempts; try++ {
		var ls []net.Listener
		p := port
		var err error
		for _, a := range addrs {
			var l net.Listener
			l, err = net.Listen("tcp4", net.JoinHostPort(a.String(), strconv.Itoa(p)))
			if err != nil {
				break
			}
			ls = append(ls, l)
			p = l.Addr().(*net.TCPAddr).Port
		}
		if err == nil {
			return ls, nil
		}
		closeListeners(ls)
		lastErr = err
		if port != 0 {
			break
		}
	}
	return nil, fmt.Errorf("cqlsim: listening: %w", lastErr)
}

// closeListeners closes every listener of ls.
func closeListeners(ls []net.Listener) {
	for _, l := range ls {
		_ = l.Close()
	}
}

// newHostID returns a random (version 4) uuid.
func newHostID() [16]byte {
	var id [16]byte
	_, _ = rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

// StartT starts a cluster for a test or benchmark and closes it when tb ends; it fails tb when
// the cluster cannot start.
func StartT(tb testing.TB, opts Options) *Cluster {
	tb.Helper()
	c, err := Start(opts)
	if err != nil {
		tb.Fatalf("cqlsim: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("cqlsim: closing: %v", err)
		}
	})
	return c
}

// Addrs returns the nodes' "host:port" addresses, first node first.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.addr
	}
	return out
}

// Port returns the native port all nodes listen on. Drivers take the port of the peers they
// discover from their configuration, not from the contact points, so configure it there:
// gocql's ClusterConfig.Port, the Python driver's Cluster(port=...), the Node.js driver's
// protocolOptions.port. Otherwise they look for the other nodes on 9042.
func (c *Cluster) Port() int {
	return c.port
}

// KnowsPrepared reports whether node i (0-based, in Addrs order) would execute the prepared
// statement with the given id: it was prepared on that node (each node has its own prepared
// statement cache, as on Cassandra) and not forgotten since. Tests use it to see where a driver
// prepared a statement. It is false for an i out of range.
func (c *Cluster) KnowsPrepared(i int, id []byte) bool {
	if i < 0 || i >= len(c.nodes) {
		return false
	}
	_, ok := c.nodes[i].lookup(id)
	return ok
}

// StopNode stops node i (0-based, in Addrs order) as if its process died: it stops listening
// and closes its connections. Connections to the other nodes that registered for STATUS_CHANGE
// receive a DOWN event for its address. The node stays in system.peers, as a down node does in
// Cassandra; its data is kept (all nodes share one store). Stopping a stopped node does nothing.
func (c *Cluster) StopNode(i int) error {
	c.life.Lock()
	defer c.life.Unlock()
	if i < 0 || i >= len(c.nodes) {
		return fmt.Errorf("cqlsim: StopNode(%d): the cluster has nodes 0 to %d", i, len(c.nodes)-1)
	}
	n := c.nodes[i]
	if !n.isRunning() {
		return nil
	}
	if err := n.stop(); err != nil {
		return fmt.Errorf("cqlsim: stopping node %s: %w", n.addr, err)
	}
	c.engine.NodeDown(i)
	c.publishStatusChange(n, primitive.StatusChangeTypeDown)
	return nil
}

// SetNodeDelay makes node i (0-based, in Addrs order) answer every statement (QUERY, PREPARE,
// EXECUTE, BATCH) d later than it would, as a slow or overloaded node does: each statement
// waits d before it runs, concurrently with the others. d = 0 removes the delay. The handshake,
// OPTIONS and REGISTER are answered at once, and the delay survives StopNode and StartNode.
func (c *Cluster) SetNodeDelay(i int, d time.Duration) error {
	if i < 0 || i >= len(c.nodes) {
		return fmt.Errorf("cqlsim: SetNodeDelay(%d): the cluster has nodes 0 to %d", i, len(c.nodes)-1)
	}
	if d < 0 {
		return fmt.Errorf("cqlsim: SetNodeDelay(%d, %v): the delay is negative", i, d)
	}
	c.nodes[i].delay.Store(int64(d))
	return nil
}

// FreezeNode makes node i (0-based, in Addrs order) stop answering without closing anything, as
// a node whose process is paused (SIGSTOP), stuck in a long garbage collection or cut off by a
// network partition does: its connections stay open and it accepts new ones, but it sends
// nothing on them (no answer, OPTIONS and the handshake included, no event) until ThawNode.
// Requests it receives meanwhile are read and run, and their answers go out when it thaws.
// Connections to the other nodes that registered for STATUS_CHANGE receive a DOWN event for its
// address, as Cassandra's nodes send once their failure detector convicts a silent node (after
// about ten seconds there). StopNode thaws the node. Freezing a frozen or stopped node does
// nothing.
func (c *Cluster) FreezeNode(i int) error {
	c.life.Lock()
	defer c.life.Unlock()
	if i < 0 || i >= len(c.nodes) {
		return fmt.Errorf("cqlsim: FreezeNode(%d): the cluster has nodes 0 to %d", i, len(c.nodes)-1)
	}
	n := c.nodes[i]
	if !n.isRunning() || !n.freeze() {
		return nil
	}
	c.publishStatusChange(n, primitive.StatusChangeTypeDown)
	return nil
}

// ThawNode makes a node frozen by FreezeNode answer again: what it held back goes out, and
// connections registered for STATUS_CHANGE receive an UP event. Thawing a node that is not
// frozen does nothing.
func (c *Cluster) ThawNode(i int) error {
	c.life.Lock()
	defer c.life.Unlock()
	if i < 0 || i >= len(c.nodes) {
		return fmt.Errorf("cqlsim: ThawNode(%d): the cluster has nodes 0 to %d", i, len(c.nodes)-1)
	}
	n := c.nodes[i]
	if !n.thaw() {
		return nil
	}
	c.publishStatusChange(n, primitive.StatusChangeTypeUp)
	return nil
}

// StartNode starts a node stopped by StopNode again on the same address; connections
// registered for STATUS_CHANGE receive an UP event. Starting a running node does nothing.
func (c *Cluster) StartNode(i int) error {
	c.life.Lock()
	defer c.life.Unlock()
	if i < 0 || i >= len(c.nodes) {
		return fmt.Errorf("cqlsim: StartNode(%d): the cluster has nodes 0 to %d", i, len(c.nodes)-1)
	}
	if c.closed {
		return fmt.Errorf("cqlsim: StartNode(%d): the cluster is closed", i)
	}
	n := c.nodes[i]
	if n.isRunning() {
		return nil
	}
	if err := n.restart(); err != nil {
		return err
	}
	c.engine.NodeUp(i)
	c.publishStatusChange(n, primitive.StatusChangeTypeUp)
	return nil
}

// Close stops accepting connections, closes every open connection and waits until all of the
// cluster's goroutines have returned. It is safe to call more than once.
func (c *Cluster) Close() error {
	c.life.Lock()
	defer c.life.Unlock()
	if c.closed {
		return c.closeErr
	}
	c.closed = true
	var errs []error
	for _, n := range c.nodes {
		if err := n.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	c.closeErr = errors.Join(errs...)
	return c.closeErr
}

// nodeSetting is list[i] when set, else def.
func nodeSetting(list []string, i int, def string) string {
	if i < len(list) && list[i] != "" {
		return list[i]
	}
	return def
}

// checkNodeTokens checks Options.NodeTokens: one non-empty list per node, every token a
// Murmur3 token (a 64-bit integer), none twice.
func checkNodeTokens(lists [][]string, nodes int) error {
	if len(lists) != nodes {
		return fmt.Errorf("cqlsim: NodeTokens lists %d nodes, want one list per node (%d)", len(lists), nodes)
	}
	seen := map[int64]int{}
	for i, list := range lists {
		if len(list) == 0 {
			return fmt.Errorf("cqlsim: NodeTokens[%d] is empty: every node needs a token", i)
		}
		for _, tok := range list {
			v, err := strconv.ParseInt(tok, 10, 64)
			if err != nil {
				return fmt.Errorf("cqlsim: NodeTokens[%d]: %q is not a Murmur3 token (a 64-bit integer)", i, tok)
			}
			if j, dup := seen[v]; dup {
				return fmt.Errorf("cqlsim: token %d is given to nodes %d and %d", v, j, i)
			}
			seen[v] = i
		}
	}
	return nil
}
