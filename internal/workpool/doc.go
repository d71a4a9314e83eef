// Package workpool keeps goroutines for work that arrives one item at a time and would
// otherwise start a goroutine per item: a request's path through a driver needs a stack several
// times the size a new goroutine starts with, and the runtime grows (copies) a new goroutine's
// stack every time. A kept goroutine keeps its stack.
//
// A Pool hands each item to an idle worker, most recently used first, or starts a worker when
// none is idle. Workers idle for a few ticks of the pool's trimming period end, so a burst
// leaves no goroutines behind for long; Close ends the idle ones at once and keeps no others.
package workpool
