package gocql

import "sync"

// iterPool recycles the Iters of executions whose Iter never reaches the caller: Query.Exec,
// Scan, MapScan, ScanCAS and MapScanCAS read the first page and drop it. Every execution takes
// its Iter from the pool; only those calls give it back, so an Iter returned by Query.Iter (or
// kept by a future, a Scanner or a page fetch) is never reused.
var iterPool = sync.Pool{New: func() any { return new(Iter) }}

// newIter returns a zero Iter, recycled when one is available.
func newIter() *Iter { return iterPool.Get().(*Iter) }

// releaseIter clears iter and returns it to the pool. The caller must hold the only
// reference to iter: no Scanner, future, observer or background page fetch may refer to it.
func releaseIter(iter *Iter) {
	*iter = Iter{}
	iterPool.Put(iter)
}
