package native

import (
	"fmt"
	"testing"
)

// TestPreparedCacheSweep drives the cache's bound directly: entries never looked up again go
// first, looked-up ones stay, entries still being prepared are never dropped, and entries that
// left the map another way (a failed PREPARE) do not pile up in the ring.
func TestPreparedCacheSweep(t *testing.T) {
	s := &Session{cfg: Config{MaxPreparedStatements: 3}, prepared: map[prepKey]*prepEntry{}}
	// add caches a new entry as Prepare does, while its PREPARE is in flight, and completes
	// it afterwards when completed is set.
	add := func(cql string, completed bool) *prepEntry {
		e := &prepEntry{done: make(chan struct{}), key: prepKey{keyspace: "ks", cql: cql}}
		s.cachePrepared(e)
		if completed {
			close(e.done)
		}
		return e
	}
	cached := func(e *prepEntry) bool { return s.prepared[e.key] == e }
	check := func(when string) {
		t.Helper()
		if len(s.prepared) > 3 || len(s.prepRing.entries) > 3 {
			t.Fatalf("%s: %d entries cached, %d in the ring; the bound is 3", when, len(s.prepared), len(s.prepRing.entries))
		}
	}

	// Never looked up again, entries go in the order they came.
	var order []*prepEntry
	for _, cql := range []string{"a", "b", "c", "d", "e", "f"} {
		order = append(order, add(cql, true))
	}
	for i, e := range order {
		if want := i >= 3; cached(e) != want {
			t.Fatalf("after adding a to f with a bound of 3, %s cached: %v, want %v", e.key.cql, cached(e), want)
		}
	}

	hot := add("hot", true)
	for i := range 50 {
		hot.used = true // what a lookup does
		e := add(fmt.Sprintf("literal %d", i), true)
		check(fmt.Sprintf("literal %d", i))
		if !cached(hot) {
			t.Fatalf("the statement looked up before every addition was dropped at literal %d", i)
		}
		if !cached(e) {
			t.Fatalf("literal %d was dropped as it was added", i)
		}
	}

	// Three PREPAREs in flight fill the cache: the next addition cannot drop them, so the
	// cache is over its bound until they complete.
	var flying []*prepEntry
	for i := range 3 {
		flying = append(flying, add(fmt.Sprintf("flying %d", i), false))
	}
	extra := add("extra", true)
	for _, e := range flying {
		if !cached(e) {
			t.Fatalf("%s was dropped while it was being prepared", e.key.cql)
		}
	}
	if !cached(extra) || len(s.prepared) != 4 {
		t.Fatalf("with three PREPAREs in flight and one more added, %d entries are cached (the last one: %v); want 4", len(s.prepared), cached(extra))
	}
	for _, e := range flying {
		close(e.done)
	}
	add("after", true)
	check("after the PREPAREs completed")

	// Failed PREPAREs leave the map at once (prepareEntry deletes them); the ring forgets them
	// as the hand passes.
	for i := range 50 {
		e := add(fmt.Sprintf("failing %d", i), false)
		delete(s.prepared, e.key)
		close(e.done)
		check(fmt.Sprintf("failed PREPARE %d", i))
	}

	e := add("late", false)
	delete(s.prepared, e.key)
	close(e.done)
	add("after failures", true)
	check("after the failed PREPAREs")

	// No bound: nothing dropped, and no ring kept.
	s = &Session{cfg: Config{MaxPreparedStatements: -1}, prepared: map[prepKey]*prepEntry{}}
	for i := range 20 {
		add(fmt.Sprintf("literal %d", i), true)
	}
	if len(s.prepared) != 20 || len(s.prepRing.entries) != 0 {
		t.Fatalf("unbounded cache: %d cached, %d in the ring; want 20 and 0", len(s.prepared), len(s.prepRing.entries))
	}
}
