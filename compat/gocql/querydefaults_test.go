package gocql

import (
	"sync"
	"testing"
)

// TestQueryDefaultsFollowEverySetter checks that each setter is seen by the next Query even
// though queries read a cached snapshot: a query is created before every change so that the
// snapshot exists when the setter runs.
func TestQueryDefaultsFollowEverySetter(t *testing.T) {
	s := offlineSession()
	tracer := &recordingTracer{}
	steps := []struct {
		set   func()
		check func(q *Query) bool
	}{
		{func() { s.SetConsistency(Two) }, func(q *Query) bool { return q.cons == Two }},
		{func() { s.SetPageSize(3) }, func(q *Query) bool { return q.pageSize == 3 }},
		{func() { s.SetPrefetch(0.5) }, func(q *Query) bool { return q.prefetch == 0.5 }},
		{func() { s.SetTrace(tracer) }, func(q *Query) bool { return q.trace == tracer }},
		{func() { s.SetTrace(nil) }, func(q *Query) bool { return q.trace == nil }},
	}
	for i, st := range steps {
		_ = s.Query("x")
		st.set()
		if q := s.Query("x"); !st.check(q) {
			t.Fatalf("step %d: the query after the setter has cons %v pageSize %d prefetch %v trace %v", i, q.cons, q.pageSize, q.prefetch, q.trace)
		}
	}
}

// recordingTracer is a Tracer that remembers the ids it was given.
type recordingTracer struct {
	mu  sync.Mutex
	ids [][]byte
}

func (r *recordingTracer) Trace(id []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
}

// TestQueryDefaultsConcurrentSetters builds queries while setters run (for the race detector)
// and checks that once the setters are done every new query has the last values.
func TestQueryDefaultsConcurrentSetters(t *testing.T) {
	s := offlineSession()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				q := s.Query("x")
				if q.pageSize < 0 {
					t.Errorf("page size %d", q.pageSize)
				}
			}
		}()
	}
	for i := 1; i <= 200; i++ {
		s.SetPageSize(i)
		s.SetConsistency(Consistency(i%3 + 1))
	}
	wg.Wait()
	if q := s.Query("x"); q.pageSize != 200 || q.cons != Consistency(200%3+1) {
		t.Fatalf("after the setters: pageSize %d cons %v, want 200 and %v", q.pageSize, q.cons, Consistency(200%3+1))
	}
}
