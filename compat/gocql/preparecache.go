package gocql

import (
	"container/list"
	"sync"

	"github.com/cqlbridge/cqlbridge/native"
)

// textPrepared is an entry of Session.preparedText: the converted metadata of a statement
// text prepared in keyspace.
type textPrepared struct {
	stmt     string
	keyspace string
	info     *preparedInfo
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
		s.preparedText.remove(e)
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
	s.preparedText.store(&textPrepared{stmt: stmt, keyspace: keyspace, info: info})
}

// textCache maps statement texts to their preparation, least recently used first out, as
// gocql's cache of prepared statements (ClusterConfig.MaxPreparedStmts; 0: no bound; negative:
// nothing is kept, every execution prepares again).
// It decides for the native core's cache too, which compat leaves unbounded: a statement it
// drops is dropped there (native.Session.DropPrepared), so that running its text again sends a
// PREPARE, as in gocql, and texts with literal values, which gocql and compat prepare too,
// cannot grow either cache without end.
type textCache struct {
	max  int
	drop func(*native.Prepared) // drops a statement from the native core's cache

	mu     sync.Mutex
	byText map[string]*list.Element // of order, whose values are *textPrepared
	order  list.List                // most recently used first
}

// load returns the entry of stmt, nil when there is none, and makes it the most recently used.
func (c *textCache) load(stmt string) *textPrepared {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.byText[stmt]
	if el == nil {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*textPrepared)
}

// store records e as the entry of its text, replacing any other, as the most recently used,
// and drops the least recently used entries beyond max.
func (c *textCache) store(e *textPrepared) {
	var dropped []*native.Prepared
	c.mu.Lock()
	if c.byText == nil {
		c.byText = map[string]*list.Element{}
	}
	if el := c.byText[e.stmt]; el != nil {
		if old := el.Value.(*textPrepared); old.info.stmt != e.info.stmt {
			dropped = append(dropped, old.info.stmt)
		}
		el.Value = e
		c.order.MoveToFront(el)
	} else {
		c.byText[e.stmt] = c.order.PushFront(e)
	}
	for c.max != 0 && c.order.Len() > max(c.max, 0) { // negative: cache nothing, as gocql
		old := c.order.Remove(c.order.Back()).(*textPrepared)
		delete(c.byText, old.stmt)
		dropped = append(dropped, old.info.stmt)
	}
	c.mu.Unlock()
	if c.drop != nil {
		for _, p := range dropped {
			c.drop(p)
		}
	}
}

// remove removes stmt's entry if it is still e.
func (c *textCache) remove(e *textPrepared) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.byText[e.stmt]; el != nil && el.Value == e {
		c.order.Remove(el)
		delete(c.byText, e.stmt)
	}
}
