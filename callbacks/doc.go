// Package callbacks registers and dispatches ordered callbacks and errbacks: each runs exactly once
// per completion in registration order, one added after completion runs immediately in the adder's
// goroutine, panics are isolated, and an executor may be chosen for dispatch.
package callbacks
