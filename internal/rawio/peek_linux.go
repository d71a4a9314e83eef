//go:build linux && !386

package rawio

import (
	"syscall"
	"unsafe"
)

// peek makes one recv(2) of a byte into b with MSG_PEEK and MSG_DONTWAIT.
func peek(fd uintptr, b *byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(b)), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	return int(n), e
}
