package gocql

import (
	"sync"
	"sync/atomic"
)

// textPrepared is an entry of Session.preparedText: the converted metadata of a statement
// text prepared in keyspace.
type textPrepared struct {
	keyspace string
	info     *preparedInfo
	used     atomic.Bool // looked up since the cache's hand last passed it
}

// preparedByText returns the metadata of stmt prepared earlier in the native session's
// current keyspace, nil when there is none. It saves the native core's cache lookup (a lock and
// a wait on the entry) on every execution of a prepared statement.
func (s *Session) preparedByText(stmt string) *preparedInfo {
	e := s.preparedText.load(stmt)
	if e == nil || e.keyspace != s.native.Keyspace() {
		return nil
	}
	if e.info.stmt.Evicted() {
		// The server refused to prepare the statement again (its table was dropped): as
		// gocql, which then drops it from its cache, prepare it anew rather than binding
		// values with metadata that may describe the old table.
		s.preparedText.drop(stmt, e)
		return nil
	}
	if !e.info.current() {
		// The native core prepared the statement again (its table changed): convert the
		// new metadata.
		info := preparedInfoOf(e.info.stmt)
		s.rememberPrepared(stmt, e.keyspace, info)
		return info
	}
	return e.info
}

// rememberPrepared records info as the preparation of stmt in keyspace.
func (s *Session) rememberPrepared(stmt, keyspace string, info *preparedInfo) {
	s.preparedText.store(stmt, &textPrepared{keyspace: keyspace, info: info})
}

// textCache maps statement texts to their preparation. Lookups take no lock. Like gocql's
// cache (ClusterConfig.MaxPreparedStmts), it holds at most max texts (no bound when max is 0
// or less), so that texts with literal values, which gocql and compat prepare too, cannot
// grow it without end; the native core's cache has the same bound. Past it, adding a text
// drops one not looked up since the hand last passed it (the CLOCK algorithm, an approximation
// of gocql's least recently used; see native/prepcache.go).
type textCache struct {
	m   sync.Map // statement text -> *textPrepared
	max int

	mu   sync.Mutex
	ring []string // the texts in the order they were added, which the hand follows
	hand int
}

// load returns the entry of stmt, nil when there is none, and marks it used.
func (c *textCache) load(stmt string) *textPrepared {
	v, ok := c.m.Load(stmt)
	if !ok {
		return nil
	}
	e := v.(*textPrepared)
	if !e.used.Load() { // written only when it changes: the entry is shared by every caller
		e.used.Store(true)
	}
	return e
}

// store records e as the entry of stmt, replacing any other, and drops entries while the cache
// holds more than max texts.
func (c *textCache) store(stmt string, e *textPrepared) {
	if _, replaced := c.m.Swap(stmt, e); replaced || c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ring = append(c.ring, stmt)
	for steps := 2 * len(c.ring); len(c.ring) > c.max && steps > 0; steps-- {
		if c.hand >= len(c.ring) {
			c.hand = 0
		}
		text := c.ring[c.hand]
		v, ok := c.m.Load(text)
		switch {
		case !ok:
			c.remove() // dropped already (see drop)
		case text == stmt && v == e:
			c.hand++ // the entry being added
		case v.(*textPrepared).used.Load():
			v.(*textPrepared).used.Store(false)
			c.hand++
		default:
			c.m.CompareAndDelete(text, v)
			c.remove()
		}
	}
}

// remove takes the text under the hand out of the ring, keeping the order of the others.
func (c *textCache) remove() {
	last := len(c.ring) - 1
	copy(c.ring[c.hand:], c.ring[c.hand+1:])
	c.ring[last] = ""
	c.ring = c.ring[:last]
}

// drop removes stmt's entry if it is still e. Its text leaves the ring when the hand reaches it.
func (c *textCache) drop(stmt string, e *textPrepared) {
	c.m.CompareAndDelete(stmt, e)
}
