package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// setupData creates the schema and the rows the workloads read, using gocql (the reference
// driver), so that every driver under test finds the same data. It is idempotent.
func setupData(ctx context.Context, hosts []string) error {
	cluster := gocql.NewCluster(hosts...)
	cluster.Consistency = gocql.One
	cluster.Timeout = 30 * time.Second
	cluster.ConnectTimeout = 30 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("setup: connecting to %v: %w", hosts, err)
	}
	defer s.Close()
	for _, ddl := range schema() {
		if err := s.Query(ddl).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("setup: %s: %w", ddl, err)
		}
	}
	if populated(ctx, s) {
		return nil // populated by an earlier run against this server
	}
	type row struct {
		stmt string
		args []interface{}
	}
	jobs := make(chan row, 256)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				if err := s.Query(r.stmt, r.args...).WithContext(ctx).Exec(); err != nil {
					select {
					case errs <- fmt.Errorf("setup: %s %v: %w", r.stmt, r.args, err):
					default:
					}
				}
			}
		}()
	}
	for k := 0; k < readRows; k++ {
		jobs <- row{stmtWrite, []interface{}{k, k, textValue(k)}}
	}
	for c := 0; c < pageRows; c++ {
		jobs <- row{stmtBatch, []interface{}{pagePartition, c, textValue(c)}}
	}
	for k := 0; k < 1000; k++ {
		jobs <- row{"INSERT INTO " + benchKeyspace + ".lwt (k, v) VALUES (?, ?)", []interface{}{k, 1}}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// populated reports whether every table holds the whole data set (an earlier set-up may have
// failed or been interrupted part way: its inserts run concurrently and in any order).
func populated(ctx context.Context, s *gocql.Session) bool {
	for _, c := range []struct {
		query string
		args  []interface{}
		want  int
	}{
		{"SELECT COUNT(*) FROM " + benchKeyspace + ".kv", nil, readRows},
		{"SELECT COUNT(*) FROM " + benchKeyspace + ".wide WHERE p = ?", []interface{}{pagePartition}, pageRows},
		{"SELECT COUNT(*) FROM " + benchKeyspace + ".lwt", nil, 1000},
	} {
		var have int
		if err := s.Query(c.query, c.args...).WithContext(ctx).Scan(&have); err != nil || have < c.want {
			return false
		}
	}
	return true
}
