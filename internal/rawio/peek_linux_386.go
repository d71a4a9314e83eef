package rawio

import (
	"errors"
	"syscall"
	"unsafe"
)

// peek makes one recv(2) of a byte into b with MSG_PEEK and MSG_DONTWAIT. linux/386 has no
// recvfrom system call number (it goes through socketcall), so it uses syscall.Recvfrom.
func peek(fd uintptr, b *byte) (int, syscall.Errno) {
	n, _, err := syscall.Recvfrom(int(fd), unsafe.Slice(b, 1), syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	var e syscall.Errno
	if err != nil && !errors.As(err, &e) {
		e = syscall.EIO
	}
	return n, e
}
