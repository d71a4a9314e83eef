package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cqlbridge/cqlbridge/native"
)

// nativeDriver runs the workloads on cqlbridge's native core: statements prepared once, bound
// per operation, results scanned into Go values.
type nativeDriver struct {
	s        *native.Session
	workload string
	prep     *native.Prepared
}

func newNativeDriver(ctx context.Context, cfg runConfig) (driver, error) {
	s, err := native.Connect(ctx, native.Config{Hosts: cfg.Hosts, Consistency: native.One, ConnsPerHost: 1, Timeout: requestTimeout})
	if err != nil {
		return nil, fmt.Errorf("native: connecting to %v: %w", cfg.Hosts, err)
	}
	stmt := map[string]string{wlReadPrepared: stmtRead, wlWritePrepared: stmtWrite, wlReadPage: stmtPage,
		wlBatch: stmtBatch, wlLWT: stmtLWT}[cfg.Workload]
	p, err := s.Prepare(ctx, stmt)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("native: preparing %q: %w", stmt, err)
	}
	return &nativeDriver{s: s, workload: cfg.Workload, prep: p}, nil
}

func (d *nativeDriver) close() { d.s.Close() }

func (d *nativeDriver) op(ctx context.Context, worker int, n int64) error {
	switch d.workload {
	case wlReadPrepared:
		res, err := d.s.Execute(ctx, d.prep.Bind(int(n%readRows)))
		if err != nil {
			return err
		}
		row, ok := res.First()
		if !ok {
			return errShortRead{0, 1}
		}
		// Get is native's allocation-free column read (Row.Scan works too, at two more
		// allocations: its destinations escape into the general decoder).
		if _, err := native.Get[int](row, 0); err != nil {
			return err
		}
		_, err = native.Get[string](row, 1)
		return err
	case wlWritePrepared:
		k := int(n % readRows)
		_, err := d.s.Execute(ctx, d.prep.Bind(k, k, textValue(k)))
		return err
	case wlReadPage:
		rows := 0
		var c int
		var v string
		for row, err := range d.s.Iter(ctx, d.prep.Bind(pagePartition).WithPageSize(pageSize)) {
			if err != nil {
				return err
			}
			if err := row.Scan(&c, &v); err != nil {
				return err
			}
			rows++
		}
		return checkRows(rows, pageRows)
	case wlBatch:
		p := batchPartition(n)
		stmts := make([]native.Statement, batchSize)
		for i := range stmts {
			stmts[i] = d.prep.Bind(p, i, textValue(i))
		}
		_, err := d.s.ExecuteBatch(ctx, native.NewBatch(native.UnloggedBatch, stmts...))
		return err
	case wlLWT:
		res, err := d.s.Execute(ctx, d.prep.Bind(1, int(n%1000), 1))
		if err != nil {
			return err
		}
		// Applied reports true for a result without an [applied] column: require the column,
		// as the floor does and as gocql's ScanCAS does.
		if cols := res.Columns(); len(cols) == 0 || cols[0].Name != "[applied]" || res.Len() < 1 {
			return errors.New("native: lwt: no [applied] column in the result")
		}
		return checkApplied(res.Applied())
	}
	return fmt.Errorf("native driver: unknown workload %q", d.workload)
}
