//go:build !linux

package main

import "syscall"

// simSysProcAttr is nil where the kernel cannot end a child with its parent: there cqlsim is
// stopped by the shutdown cqlbench runs on every orderly exit, interrupted runs included.
func simSysProcAttr() *syscall.SysProcAttr { return nil }
