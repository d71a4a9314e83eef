package engine

import (
	"sync"
	"testing"
)

// TestConcurrentUse runs DDL, writes, reads and prepares from several goroutines (run with
// -race); counters must add up exactly.
func TestConcurrentUse(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE c (k int PRIMARY KEY, n counter)")
	const workers, per = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*per*3)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p, err := te.Prepare("ks", "UPDATE c SET n = n + 1 WHERE k = ?")
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < per; i++ {
				if _, err := te.Execute(&Request{Consistency: 1, Prepared: p, Values: Values{Positional: []Value{intVal(int32(i % 3))}}}); err != nil {
					errs <- err
				}
				if _, err := te.Execute(&Request{Consistency: 1, Keyspace: "ks", Query: "SELECT * FROM c", PageSize: 2}); err != nil {
					errs <- err
				}
				if i%10 == 0 {
					if _, err := te.Execute(&Request{Consistency: 1, Query: "SELECT * FROM system_schema.tables"}); err != nil {
						errs <- err
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	eq(t, "sum", te.rows("SELECT sum(n) FROM c"), []string{"400"})
}
