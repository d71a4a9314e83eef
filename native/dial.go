package native

import (
	"context"
	"net"
	"time"
)

// Dialer opens a network connection to address ("host:port") on network ("tcp"), as
// net.Dialer's DialContext does. Set it in Config.Dialer to route connections through a
// proxy or a tunnel, or to set socket options.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// HostDialer is a Dialer that is told which node it dials: when Config.Dialer implements
// it, each connection calls DialHost instead of DialContext. For a node the session knows
// from the cluster's system tables, host carries what they say (data center, rack, host id,
// ...); for a contact point dialled before that, only host.Addr (host:port) is set. The
// connection it returns carries the protocol as it is: Config.TLS, when set, still runs
// over it, so a HostDialer that sets up TLS itself goes with a nil Config.TLS.
type HostDialer interface {
	Dialer
	DialHost(ctx context.Context, host Host) (net.Conn, error)
}

// dialerFor returns the dial function of a connection to addr: Config.Dialer's, bound to
// the node when it is a HostDialer, or nil (the connection layer's net.Dialer).
func (s *Session) dialerFor(addr string) func(ctx context.Context, network, address string) (net.Conn, error) {
	switch d := s.cfg.Dialer.(type) {
	case nil:
		return nil
	case HostDialer:
		host := s.hostAt(addr)
		return func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialHost(ctx, host) }
	default:
		return d.DialContext
	}
}

// hostAt returns what the session knows of the node at addr: the current topology's entry,
// or a Host with only Addr set.
func (s *Session) hostAt(addr string) Host {
	if st := s.state.Load(); st != nil {
		for i, n := range st.snap.Nodes {
			if n.Addr == addr {
				return hostOf(n, st.pools[i].up())
			}
		}
	}
	return Host{Addr: addr}
}

// ConnectEvent is one attempt to open a connection, as Config.OnConnect is told of it.
type ConnectEvent struct {
	// Host is the node: what the session knows of it, or only Addr for a contact point
	// dialled before discovery.
	Host Host
	// Control is set for the control connection, which reads the cluster's topology and
	// schema; else the connection is one of the node's pool.
	Control bool
	// Start is when the attempt began, End when the connection was open and ready (after
	// the handshake) or the attempt failed.
	Start, End time.Time
	// Err is why the attempt failed; nil when the connection opened.
	Err error
}

// observeConnect tells Config.OnConnect of an attempt to connect to addr begun at start.
func (s *Session) observeConnect(addr string, control bool, start time.Time, err error) {
	if s.cfg.OnConnect == nil {
		return
	}
	e := ConnectEvent{Host: s.hostAt(addr), Control: control, Start: start, End: time.Now(), Err: err}
	// Connect's own dials run in its caller's goroutine or ones it waits for, before anyone
	// holds the session; once it has returned, connections are opened by goroutines Close
	// waits for, and Close does not wait for one while OnConnect runs (it may call Close).
	s.wg.callback(s.opened.Load(), nil, func() { s.cfg.OnConnect(e) })
}
