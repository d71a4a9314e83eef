package gocql

import (
	"container/list"
	"sync"

	"github.com/cqlbridge/cqlbridge/native"
)

// preparedByText returns the metadata of stmt prepared earlier in the native session's
// current keyspace, nil when there is none. It saves the native core's cache lookup (a lock and
// a wait on the entry) on every execution of a prepared statement.
func (s *Session) preparedByText(stmt string) *preparedInfo {
	info := s.preparedText.load(stmt)
	if info == nil || info.stmt.Keyspace() != s.native.Keyspace() {
		return nil
	}
	if info.stmt.Evicted() {
		// The server refused to prepare the statement again (its table was dropped): as
		// gocql, which then drops it from its cache, prepare it anew rather than binding
		// values with metadata that may describe the old table.
		s.preparedText.remove(info)
		return nil
	}
	if !info.current() {
		// The native core prepared the statement again (its table changed): convert the
		// new metadata.
		return s.remember(info.stmt)
	}
	return info
}

// remember converts the metadata of p and caches it under p's text.
func (s *Session) remember(p *native.Prepared) *preparedInfo {
	info := preparedInfoOf(s.protoVersion(), p)
	s.preparedText.store(info)
	return info
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
	byText map[string]*list.Element // by statement text; elements of order, valued *preparedInfo
	order  list.List                // most recently used first
}

// load returns the entry of stmt, nil when there is none, and makes it the most recently used.
func (c *textCache) load(stmt string) *preparedInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.byText[stmt]
	if el == nil {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*preparedInfo)
}

// store records e as the entry of its statement's text, replacing any other, as the most
// recently used, and drops the least recently used entries beyond max.
func (c *textCache) store(e *preparedInfo) {
	text := e.stmt.CQL()
	var dropped []*native.Prepared
	c.mu.Lock()
	if c.byText == nil {
		c.byText = map[string]*list.Element{}
	}
	if el := c.byText[text]; el != nil {
		if old := el.Value.(*preparedInfo); old.stmt != e.stmt {
			dropped = append(dropped, old.stmt)
		}
		el.Value = e
		c.order.MoveToFront(el)
	} else {
		c.byText[text] = c.order.PushFront(e)
	}
	for c.max != 0 && c.order.Len() > max(c.max, 0) { // negative: cache nothing, as gocql
		old := c.order.Remove(c.order.Back()).(*preparedInfo)
		delete(c.byText, old.stmt.CQL())
		dropped = append(dropped, old.stmt)
	}
	c.mu.Unlock()
	if c.drop != nil {
		for _, p := range dropped {
			c.drop(p)
		}
	}
}

// remove removes the entry of e's text if it is still e.
func (c *textCache) remove(e *preparedInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	text := e.stmt.CQL()
	if el := c.byText[text]; el != nil && el.Value == e {
		c.order.Remove(el)
		delete(c.byText, text)
	}
}
