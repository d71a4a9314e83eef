package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

// gocqlDriver runs the workloads with gocql v1.7.0 (the legacy driver), used the way a typical
// application uses it: a Query per operation.
type gocqlDriver struct {
	s        *gocql.Session
	workload string
}

func newGocqlDriver(ctx context.Context, cfg runConfig) (driver, error) {
	cluster := gocql.NewCluster(cfg.Hosts...)
	cluster.Consistency = gocql.One
	cluster.Timeout = requestTimeout
	cluster.ConnectTimeout = 30 * time.Second
	cluster.NumConns = 1
	s, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("gocql: connecting to %v: %w", cfg.Hosts, err)
	}
	return &gocqlDriver{s: s, workload: cfg.Workload}, nil
}

func (d *gocqlDriver) close() { d.s.Close() }

func (d *gocqlDriver) op(ctx context.Context, worker int, n int64) error {
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
	return fmt.Errorf("gocql driver: unknown workload %q", d.workload)
}

// errShortRead and errNotApplied report a workload result that is not what the data set holds,
// so a driver that silently returns too little cannot look fast.
type errShortRead struct{ got, want int }

func (e errShortRead) Error() string { return fmt.Sprintf("read %d rows, want %d", e.got, e.want) }

type errNotApplied struct{}

func (errNotApplied) Error() string { return "LWT not applied" }

func checkRows(got, want int) error {
	if got != want {
		return errShortRead{got, want}
	}
	return nil
}

func checkApplied(applied bool) error {
	if !applied {
		return errNotApplied{}
	}
	return nil
}
