// Package rawio reads and writes TCP sockets with raw read(2) and write(2) calls made through
// the socket's syscall.RawConn. The Go runtime's poller still waits for readiness and applies
// deadlines, but the calls themselves skip the scheduler's system-call bookkeeping
// (entersyscall and exitsyscall); the socket is non-blocking, so no call can block the thread.
//
// That bookkeeping is what matters for a database client: when the whole process has been idle
// waiting for the server, the runtime's monitor thread (sysmon) is asleep, and the first
// ordinary system call after the wait wakes it with a futex. Profiles of the native driver
// showed that wake-up as a fifth of the client's CPU at concurrency 32 against Cassandra, and
// it dominated the CPU of a request at concurrency 1.
//
// Only Linux is implemented; on other systems New returns nil and callers use net.Conn.
package rawio
