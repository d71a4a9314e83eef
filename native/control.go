package native

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
	"github.com/cqlbridge/cqlbridge/native/internal/conn"
	"github.com/cqlbridge/cqlbridge/native/internal/ring"
	"github.com/cqlbridge/cqlbridge/native/internal/topology"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// control is the control connection: one connection, registered for topology, status and
// schema events, from which the session reads system.local, system.peers(_v2) and
// system_schema.keyspaces into topology snapshots.
type control struct {
	s       *Session
	mu      sync.Mutex
	c       *conn.Conn
	refresh chan struct{} // buffered 1: a refresh is wanted
	// connected is set once a control connection has been installed (guarded by mu): the
	// next one replaces a connection whose events may have been lost meanwhile.
	connected bool
	// resolved is the last non-empty list of contact points Config.ResolveHosts gave, nil
	// before any: with DisablePeerDiscovery the cluster's nodes are the contact points, these
	// in place of Config.Hosts (see contactList).
	resolved atomic.Pointer[[]string]
}

// contactList returns the contact points as they are now: Config.Hosts, or the addresses
// Config.ResolveHosts last gave.
func (ctl *control) contactList() []string {
	if r := ctl.resolved.Load(); r != nil {
		return *r
	}
	return ctl.s.cfg.Hosts
}

// connect dials the contact points in order (see Config.ShuffleContactPoints) until one
// answers and reads the topology.
func (ctl *control) connect(ctx context.Context) error {
	var nh NoHostAvailableError
	for _, addr := range ctl.order(ctl.s.cfg.Hosts) {
		if err := ctl.connectTo(ctx, addr); err != nil {
			nh.Errors = append(nh.Errors, HostError{Host: addr, Err: err})
			continue
		}
		return nil
	}
	return &nh
}

// connectTo opens the control connection to addr, registers for events and refreshes.
func (ctl *control) connectTo(ctx context.Context, addr string) error {
	c, err := ctl.dialControl(ctx, addr)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, ctl.s.cfg.ConnectTimeout)
	defer cancel()
	if err := c.Register(cctx, proto.EventTopologyChange, proto.EventStatusChange, proto.EventSchemaChange); err != nil {
		c.Close()
		return err
	}
	if err := ctl.refreshOn(cctx, c); err != nil {
		c.Close()
		return err
	}
	ctl.mu.Lock()
	if ctl.s.closed.Load() {
		ctl.mu.Unlock()
		c.Close()
		return ErrSessionClosed
	}
	old := ctl.c
	ctl.c = c
	again := ctl.connected
	ctl.connected = true
	ctl.mu.Unlock()
	if old != nil {
		old.Close()
	}
	if again {
		// Schema events may have been missed while no control connection listened: a
		// table may have been dropped, or made again without tablets, which no node would
		// then correct. Tablets are learnt again on demand.
		ctl.s.tablets.forget("", "")
	}
	return nil
}

// dialControl opens a connection to addr for the control connection. While the session
// discovers its protocol version (Config.ProtocolVersion 0, until a handshake succeeds), a
// server that refuses v4 as a version it does not speak is dialled again at v3, and the session
// speaks v3 from then on; a server that answers in v1 or v2, or refuses v3 too, fails with an
// error saying so. Only that refusal downgrades: any other failure leaves the version as it is.
func (ctl *control) dialControl(ctx context.Context, addr string) (*conn.Conn, error) {
	s := ctl.s
	for {
		cfg := s.connConfig(addr, ctl.onEvent)
		cfg.Keyspace = "" // the control connection only reads system tables
		start := time.Now()
		c, err := conn.Dial(ctx, addr, cfg) // bounded by ConnectTimeout, step by step
		retry := false
		if verr := (*conn.VersionError)(nil); s.discovering && errors.As(err, &verr) {
			switch {
			case verr.Server == 1 || verr.Server == 2:
				err = fmt.Errorf("native: %s speaks protocol v%d at most; only versions 3 and 4 are supported: %w", addr, verr.Server, err)
			case verr.Version == 4:
				retry = true
				err = fmt.Errorf("native: %s does not speak protocol v4, dialling it again at v3: %w", addr, err)
			default:
				err = fmt.Errorf("native: %s speaks neither protocol v4 nor v3; only versions 3 and 4 are supported: %w", addr, err)
			}
		} else {
			err = dialError(addr, err)
		}
		s.observeConnect(addr, true, start, err)
		if err == nil {
			s.discovering = false
			return c, nil
		}
		if !retry {
			return nil, err
		}
		s.cfg.ProtocolVersion = 3 // for every connection from now on
	}
}

