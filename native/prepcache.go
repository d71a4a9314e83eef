package native

// The bound of the prepared statement cache (Config.MaxPreparedStatements).
//
// Session.prepared maps a keyspace and text to its entry; prepRing lists the entries in the
// order they were added, and the cache looks at them in that order, from a hand that goes
// round, when it must drop one, as the CLOCK page replacement algorithm does: an entry used
// since the hand last passed it (prepEntry.used) is passed again with its mark cleared, an
// entry not used since is dropped. A statement prepared
// once and never again (a text with literal values) is dropped before one that keeps being
// used, at the cost of a flag set on each hit instead of a list moved under the lock.
//
// An entry whose PREPARE is still in flight counts as used: its callers wait on it. Entries
// that left the map another way (a failed PREPARE, a statement the server refused to prepare
// again) stay in the ring until the hand reaches them, and count towards the bound meanwhile,
// so the ring itself never holds more than the bound either.

// prepRing is the sweep order of the cached entries and the position of the hand.
type prepRing struct {
	entries []*prepEntry
	hand    int
}

// cachePrepared adds e to the cache under e.key and drops entries while the cache holds more
// than max (no bound when max is negative). The caller holds prepMu.
func (s *Session) cachePrepared(e *prepEntry) {
	s.prepared[e.key] = e
	max := s.cfg.MaxPreparedStatements
	if max < 0 {
		return
	}
	r := &s.prepRing
	r.entries = append(r.entries, e)
	// Two passes at most: the first clears every mark, the second finds an entry to drop,
	// unless every entry is still being prepared (then the cache stays over the bound until
	// the next addition).
	for steps := 2 * len(r.entries); len(r.entries) > max && steps > 0; steps-- {
		if r.hand >= len(r.entries) {
			r.hand = 0
		}
		old := r.entries[r.hand]
		switch {
		case s.prepared[old.key] != old:
			r.remove() // left the map already
		case old.used || !old.completed():
			old.used = false
			r.hand++
		default:
			delete(s.prepared, old.key)
			r.remove()
		}
	}
}

// remove drops the entry under the hand, keeping the order of the others: the next one comes
// under the hand. (Moving the last entry into its place instead would put the newest entry
// under the hand, to be dropped first.)
func (r *prepRing) remove() {
	last := len(r.entries) - 1
	copy(r.entries[r.hand:], r.entries[r.hand+1:])
	r.entries[last] = nil
	r.entries = r.entries[:last]
}

// completed reports whether e's PREPARE has been answered.
func (e *prepEntry) completed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}
