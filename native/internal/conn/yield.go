package conn

import _ "unsafe" // for go:linkname

// yield lets the goroutines runnable on this processor run, then resumes the caller: the
// writer's pause before it gathers the frames their callers are about to queue (see
// gatherBatch). runtime.Gosched would put the writer on the global run queue and wake an idle
// processor to take it: on a client with a processor to spare, that is a futex wake-up of
// another thread, which then takes the writer away from the callers it waits for. The
// runtime's goyield puts it at the tail of this processor's own queue and wakes nobody. The Go
// runtime keeps goyield, with this signature, for the packages that link to it
// (go.dev/issue/67401).
//
//go:linkname yield runtime.goyield
func yield()
