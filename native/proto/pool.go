package proto

import (
	"math/bits"
	"sync"
)

// Buffers are pooled in power-of-two size classes from 512 bytes to 4 MiB. Larger buffers are
// allocated on demand and left to the garbage collector.
const (
	minPoolShift = 9
	maxPoolShift = 22
)

// maxPooledBuffer is the capacity of the largest pooled buffers.
const maxPooledBuffer = 1 << maxPoolShift

var bufferPools [maxPoolShift - minPoolShift + 1]sync.Pool

// GetBuffer returns a pooled buffer with length 0 and capacity of at least size bytes. Return it
// with PutBuffer when its contents are no longer referenced. The pointer form lets buffers move
// through sync.Pool without allocating.
func GetBuffer(size int) *[]byte {
	class := sizeClass(size)
	if class >= len(bufferPools) {
		b := make([]byte, 0, size)
		return &b
	}
	if p, ok := bufferPools[class].Get().(*[]byte); ok {
		*p = (*p)[:0]
		return p
	}
	b := make([]byte, 0, 1<<(class+minPoolShift))
	return &b
}

// PutBuffer returns a buffer obtained from GetBuffer (or any buffer worth keeping) to the pool.
// The caller must not use it afterwards. Buffers larger than the biggest size class are dropped.
func PutBuffer(p *[]byte) {
	if p == nil {
		return
	}
	c := cap(*p)
	if c < 1<<minPoolShift {
		return
	}
	// The class whose size is <= cap, so every buffer in class k holds at least 1<<(k+min) bytes.
	class := bits.Len(uint(c)) - 1 - minPoolShift
	if class >= len(bufferPools) {
		return
	}
	*p = (*p)[:0]
	bufferPools[class].Put(p)
}

// sizeClass is the index of the smallest class whose buffers hold size bytes.
func sizeClass(size int) int {
	if size <= 1<<minPoolShift {
		return 0
	}
	return bits.Len(uint(size-1)) - minPoolShift
}
