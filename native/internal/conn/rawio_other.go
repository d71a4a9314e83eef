//go:build !linux

package conn

import "net"

// rawIO is used on Linux only; elsewhere connections are read and written through net.Conn.
type rawIO struct{ net.Conn }

func newRawIO(net.Conn) *rawIO { return nil }
