//go:build linux

package rawio

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Conn reads and writes a TCP socket with raw read(2) and write(2) calls. Read and Write may
// run at the same time, but each must be called by one goroutine at a time.
type Conn struct {
	rc            syscall.RawConn
	local, remote net.Addr // for errors, as net.Conn reports them

	rp     []byte // the read in progress: its buffer, result and error
	rn     int
	rerr   error
	readFn func(fd uintptr) bool

	wp      []byte // the write in progress: its data, bytes written and error
	wn      int
	werr    error
	writeFn func(fd uintptr) bool

	pb     [1]byte // PeerClosed's buffer and result
	closed bool
	peekFn func(fd uintptr)
}

// New returns a Conn over a TCP connection, or nil for any other net.Conn (TLS, pipes,
// wrappers), which must be read and written through their own methods. The Conn does not own
// nc: deadlines are set and the connection closed through nc as before.
func New(nc net.Conn) *Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &Conn{rc: rc, local: tc.LocalAddr(), remote: tc.RemoteAddr()}
	r.readFn = r.readFD
	r.writeFn = r.writeFD
	r.peekFn = r.peekFD
	return r
}

// PeerClosed reports, without waiting and without consuming anything, whether the peer has
// closed or reset the connection: one recv(2) with MSG_PEEK and MSG_DONTWAIT. Data waiting to
// be read means not closed (yet). It must not be called by two goroutines at a time (callers
// serialise it with their writes).
func (r *Conn) PeerClosed() bool {
	r.closed = false
	if err := r.rc.Control(r.peekFn); err != nil {
		return true // the socket is closed on this side
	}
	return r.closed
}

// peekFD makes PeerClosed's recv(2): 0 bytes is the peer's FIN, an error other than EAGAIN
// (ECONNRESET, ...) a broken connection.
func (r *Conn) peekFD(fd uintptr) {
	for {
		n, e := peek(fd, &r.pb[0])
		switch e {
		case 0:
			r.closed = n == 0
			return
		case syscall.EINTR:
		case syscall.EAGAIN:
			return
		default:
			r.closed = true
			return
		}
	}
}

// Read reads what the socket holds, up to len(p) bytes, waiting for data when there is none.
func (r *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.rp, r.rn, r.rerr = p, 0, nil
	err := r.rc.Read(r.readFn)
	r.rp = nil
	if err != nil {
		return 0, err
	}
	return r.rn, r.rerr
}

// readFD makes one read(2); it returns false to wait for readability when nothing is there.
func (r *Conn) readFD(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.rp[0])), uintptr(len(r.rp)))
		switch e {
		case 0:
			r.rn = int(n)
			if n == 0 {
				r.rerr = io.EOF
			}
			return true
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			r.rerr = r.opError("read", e)
			return true
		}
	}
}

// Write writes all of p, waiting for room in the socket's send buffer when it is full.
func (r *Conn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.wp, r.wn, r.werr = p, 0, nil
	err := r.rc.Write(r.writeFn)
	n := r.wn
	r.wp = nil
	if err == nil {
		err = r.werr
	}
	return n, err
}

// writeFD writes as much of the rest of wp as the socket takes; it returns false to wait for
// writability when the send buffer is full.
func (r *Conn) writeFD(fd uintptr) bool {
	for r.wn < len(r.wp) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&r.wp[r.wn])), uintptr(len(r.wp)-r.wn))
		switch e {
		case 0:
			r.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			r.werr = r.opError("write", e)
			return true
		}
	}
	return true
}

// opError wraps a failed system call as net.Conn reports it.
func (r *Conn) opError(op string, e syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Source: r.local, Addr: r.remote, Err: os.NewSyscallError(op, e)}
}
