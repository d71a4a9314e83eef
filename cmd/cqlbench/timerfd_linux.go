package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// timerFD is a Linux timerfd read through the runtime's network poller: a goroutine waiting on
// it parks like one waiting on a socket, and the kernel's high-resolution timer wakes it.
type timerFD struct {
	f    *os.File
	rc   syscall.RawConn
	fd   int
	spec itimerspec
	// readFn is t.read, made once: a method value made per wait would be allocated (it escapes
	// into RawConn.Read), and count against the driver's allocs/op.
	readFn func(fd uintptr) bool
	buf    [8]byte // the number of expirations, which nothing reads
	rerr   error   // the error of the last read
}

// itimerspec is struct itimerspec of timerfd_settime(2).
type itimerspec struct {
	interval syscall.Timespec
	value    syscall.Timespec
}

const (
	clockMonotonic = 1       // CLOCK_MONOTONIC
	tfdNonblock    = 0x800   // TFD_NONBLOCK (O_NONBLOCK)
	tfdCloexec     = 0x80000 // TFD_CLOEXEC (O_CLOEXEC)
)

// newTimerFD creates a non-blocking timerfd on the monotonic clock.
func newTimerFD() (*timerFD, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return nil, fmt.Errorf("timerfd_create: %w", errno)
	}
	fd := int(r)
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	// A file the poller does not watch cannot have a deadline: interrupt would not work.
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		f.Close()
		return nil, fmt.Errorf("timerfd is not pollable: %w", err)
	}
	t := &timerFD{f: f, rc: rc, fd: fd}
	t.readFn = t.read
	return t, nil
}

// read reads the timerfd once (again after EINTR); it returns false, to wait for the timer to
// expire, when the read would block.
func (t *timerFD) read(fd uintptr) bool {
	for {
		_, t.rerr = syscall.Read(int(fd), t.buf[:])
		if t.rerr != syscall.EINTR {
			break
		}
	}
	return !errors.Is(t.rerr, syscall.EAGAIN)
}

// sleep arms the timer to expire after d (> 0) and waits for it. It returns an error matching
// os.ErrDeadlineExceeded once interrupt was called.
func (t *timerFD) sleep(d time.Duration) error {
	t.spec.value = syscall.NsecToTimespec(int64(d))
	if _, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&t.spec)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("timerfd_settime: %w", errno)
	}
	if err := t.rc.Read(t.readFn); err != nil {
		return err
	}
	if t.rerr != nil {
		return fmt.Errorf("reading the timerfd: %w", t.rerr)
	}
	return nil
}

// interrupt ends the sleep in progress and every later one (their reads fail with a deadline
// exceeded error). It may be called from any goroutine.
func (t *timerFD) interrupt() { _ = t.f.SetReadDeadline(time.Unix(1, 0)) }

// close releases the timerfd.
func (t *timerFD) close() { _ = t.f.Close() }
