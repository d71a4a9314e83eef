package gocql

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestStatementTextCacheUnderConcurrency: goroutines running overlapping texts with literal
// values at once leave the statement-text cache within MaxPreparedStmts, its list and map in
// step; run it with -race.
func TestStatementTextCacheUnderConcurrency(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	cluster := NewCluster(sim.Addrs()...)
	cluster.Timeout = 30 * time.Second
	cluster.MaxPreparedStmts = 5
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, stmt := range []string{
		"CREATE KEYSPACE pc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE pc.kv (k int PRIMARY KEY, v text)",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				if err := s.Query(fmt.Sprintf("SELECT v FROM pc.kv WHERE k = %d", (g*7+i)%20)).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := &s.preparedText
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order.Len() > 5 || len(c.byText) != c.order.Len() {
		t.Fatalf("after concurrent use of 20 texts with MaxPreparedStmts 5: %d texts listed, %d mapped", c.order.Len(), len(c.byText))
	}
	for el := c.order.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*textPrepared); c.byText[e.stmt] != el {
			t.Fatalf("%q is listed but mapped to another element", e.stmt)
		}
	}
}
