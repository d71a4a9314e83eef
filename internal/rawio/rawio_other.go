//go:build !linux

package rawio

import "net"

// Conn is used on Linux only; elsewhere New returns nil and connections are read and written
// through net.Conn.
type Conn struct{ net.Conn }

// New returns nil: raw socket I/O is implemented on Linux only.
func New(net.Conn) *Conn { return nil }

// PeerClosed is never called elsewhere than on Linux (New returns nil); it reports false.
func (*Conn) PeerClosed() bool { return false }
