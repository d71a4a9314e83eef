package cqlsim

import (
	"sync"
	"time"
)

// ManualClock is a clock for Options.Now that moves only when told to: tests use it to expire
// TTLs or to end a SchemaPropagationDelay at a chosen moment. It is safe for concurrent use.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a clock reading t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

// Now returns the clock's time; pass it (the method value c.Now) as Options.Now.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
