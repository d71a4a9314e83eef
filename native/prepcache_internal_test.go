package native

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestPreparedCacheSweep drives the cache's bound directly: entries never used again go first,
// in the order they came; used ones stay; entries still being prepared are never dropped;
// entries that left the map another way (a failed PREPARE) do not pile up in the ring; and the
// hand goes round, so that entries used long ago do not stay for good while new ones replace
// each other.
func TestPreparedCacheSweep(t *testing.T) {
	var s *Session
	fresh := func(max int) {
		s = &Session{cfg: Config{MaxPreparedStatements: max}, prepared: map[prepKey]*prepEntry{}}
	}
	// add caches a new entry as Prepare does, while its PREPARE is in flight, and completes
	// it afterwards when completed is set.
	add := func(cql string, completed bool) *prepEntry {
		e := &prepEntry{done: make(chan struct{}), key: prepKey{keyspace: "ks", cql: cql}}
		s.cachePrepared(e)
		if completed {
			e.p = &Prepared{cql: cql, keyspace: "ks"}
			close(e.done)
		}
		return e
	}
	cached := func(e *prepEntry) bool { return s.prepared[e.key] == e }
	// use looks cql up as Prepare does, adding it when it is not cached; it reports whether
	// a PREPARE was needed.
	use := func(cql string) bool {
		if e := s.prepared[prepKey{keyspace: "ks", cql: cql}]; e != nil {
			e.p.markUsed()
			return false
		}
		add(cql, true)
		return true
	}
	check := func(when string) {
		t.Helper()
		if len(s.prepared) > 3 || len(s.prepRing.entries) > 3 {
			t.Fatalf("%s: %d entries cached, %d in the ring; the bound is 3", when, len(s.prepared), len(s.prepRing.entries))
		}
	}

	fresh(3)
	var order []*prepEntry
	for _, cql := range []string{"a", "b", "c", "d", "e", "f"} {
		order = append(order, add(cql, true))
	}
	for i, e := range order {
		if want := i >= 3; cached(e) != want {
			t.Fatalf("after adding a to f with a bound of 3, %s cached: %v, want %v", e.key.cql, cached(e), want)
		}
	}

	// A and B used once, then never again, while X and Y alternate: after the hand has gone
	// round once, X and Y stay cached (a hand stuck in one place would prepare them every time).
	fresh(3)
	for _, cql := range []string{"A", "B", "C"} {
		use(cql)
	}
	use("A")
	use("B")
	use("D")
	prepares := 0
	for i := range 40 {
		if use([]string{"X", "Y"}[i%2]) {
			prepares++
		}
		check(fmt.Sprintf("X/Y %d", i))
	}
	if prepares != 2 {
		t.Fatalf("X and Y, alternating 40 times after A and B went unused, needed %d PREPAREs; want 2", prepares)
	}

	fresh(3)
	hot := add("hot", true)
	var literals []*prepEntry
	for i := range 50 {
		hot.p.markUsed() // what a lookup or a Bind does
		e := add(fmt.Sprintf("literal %d", i), true)
		check(fmt.Sprintf("literal %d", i))
		if !cached(hot) {
			t.Fatalf("the statement used before every addition was dropped at literal %d", i)
		}
		if i >= 2 && cached(literals[i-2]) {
			t.Fatalf("literal %d, never used, is still cached after literal %d (the bound is 3, the used statement included)", i-2, i)
		}
		literals = append(literals, e)
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
		e.p = &Prepared{cql: e.key.cql, keyspace: "ks"}
		close(e.done)
	}
	add("after", true)
	check("after the PREPAREs completed")

	// Failed PREPAREs leave the map before they complete (prepareEntry deletes them); the ring
	// forgets them as the hand passes.
	for i := range 50 {
		e := add(fmt.Sprintf("failing %d", i), false)
		delete(s.prepared, e.key)
		close(e.done)
		check(fmt.Sprintf("failed PREPARE %d", i))
	}

	// DropPrepared removes a completed statement only, and only its own entry.
	e := add("dropped", true)
	s.DropPrepared(&Prepared{cql: "dropped", keyspace: "ks"})
	if !cached(e) {
		t.Fatal("DropPrepared of another Prepared of the same text removed the cached one")
	}
	s.DropPrepared(e.p)
	if cached(e) {
		t.Fatal("DropPrepared left the statement cached")
	}
	inFlight := add("in flight", false)
	s.DropPrepared(&Prepared{cql: "in flight", keyspace: "ks"})
	if !cached(inFlight) {
		t.Fatal("DropPrepared removed an entry whose PREPARE is in flight")
	}

	// No bound: nothing dropped, and no ring kept.
	fresh(-1)
	for i := range 20 {
		add(fmt.Sprintf("literal %d", i), true)
	}
	if len(s.prepared) != 20 || len(s.prepRing.entries) != 0 {
		t.Fatalf("unbounded cache: %d cached, %d in the ring; want 20 and 0", len(s.prepared), len(s.prepRing.entries))
	}
}

// TestPreparedCacheBoundUnderConcurrency: goroutines preparing and running overlapping texts
// at once, on a real (embedded) server, leave the cache within its bound and every statement
// usable; run it with -race.
func TestPreparedCacheBoundUnderConcurrency(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Connect(ctx, Config{Hosts: sim.Addrs(), MaxPreparedStatements: 5, ConnsPerHost: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cqltest.Exec(t, sim.Addrs()[0], "CREATE KEYSPACE pc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, sim.Addrs()[0], "CREATE TABLE pc.kv (k int PRIMARY KEY, v text)")
	cqltest.Concurrently(t, 8, func(g int) error {
		for i := range 60 {
			p, err := s.Prepare(ctx, fmt.Sprintf("SELECT v FROM pc.kv WHERE k = %d", (g*7+i)%20))
			if err == nil {
				_, err = s.Execute(ctx, p.Bind())
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	// With PREPAREs in flight an addition may leave the cache over its bound until the next
	// one (see prepcache.go); with none in flight, one more brings it back within.
	if _, err := s.Prepare(ctx, "SELECT v FROM pc.kv WHERE k = 1000"); err != nil {
		t.Fatal(err)
	}
	s.prepMu.Lock()
	defer s.prepMu.Unlock()
	if len(s.prepared) > 5 || len(s.prepRing.entries) > 5 {
		t.Fatalf("after concurrent use of 20 texts with a bound of 5: %d cached, %d in the ring", len(s.prepared), len(s.prepRing.entries))
	}
}
