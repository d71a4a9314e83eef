//go:build !linux

package main

import (
	"errors"
	"time"
)

// timerFD exists on Linux only (see timerfd_linux.go); elsewhere newTimerFD fails and the pacer
// uses a time.Timer.
type timerFD struct{}

func newTimerFD() (*timerFD, error) { return nil, errors.New("timerfd: Linux only") }

func (*timerFD) sleep(time.Duration) error { return errors.New("timerfd: Linux only") }
func (*timerFD) interrupt()                {}
func (*timerFD) close()                    {}
