//go:build unix

package main

import (
	"syscall"
	"time"
)

// readCPU is the user+system CPU time of this process so far (getrusage).
func readCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
