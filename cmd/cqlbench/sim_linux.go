//go:build linux

package main

import "syscall"

// simSysProcAttr makes the kernel kill cqlsim when this process ends, however it ends: a
// second signal (whose default action ends the process at once), SIGKILL, a crash. Without it
// the child outlives the client and keeps its port and CPU.
func simSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
