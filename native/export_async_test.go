package native

import "time"

// AsyncIdleWorkers reports how many goroutines of s wait for an asynchronous request, for the
// external tests.
func AsyncIdleWorkers(s *Session) int {
	s.async.mu.Lock()
	defer s.async.mu.Unlock()
	return len(s.async.idle)
}

// SetAsyncTrimTick sets the period with which s ends idle asynchronous workers (they end after
// asyncIdleTicks periods); call it before s runs an asynchronous request.
func SetAsyncTrimTick(s *Session, d time.Duration) {
	s.async.mu.Lock()
	s.async.tick = d
	s.async.mu.Unlock()
}
