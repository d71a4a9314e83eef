package gocql

import (
	"sync"
	"testing"
)

// TestIterOfQueryIterIsNotRecycled checks that the Iters Scan and Exec recycle internally
// never include one handed to the caller: an Iter from Query.Iter keeps its rows while many
// other queries run and finish, concurrently, through Scan, Exec and MapScan.
func TestIterOfQueryIterIsNotRecycled(t *testing.T) {
	s, _ := newTestSession(t, "CREATE TABLE KS.kv (k int PRIMARY KEY, v text)")
	defer s.Close()
	for k := 0; k < 20; k++ {
		if err := s.Query("INSERT INTO kv (k, v) VALUES (?, ?)", k, string(rune('a'+k))).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	kept := s.Query("SELECT k, v FROM kv WHERE k = ?", 7).Iter()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := (w*50 + i) % 20
				var gotK int
				var v string
				if err := s.Query("SELECT k, v FROM kv WHERE k = ?", k).Scan(&gotK, &v); err != nil {
					errs <- err
					return
				}
				if gotK != k || v != string(rune('a'+k)) {
					t.Errorf("Scan of key %d read (%d, %q)", k, gotK, v)
				}
				m := map[string]interface{}{}
				if err := s.Query("SELECT v FROM kv WHERE k = ?", k).MapScan(m); err != nil {
					errs <- err
					return
				}
				if m["v"] != string(rune('a'+k)) {
					t.Errorf("MapScan of key %d read %v", k, m)
				}
				if err := s.Query("UPDATE kv SET v = ? WHERE k = ?", string(rune('a'+k)), k).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if kept.NumRows() != 1 {
		t.Fatalf("the kept Iter has %d rows, want 1", kept.NumRows())
	}
	var k int
	var v string
	if !kept.Scan(&k, &v) || k != 7 || v != "h" {
		t.Fatalf("the kept Iter scanned (%d, %q), want (7, \"h\")", k, v)
	}
	if err := kept.Close(); err != nil {
		t.Fatal(err)
	}
}
