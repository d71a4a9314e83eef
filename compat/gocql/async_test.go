package gocql

import (
	"errors"
	"sync"
	"testing"

	"github.com/cqlbridge/cqlbridge/future"
)

func TestIterAsyncCallbacksPerPage(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 5)
	obs := &countingObserver{}
	f := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(2).Observer(obs).IterAsync()

	var mu sync.Mutex
	var pages [][]int
	done := make(chan error, 1)
	f.AddCallbacks(func(p future.Page) {
		rows, err := p.Rows()
		if err != nil {
			done <- err
			return
		}
		var cs []int
		for _, r := range rows {
			v, _ := r.Index(0)
			c, ok := v.(int32) // the future decodes with the native core's Go types
			if !ok {
				done <- errors.New("unexpected value type")
				return
			}
			cs = append(cs, int(c))
		}
		mu.Lock()
		pages = append(pages, cs)
		mu.Unlock()
		if f.HasMorePages() {
			if err := f.StartFetchingNextPage(); err != nil {
				done <- err
			}
			return
		}
		done <- nil
	}, func(err error) { done <- err })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pages) != 3 || len(pages[0]) != 2 || pages[2][0] != 5 {
		t.Fatalf("pages = %v, want [[1 2] [3 4] [5]]", pages)
	}
	if n := len(obs.all()); n != 3 {
		t.Fatalf("observer saw %d attempts, want one per page", n)
	}
}

func TestAsyncErrorsAndBatches(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	_, err := s.Query("SELEKT 1").ExecAsync().Result()
	var re RequestError
	if !errors.As(err, &re) || re.Code() != ErrCodeSyntax {
		t.Fatalf("async syntax error: %T %v", err, err)
	}
	b := s.NewBatch(UnloggedBatch)
	b.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 7, 1, "x")
	b.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 7, 2, "y")
	if _, err := s.ExecuteBatchAsync(b).Result(); err != nil {
		t.Fatalf("ExecuteBatchAsync: %v", err)
	}
	rs, err := s.Query("SELECT c FROM kv WHERE p = 7").IterAsync().Result()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rs.All()
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows after async batch: %v, %v", rows, err)
	}
	var nilQuery *Query
	if _, err := nilQuery.ExecAsync().Result(); err == nil {
		t.Fatal("ExecAsync on a nil query returned no error")
	}
}
