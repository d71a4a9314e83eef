package native

import "slices"

// The bound of the prepared statement cache (Config.MaxPreparedStatements).
//
// Session.prepared maps a keyspace and text to its entry. prepRing holds the entries as the
// CLOCK page replacement algorithm keeps its pages: in a circle, with a hand pointing at the
// next one to consider. A new entry goes just behind the hand, so it is considered last. While
// the ring holds more entries than the bound, the hand looks at the entry under it: one whose
// statement was prepared or bound since the hand last passed it (Prepared.used) is passed with
// the mark cleared, one not used since is dropped. A statement prepared once and never again
// (a text with literal values) so goes before one that keeps being used, and a use costs a flag
// set on the statement instead of a list moved under the session's lock.
//
// An entry whose PREPARE is still in flight is never dropped: its callers wait on it. Entries
// that left the map another way (a failed PREPARE, DropPrepared, a statement the server
// refused to prepare again) stay in the ring until the hand reaches them and count towards the
// bound meanwhile, so the ring holds more than the bound only while PREPAREs are in flight.

// prepRing is the circle of cached entries and the position of the hand.
type prepRing struct {
	entries []*prepEntry
	hand    int
}

// cachePrepared adds e, whose PREPARE is in flight, to the cache under e.key, and drops entries
// while the cache holds more than max (no bound when max is negative). The caller holds prepMu.
func (s *Session) cachePrepared(e *prepEntry) {
	s.prepared[e.key] = e
	max := s.cfg.MaxPreparedStatements
	if max < 0 {
		return
	}
	r := &s.prepRing
	r.hand = min(r.hand, len(r.entries))
	r.entries = slices.Insert(r.entries, r.hand, e)
	r.hand++
	// Two turns at most: the first clears every mark, the second finds an entry to drop,
	// unless every entry is still being prepared (then the cache stays over the bound until
	// a later addition).
	for steps := 2 * len(r.entries); len(r.entries) > max && steps > 0; steps-- {
		if r.hand >= len(r.entries) {
			r.hand = 0
		}
		old := r.entries[r.hand]
		switch {
		case s.prepared[old.key] != old:
			r.remove() // left the map already
		case !old.completed():
			r.hand++
		case old.p.used.Load():
			old.p.used.Store(false)
			r.hand++
		default:
			delete(s.prepared, old.key)
			r.remove()
		}
	}
}

// remove drops the entry under the hand, keeping the order of the others: the next one comes
// under the hand.
func (r *prepRing) remove() {
	r.entries = slices.Delete(r.entries, r.hand, r.hand+1)
}

// completed reports whether e's PREPARE has been answered (successfully: a failed entry has
// left the map before it completes).
func (e *prepEntry) completed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// DropPrepared removes p from the session's cache of prepared statements, if it is still
// there, so that the next Prepare of its text sends a PREPARE and returns a new Prepared. p
// itself stays valid, and Evicted stays false. It is for callers keeping their own bounded
// cache of statements on top of the session's (compat/gocql does, with
// Config.MaxPreparedStatements negative); Config.MaxPreparedStatements bounds the session's
// cache by itself.
func (s *Session) DropPrepared(p *Prepared) {
	if p == nil {
		return
	}
	key := prepKey{keyspace: p.keyspace, cql: p.cql}
	s.prepMu.Lock()
	defer s.prepMu.Unlock()
	if e := s.prepared[key]; e != nil && e.completed() && e.p == p {
		delete(s.prepared, key)
	}
}
