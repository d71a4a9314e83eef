package native

import (
	"context"
	"time"
)

// AsyncIdleWorkers reports how many goroutines of s wait for an asynchronous request, for the
// external tests.
func AsyncIdleWorkers(s *Session) int { return s.async.Idle() }

// SetAsyncTrimTick sets the period with which s ends idle asynchronous workers (they end after
// about five periods); call it before s runs an asynchronous request.
func SetAsyncTrimTick(s *Session, d time.Duration) { s.async.SetTick(d) }

// WithMaxStreams returns cfg with every connection limited to n stream ids, for the external
// tests.
func WithMaxStreams(cfg Config, n int) Config {
	cfg.maxStreams = n
	return cfg
}

// WithBeforeTryStart returns cfg with f called, with the connection's address, before a request
// that must not wait for a stream id takes one, for the external tests.
func WithBeforeTryStart(cfg Config, f func(addr string)) Config {
	cfg.beforeTryStart = f
	return cfg
}

// WithAfterStart returns cfg with f called, with the request's context and the connection's
// address, once a request started on its connection and before a speculative attempt takes
// its number, for the external tests.
func WithAfterStart(cfg Config, f func(ctx context.Context, addr string)) Config {
	cfg.afterStart = f
	return cfg
}

// CloseConnsTo closes the connections of s to the node at addr, for the external tests: a
// request that took one of them finds it closed when it starts on it.
func CloseConnsTo(s *Session, addr string) {
	for _, p := range s.state.Load().pools {
		if p.addr == addr {
			for _, c := range p.all() {
				_ = c.Close()
			}
		}
	}
}

// InFlightTo returns the number of stream ids in use on the connections of s to the node at
// addr, for the external tests.
func InFlightTo(s *Session, addr string) int {
	n := 0
	for _, p := range s.state.Load().pools {
		if p.addr == addr {
			for _, c := range p.all() {
				n += c.InFlight()
			}
		}
	}
	return n
}
