package gocql

import (
	"context"
	"sync"
	"testing"
)

// TestWithContextCopiesAreDistinct checks the copies WithContext returns, the first of which
// lives in the original's allocation: every call returns a new Query (also when called
// concurrently on one Query, and on a copy), and copies do not change each other or the
// original.
func TestWithContextCopiesAreDistinct(t *testing.T) {
	s := offlineSession()
	q := s.Query("SELECT * FROM t WHERE k = ?", 1)
	type ctxKey struct{}
	const n = 16
	copies := make([]*Query, n)
	var wg sync.WaitGroup
	for i := range copies {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := q.WithContext(context.WithValue(context.Background(), ctxKey{}, i))
			c.PageSize(100 + i)
			copies[i] = c
		}(i)
	}
	wg.Wait()
	seen := map[*Query]bool{q: true}
	for i, c := range copies {
		if seen[c] {
			t.Fatalf("copy %d is the original or another copy", i)
		}
		seen[c] = true
		if c.Context().Value(ctxKey{}) != i || c.pageSize != 100+i {
			t.Fatalf("copy %d has context value %v and page size %d", i, c.Context().Value(ctxKey{}), c.pageSize)
		}
		if c.Statement() != q.Statement() || len(c.Values()) != 1 {
			t.Fatalf("copy %d: statement %q values %v", i, c.Statement(), c.Values())
		}
	}
	if q.pageSize != 5000 || q.Context() != context.Background() {
		t.Fatalf("the original changed: page size %d", q.pageSize)
	}
	cc := copies[0].WithContext(context.Background())
	if seen[cc] || cc.pageSize != copies[0].pageSize {
		t.Fatalf("a copy of a copy: new %v, page size %d", !seen[cc], cc.pageSize)
	}
	copies[0].Release()
	if copies[1].Statement() != q.Statement() || q.released {
		t.Fatal("releasing one copy affected the others")
	}
}
