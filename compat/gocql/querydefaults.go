package gocql

// queryDefaults is a snapshot of the options a new Query takes from its session that
// SetConsistency, SetPageSize, SetPrefetch and SetTrace change. Session.Query reads it without
// taking the session's lock, which concurrent query builders would otherwise all contend for.
type queryDefaults struct {
	cons     Consistency
	pageSize int
	prefetch float64
	trace    Tracer
	observer QueryObserver
}

// queryDefaults returns the current snapshot, building it when a setter made it stale. The
// snapshot is stored under the read lock and the setters clear it under the write lock, so a
// stored snapshot never predates a completed setter.
func (s *Session) queryDefaults() *queryDefaults {
	if d := s.defaults.Load(); d != nil {
		return d
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := &queryDefaults{cons: s.cons, pageSize: s.pageSize, prefetch: s.prefetch, trace: s.trace, observer: s.queryObserver}
	s.defaults.Store(d)
	return d
}
