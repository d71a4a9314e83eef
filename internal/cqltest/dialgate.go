package cqltest

import (
	"context"
	"net"
	"sync/atomic"
)

// DialGate is a dialer (a native.Dialer, a gocql Dialer) that dials TCP until armed; then the
// next dial to Addr closes Entered and waits for its context to end, returning the context's
// error: a test can hold a dial in flight (a pool's reconnection, say) and end it from
// outside. Make it with NewDialGate.
type DialGate struct {
	// Addr is the host:port whose dial is held.
	Addr string
	// Armed, when true, holds the next dial to Addr.
	Armed atomic.Bool
	// Entered is closed when the held dial has begun.
	Entered chan struct{}
}

// NewDialGate returns an unarmed DialGate for addr.
func NewDialGate(addr string) *DialGate { return &DialGate{Addr: addr, Entered: make(chan struct{})} }

// DialContext dials TCP, or holds the dial (see DialGate).
func (d *DialGate) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if address == d.Addr && d.Armed.CompareAndSwap(true, false) {
		close(d.Entered)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}