// order returns addrs in the order the control connection tries them: as given, or shuffled
// (in a copy) with Config.ShuffleContactPoints.
func (ctl *control) order(addrs []string) []string {
	if !ctl.s.cfg.ShuffleContactPoints || len(addrs) < 2 {
		return addrs
	}
	out := slices.Clone(addrs)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (ctl *control) onEvent(e proto.Event) {
	if e.Type == proto.EventStatusChange && e.Change == "DOWN" {
		if p := ctl.s.poolOfEvent(e.Addr); p != nil {
			p.suspect()
		}
	}
	if e.Type == proto.EventSchemaChange {
		ctl.s.tablets.schemaChanged(e.Schema)
		if f := ctl.s.cfg.OnSchemaChange; f != nil {
			f(schemaChangeOf(e.Schema))
		}
	}
	select {
	case ctl.refresh <- struct{}{}:
	default:
	}
}

// controlRetryMax bounds the wait between attempts to reopen the control connection (100 ms,
// doubling). While it is broken no node is reachable, so when the cluster comes back the
// session learns it only from the next attempt, which then reconnects the pools: gocql retries
// its control connection every second, and a longer wait would keep a session down for that
// long after a cluster restart. One dial a second to each known node costs nothing.
const controlRetryMax = time.Second

// run refreshes the topology on events and reconnects the control connection when it
// breaks, until the session closes.
func (ctl *control) run() {
	defer ctl.s.wg.Done()
	backoff := 100 * time.Millisecond
	// A refresh that failed on a working connection (a timeout, an error reading a system
	// table) is tried again after retryDelay; otherwise the topology would stay stale until
	// the next event, which may never come.
	var retry <-chan time.Time
	retryDelay := 500 * time.Millisecond
	for {
		ctl.mu.Lock()
		c := ctl.c
		ctl.mu.Unlock()
		var broken <-chan struct{}
		if c != nil {
			broken = c.Done()
		} else {
			closed := make(chan struct{})
			close(closed)
			broken = closed
		}
		select {
		case <-ctl.s.ctx.Done():
			return
		case <-retry:
			retry = nil
			select {
			case ctl.refresh <- struct{}{}:
			default:
			}
		case <-ctl.refresh:
			// Let a burst of events settle into one refresh.
			if !sleepCtx(ctl.s.ctx, 200*time.Millisecond) {
				return
			}
			select {
			case <-ctl.refresh:
			default:
			}
			ctx, cancel := context.WithTimeout(ctl.s.ctx, ctl.s.cfg.ConnectTimeout)
			err := ctl.refreshOn(ctx, c)
			cancel()
			switch {
			case err == nil:
				retry, retryDelay = nil, 500*time.Millisecond
			case c != nil && c.Err() == nil && retry == nil:
				// (A broken connection is refreshed by its replacement.)
				retry = time.After(retryDelay)
				retryDelay = min(retryDelay*2, 10*time.Second)
			}
		case <-broken:
			if err := ctl.reconnect(); err != nil {
				if !sleepCtx(ctl.s.ctx, backoff) {
					return
				}
				backoff = min(backoff*2, controlRetryMax)
				continue
			}
			backoff = 100 * time.Millisecond
			retry, retryDelay = nil, 500*time.Millisecond // the new connection refreshed
		}
	}
}

// reconnect opens the control connection to any known node, then to the contact points
// (Config.ResolveHosts's when set).
func (ctl *control) reconnect() error {
	var known []string
	if st := ctl.s.state.Load(); st != nil {
		for _, n := range st.snap.Nodes {
			known = append(known, n.Addr)
		}
	}
	var errs []error
	try := func(addrs []string) bool {
		for _, a := range ctl.order(addrs) {
			if ctl.s.ctx.Err() != nil {
				return false
			}
			err := ctl.connectTo(ctl.s.ctx, a)
			if err == nil {
				return true
			}
			errs = append(errs, err)
		}
		return false
	}
	if try(known) {
		return nil
	}
	contacts := ctl.contactList()
	if ctl.s.cfg.ResolveHosts != nil && ctl.s.ctx.Err() == nil {
		if r := contactAddrs(ctl.s.cfg.ResolveHosts(ctl.s.ctx)); len(r) == 0 {
			errs = append(errs, errors.New("native: Config.ResolveHosts gave no contact point (the last ones were tried)"))
		} else {
			contacts = r
			ctl.resolved.Store(&r)
		}
	}
	if try(contacts) {
		return nil
	}
	if err := ctl.s.ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// close closes the control connection; the session is already marked closed, so no new
// one is installed afterwards.
func (ctl *control) close() {
	ctl.mu.Lock()
	c := ctl.c
	ctl.c = nil
	ctl.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// refreshOn reads the topology over c and installs it.
func (ctl *control) refreshOn(ctx context.Context, c *conn.Conn) error {
	if c == nil {
		return errors.New("native: no control connection")
	}
	s := ctl.s
	local, err := s.runOn(ctx, c, "SELECT * FROM system.local WHERE key = 'local'")
	if err != nil {
		return fmt.Errorf("native: reading system.local from %s: %w", c.Addr(), err)
	}
	row, ok := local.First()
	if !ok {
		return fmt.Errorf("native: system.local on %s is empty", c.Addr())
	}
	self := nodeFromRow(row)
	self.Addr = ctl.selfAddr(c.Addr())
	if s.cfg.HostFilter != nil && !s.cfg.HostFilter(hostOf(self, false)) {
		// The control connection stays off excluded nodes: closed, it is replaced by one to
		// another node (a session whose control node the filter came to exclude moves).
		c.Close()
		return fmt.Errorf("%w: %s", ErrHostFiltered, c.Addr())
	}
	nodes := []topology.Node{self}

	if s.cfg.DisablePeerDiscovery {
		for _, h := range ctl.contactList() {
			if h != self.Addr {
				nodes = append(nodes, topology.Node{Addr: h})
			}
		}
	} else {
		peers, err := s.runOn(ctx, c, "SELECT * FROM system.peers_v2")
		v2 := err == nil
		if !v2 {
			var inv *InvalidError
			if !errors.As(err, &inv) {
				return fmt.Errorf("native: reading system.peers_v2 from %s: %w", c.Addr(), err)
			}
			if peers, err = s.runOn(ctx, c, "SELECT * FROM system.peers"); err != nil {
				return fmt.Errorf("native: reading system.peers from %s: %w", c.Addr(), err)
			}
		}
		for _, row := range peers.Rows() {
			n := nodeFromRow(row)
			if !validPeer(row, n) {
				continue // a row half-written (a node joining) or left behind (a replaced node)
			}
			var rpc, peer netip.Addr
			port := portOf(c.Addr())
			if v2 {
				rpc = cellAddr(row, "native_address")
				if p := cellInt(row, "native_port"); p > 0 {
					port = p
				}
			} else {
				rpc = cellAddr(row, "rpc_address")
			}
			peer = cellAddr(row, "peer")
			addr, err := topology.PeerAddress(rpc, peer)
			if err != nil {
				continue // a peer row being written: skip it
			}
			n.RPCAddress = addr
			n.Addr = topology.DialAddr(addr, port, s.cfg.AddressTranslator)
			if slices.ContainsFunc(nodes, func(m topology.Node) bool { return m.Addr == n.Addr }) {
				continue // a second row for a node already listed (a node listing itself, say)
			}
			n.Peer = peer
			if n.Partitioner == "" {
				// system.peers has no partitioner column; a cluster has one partitioner.
				n.Partitioner = self.Partitioner
			}
			nodes = append(nodes, n)
		}
	}
	if s.cfg.HostFilter != nil {
		kept := nodes[:0]
		for _, n := range nodes {
			if s.cfg.HostFilter(hostOf(n, false)) {
				kept = append(kept, n)
			}
		}
		nodes = kept
		if len(nodes) == 0 {
			return errors.New("native: Config.HostFilter rejected every node")
		}
	}

	keyspaces := map[string]ring.Replication{}
	if ksRes, err := s.runOn(ctx, c, "SELECT keyspace_name, replication FROM system_schema.keyspaces"); err == nil {
		for _, row := range ksRes.Rows() {
			var name string
			var repl map[string]string
			if row.Scan(&name, &repl) != nil {
				continue
			}
			if rep, err := ring.ParseReplication(repl); err == nil {
				keyspaces[name] = rep
			}
		}
	}
	snap, err := topology.Build(nodes, keyspaces)
	if err != nil {
		return err
	}
	s.installSnapshot(snap)
	return nil
}

// selfAddr returns the address the session dials the control connection's node at, the
// connection being open to addr: addr, or with Config.TranslateContactPoints its translation
// when addr is a contact point rather than a node of the current topology (whose address is
// translated already).
func (ctl *control) selfAddr(addr string) string {
	cfg := &ctl.s.cfg
	if !cfg.TranslateContactPoints || cfg.AddressTranslator == nil || cfg.DisablePeerDiscovery {
		return addr
	}
	if st := ctl.s.state.Load(); st != nil {
		for _, n := range st.snap.Nodes {
			if n.Addr == addr {
				return addr
			}
		}
	}
	return cfg.AddressTranslator(addr)
}

// nodeFromRow reads the columns system.local and system.peers(_v2) share.
func nodeFromRow(row Row) topology.Node {
	return topology.Node{
		RPCAddress:     cellAddr(row, "rpc_address"),
		HostID:         cellUUID(row, "host_id"),
		DataCenter:     cellText(row, "data_center"),
		Rack:           cellText(row, "rack"),
		ReleaseVersion: cellText(row, "release_version"),
		Partitioner:    cellText(row, "partitioner"),
		Tokens:         cellTexts(row, "tokens"),
		// The peer column is read by the caller: system.local has none.
		BroadcastAddress: cellAddr(row, "broadcast_address"),
		ListenAddress:    cellAddr(row, "listen_address"),
		PreferredIP:      cellAddr(row, "preferred_ip"),
		ClusterName:      cellText(row, "cluster_name"),
		Workload:         cellText(row, "workload"),
		Graph:            cellBool(row, "graph"),
		DSEVersion:       cellText(row, "dse_version"),
	}
}

// validPeer reports whether a system.peers(_v2) row read into n describes a node: when the
// server has the columns, it needs a host_id and at least one token, as gocql's and the Python
// driver's peer checks do. A row without them is a node still joining or the ghost of a
// removed or replaced one; taken in, it would be dialled forever and, its tokens missing from
// the ring, turn token-aware routing off for the whole cluster.
func validPeer(row Row, n topology.Node) bool {
	if n.HostID == "" && hasColumn(row, "host_id") {
		return false
	}
	if len(n.Tokens) == 0 && hasColumn(row, "tokens") {
		return false
	}
	return true
}

// hasColumn reports whether row has a column with that name.
func hasColumn(row Row, name string) bool {
	for _, c := range row.Columns() {
		if c.Name == name {
			return true
		}
	}
	return false
}

// cell decodes the named column into dst; it leaves dst unchanged when the column is
// missing or cannot be decoded.
func cell(row Row, name string, dst any) {
	for i, c := range row.Columns() {
		if c.Name == name {
			_ = cqltype.Decode(c.Type, row.Raw(i), dst)
			return
		}
	}
}

func cellText(row Row, name string) string {
	var s string
	cell(row, name, &s)
	return s
}

func cellTexts(row Row, name string) []string {
	var s []string
	cell(row, name, &s)
	return s
}

func cellBool(row Row, name string) bool {
	var b bool
	cell(row, name, &b)
	return b
}

func cellInt(row Row, name string) int {
	var n int
	cell(row, name, &n)
	return n
}

func cellAddr(row Row, name string) netip.Addr {
	var a netip.Addr
	cell(row, name, &a)
	return a.Unmap()
}

func cellUUID(row Row, name string) string {
	var u cqltype.UUID
	cell(row, name, &u)
	if u == (cqltype.UUID{}) {
		return ""
	}
	return u.String()
}
