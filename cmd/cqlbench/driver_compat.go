package main

import (
	"context"
	"fmt"
	"time"

	gocql "github.com/cqlbridge/cqlbridge/compat/gocql"
)

// compatDriver is the gocql driver's code with only the import path swapped to cqlbridge's shim,
// which is the migration the shim promises; the two files must stay identical otherwise.
type compatDriver struct {
	s        *gocql.Session
	workload string
}

func newCompatDriver(ctx context.Context, cfg runConfig) (driver, error) {
	cluster := gocql.NewCluster(cfg.Hosts...)
	cluster.Consistency = gocql.One
	cluster.Timeout = requestTimeout
	cluster.ConnectTimeout = 30 * time.Second
	cluster.NumConns = 1
	s, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("compat: connecting to %v: %w", cfg.Hosts, err)
	}
	return &compatDriver{s: s, workload: cfg.Workload}, nil
}

func (d *compatDriver) close() { d.s.Close() }

func (d *compatDriver) op(ctx context.Context, worker int, n int64) error {
	switch d.workload {
	case wlReadPrepared:
		var i int
		var t string
		return d.s.Query(stmtRead, int(n%readRows)).WithContext(ctx).Scan(&i, &t)
	case wlWritePrepared:
		k := int(n % readRows)
		return d.s.Query(stmtWrite, k, k, textValue(k)).WithContext(ctx).Exec()
	case wlReadPage:
		iter := d.s.Query(stmtPage, pagePartition).PageSize(pageSize).WithContext(ctx).Iter()
		var c int
		var v string
		rows := 0
		for iter.Scan(&c, &v) {
			rows++
		}
		if err := iter.Close(); err != nil {
			return err
		}
		return checkRows(rows, pageRows)
	case wlBatch:
		b := d.s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
		p := batchPartition(n)
		for i := 0; i < batchSize; i++ {
			b.Query(stmtBatch, p, i, textValue(i))
		}
		return d.s.ExecuteBatch(b)
	case wlLWT:
		var cur int
		applied, err := d.s.Query(stmtLWT, 1, int(n%1000), 1).WithContext(ctx).ScanCAS(&cur)
		if err != nil {
			return err
		}
		return checkApplied(applied)
	}
	return fmt.Errorf("compat driver: unknown workload %q", d.workload)
}
