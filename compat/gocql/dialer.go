package gocql

import (
	"context"
	"errors"
	"net"

	"github.com/cqlbridge/cqlbridge/native"
)

// nativeDialer returns the native core's Config.Dialer for cfg, chosen as gocql v1.7.0
// chooses its dialer: HostDialer when set (it sets up TLS itself, and SslOpts is ignored),
// else Dialer (SslOpts' TLS runs over its connections), else a net.Dialer with
// SocketKeepalive as its keep-alive period when that is set. It returns nil for the core's
// own net.Dialer (Go's default keep-alive, as gocql's default dialer).
func nativeDialer(cfg *ClusterConfig) native.Dialer {
	switch {
	case cfg.HostDialer != nil:
		return hostDialerAdapter{cfg: cfg}
	case cfg.Dialer != nil:
		return dialerAdapter{d: cfg.Dialer}
	case cfg.SocketKeepalive > 0:
		return &net.Dialer{KeepAlive: cfg.SocketKeepalive}
	}
	return nil
}

// dialerAdapter runs the application's Dialer for the native core, marking its errors so
// that CreateSession reports them as gocql does (see dialFailure).
type dialerAdapter struct{ d Dialer }

// DialContext dials address: a node's IP address and port, a contact point given by name
// too (contactPoints resolved it), as gocql dials HostInfo.ConnectAddressAndPort.
func (a dialerAdapter) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := a.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, &appDialError{err}
	}
	return c, nil
}

// hostDialerAdapter runs the application's HostDialer for the native core, with the host as
// gocql v1.7.0 gives it (see dialHostInfo).
type hostDialerAdapter struct{ cfg *ClusterConfig }

// DialContext dials a node known by its address alone (the native core calls DialHost).
func (a hostDialerAdapter) DialContext(ctx context.Context, _, address string) (net.Conn, error) {
	return a.DialHost(ctx, native.Host{Addr: address})
}

// DialHost dials one node through the application's HostDialer.
func (a hostDialerAdapter) DialHost(ctx context.Context, host native.Host) (net.Conn, error) {
	dh, err := a.cfg.HostDialer.DialHost(ctx, dialHostInfo(host, a.cfg))
	if err != nil {
		return nil, &appDialError{err}
	}
	if dh == nil || dh.Conn == nil {
		// gocql v1.7.0 dereferences the nil DialedHost, or uses the nil Conn, and panics.
		return nil, &appDialError{errNoDialedConn}
	}
	return dh.Conn, nil
}

// errNoDialedConn is the error of a HostDialer that returned no connection and no error.
var errNoDialedConn = errors.New("gocql: HostDialer returned no connection and no error")

// appDialError is an error of the application's Dialer or HostDialer; CreateSession reports
// it as it is, under gocql's step prefix (see appDialFailure).
type appDialError struct{ err error }

func (e *appDialError) Error() string { return e.err.Error() }
func (e *appDialError) Unwrap() error { return e.err }

// dialHostInfo is the HostInfo gocql v1.7.0 hands to its HostDialer and AuthProvider for a
// connection: the ring's host for a node the session discovered (data center, rack and host
// id included) and, for a contact point dialled before discovery, a host with only its name,
// address and port (see contactHostInfo). With DisableInitialHostLookup every node is such a
// contact point, even the one the native core read system.local from. A contact point's host
// name is the host it was given as in Hosts (a name for each address it resolved to).
func dialHostInfo(host native.Host, cfg *ClusterConfig) *HostInfo {
	if discovered(host) && !cfg.DisableInitialHostLookup {
		return pooledHostInfo(host, cfg.Port)
	}
	hi := contactHostInfo(host, cfg)
	hi.state = NodeUp // gocql's contact points are in the zero state until connected
	return hi
}

// discovered reports whether the native core knows host from the cluster's system tables,
// rather than only by the address of a contact point.
func discovered(host native.Host) bool {
	return host.HostID != "" || host.DataCenter != ""
}

// contactName returns the host a contact point was given as in cfg.Hosts when gocql v1.7.0's
// HostInfo for a connection to host carries it, "" otherwise: gocql's contact points are
// HostInfos named so, used for the first connection and, with DisableInitialHostLookup, for
// every connection; a node discovered from the system tables has no name (its address stands
// for it). It is also the name that TLS verifies (HostInfo.HostnameAndPort).
func contactName(cfg *ClusterConfig, host native.Host) string {
	if discovered(host) && !cfg.DisableInitialHostLookup {
		return ""
	}
	return cfg.contacts.name(host.Addr)
}

// appDialFailure returns the application's dialer error that failed the first connection,
// nil for any other failure (a dial abandoned at ConnectTimeout is reported as a silent node
// is, see dialFailure).
func appDialFailure(err error) error {
	var app *appDialError
	if !errors.As(err, &app) {
		return nil
	}
	return app.err
}

// connectObserver returns the native core's Config.OnConnect that reports each connection
// attempt to cfg.ConnectObserver, nil without one.
func connectObserver(cfg *ClusterConfig) func(native.ConnectEvent) {
	obs := cfg.ConnectObserver
	if obs == nil {
		return nil
	}
	return func(e native.ConnectEvent) {
		obs.ObserveConnect(ObservedConnect{Host: dialHostInfo(e.Host, cfg), Start: e.Start, End: e.End, Err: connectError(e.Err)})
	}
}

// connectError is the error gocql v1.7.0 reports for a failed connection attempt: the
// dialer's own (a *net.OpError, or the application's Dialer's), else the native core's.
func connectError(err error) error {
	var app *appDialError
	if errors.As(err, &app) {
		return app.err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op
	}
	return err
}
