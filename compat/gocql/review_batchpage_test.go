package gocql_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

type legacyBatchObs struct{ tr *trace }

func (o legacyBatchObs) ObserveBatch(_ context.Context, b gocqlv1.ObservedBatch) {
	o.tr.add("observe batch", b.Keyspace, fmt.Sprintf("%q", b.Statements), fmt.Sprintf("%v", b.Values), b.Err, b.Attempt,
		b.Host == nil, b.Metrics != nil && b.Metrics.Attempts > 0)
}

type compatBatchObs struct{ tr *trace }

func (o compatBatchObs) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	o.tr.add("observe batch", b.Keyspace, fmt.Sprintf("%q", b.Statements), fmt.Sprintf("%v", b.Values), b.Err, b.Attempt,
		b.Host == nil, b.Metrics != nil && b.Metrics.Attempts > 0)
}

// TestReviewBatchErrorsAndObserver compares batch failures (a statement that fails to prepare,
// with and without values, a binder error, a marshal error, a wrong count), what the observer
// and the retry policy see of them, and a batch reused after execution.
func TestReviewBatchErrorsAndObserver(t *testing.T) {
	p := newDiffPair(t, reviewKV)
	const ins = "INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)"
	var lt, ct trace
	{
		tr := &lt
		s := p.legacy
		run := func(label string, b *gocqlv1.Batch) {
			b.Observer(legacyBatchObs{tr})
			b.RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 1})
			err := s.ExecuteBatch(b)
			tr.add(label, err, b.Attempts())
		}
		b := s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query("INSERT INTO review_kv (p, c, v) VALUES (20, 2, 'b')")
		run("mixed", b)
		run("mixed again", b)
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query("INSERT INTO review_kv (p, c, nope) VALUES (?, ?, ?)", 20, 2, "b")
		run("prepare fails", b)
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query("INSERT INTO review_kv (p, c, nope) VALUES (20, 2, 'b')")
		run("unprepared fails", b)
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query("SELECT * FROM review_kv")
		run("select in batch", b)
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query("SELECT * FROM review_kv WHERE p = ?", 1)
		run("prepared select in batch", b)
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Bind(ins, func(*gocqlv1.QueryInfo) ([]interface{}, error) { return nil, errors.New("binder failed") })
		run("binder fails", b)
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 20, "x", "a")
		run("marshal fails", b)
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query(ins, 20, 1, "a", 4)
		run("too many values", b)
		b = s.NewBatch(gocqlv1.CounterBatch)
		b.Query(ins, 20, 1, "a")
		run("counter batch of a plain insert", b)
		b = s.NewBatch(gocqlv1.UnloggedBatch)
		run("empty", b)
		b = s.NewBatch(gocqlv1.UnloggedBatch)
		b.Query(ins, 21, 1, "a")
		b.WithTimestamp(1111)
		run("timestamp", b)
		var wt int64
		tr.add("writetime", s.Query("SELECT writetime(v) FROM review_kv WHERE p = 21 AND c = 1").Scan(&wt), wt)
		b = s.NewBatch(gocqlv1.UnloggedBatch)
		b.Query(ins, 21, 1, "b")
		b.SerialConsistency(gocqlv1.LocalSerial)
		b.Cons = gocqlv1.Consistency(gocqlv1.Serial)
		run("serial consistency", b)
		b = s.NewBatch(gocqlv1.UnloggedBatch)
		b.Query(ins, 21, 2, nil)
		b.Query(ins, 21, 3, gocqlv1.UnsetValue)
		run("null and unset", b)
		rows, err := s.Query("SELECT c, v FROM review_kv WHERE p = 21").Iter().SliceMap()
		tr.add("rows", rows, err)
	}
	{
		tr := &ct
		s := p.compat
		run := func(label string, b *gocql.Batch) {
			b.Observer(compatBatchObs{tr})
			b.RetryPolicy(&gocql.SimpleRetryPolicy{NumRetries: 1})
			err := s.ExecuteBatch(b)
			tr.add(label, err, b.Attempts())
		}
		if err := s.Query("TRUNCATE review_kv").Exec(); err != nil {
			t.Fatal(err)
		}
		b := s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query("INSERT INTO review_kv (p, c, v) VALUES (20, 2, 'b')")
		run("mixed", b)
		run("mixed again", b)
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query("INSERT INTO review_kv (p, c, nope) VALUES (?, ?, ?)", 20, 2, "b")
		run("prepare fails", b)
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query("INSERT INTO review_kv (p, c, nope) VALUES (20, 2, 'b')")
		run("unprepared fails", b)
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query("SELECT * FROM review_kv")
		run("select in batch", b)
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query("SELECT * FROM review_kv WHERE p = ?", 1)
		run("prepared select in batch", b)
		b = s.NewBatch(gocql.LoggedBatch)
		b.Bind(ins, func(*gocql.QueryInfo) ([]interface{}, error) { return nil, errors.New("binder failed") })
		run("binder fails", b)
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 20, "x", "a")
		run("marshal fails", b)
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 20, 1, "a")
		b.Query(ins, 20, 1, "a", 4)
		run("too many values", b)
		b = s.NewBatch(gocql.CounterBatch)
		b.Query(ins, 20, 1, "a")
		run("counter batch of a plain insert", b)
		b = s.NewBatch(gocql.UnloggedBatch)
		run("empty", b)
		b = s.NewBatch(gocql.UnloggedBatch)
		b.Query(ins, 21, 1, "a")
		b.WithTimestamp(1111)
		run("timestamp", b)
		var wt int64
		tr.add("writetime", s.Query("SELECT writetime(v) FROM review_kv WHERE p = 21 AND c = 1").Scan(&wt), wt)
		b = s.NewBatch(gocql.UnloggedBatch)
		b.Query(ins, 21, 1, "b")
		b.SerialConsistency(gocql.LocalSerial)
		b.Cons = gocql.Consistency(gocql.Serial)
		run("serial consistency", b)
		b = s.NewBatch(gocql.UnloggedBatch)
		b.Query(ins, 21, 2, nil)
		b.Query(ins, 21, 3, gocql.UnsetValue)
		run("null and unset", b)
		rows, err := s.Query("SELECT c, v FROM review_kv WHERE p = 21").Iter().SliceMap()
		tr.add("rows", rows, err)
	}
	sameTrace(t, &lt, &ct)
}

// pageObservations records the observed pages of a query: a prefetch observes its page in
// the iterator's fetching goroutine, so the observations are kept apart from the test's own
// steps (in their order, which is the pages' order) and under a lock.
type pageObservations struct {
	mu sync.Mutex
	tr trace
}

func (o *pageObservations) add(label string, values ...interface{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tr.add(label, values...)
}

// moveTo appends the observations to tr once the iterator is closed, and forgets them.
func (o *pageObservations) moveTo(tr *trace) {
	o.mu.Lock()
	defer o.mu.Unlock()
	tr.steps = append(tr.steps, o.tr.steps...)
	o.tr.steps = nil
}

// legacyPageObs records the observed pages of a query.
type legacyPageObs struct{ obs *pageObservations }

func (o legacyPageObs) ObserveQuery(_ context.Context, q gocqlv1.ObservedQuery) {
	o.obs.add("observe", q.Rows, q.Err, q.Attempt, q.Metrics != nil && q.Metrics.Attempts > 0)
}

type compatPageObs struct{ obs *pageObservations }

func (o compatPageObs) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	o.obs.add("observe", q.Rows, q.Err, q.Attempt, q.Metrics != nil && q.Metrics.Attempts > 0)
}

// TestReviewManualAndAutomaticPaging compares manual paging loops (PageState in, PageState
// out), automatic paging with prefetch, page sizes that divide the row count or not, page
// states of another query, and Scan after Close at a page boundary.
func TestReviewManualAndAutomaticPaging(t *testing.T) {
	p := newDiffPair(t, reviewKV, "CREATE TABLE KS.review_kv2 (p int, c int, v text, PRIMARY KEY (p, c))")
	fillKV(t, p, 6)
	for i := 1; i <= 3; i++ {
		if err := p.legacy.Query("INSERT INTO review_kv2 (p, c, v) VALUES (?, ?, 'z')", 1, i*10).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	const sel = "SELECT c, v FROM review_kv WHERE p = ?"
	var afterCloseLegacy, afterCloseCompat bool
	var lt, ct trace
	{
		tr := &lt
		s := p.legacy
		var c int
		var v string
		for _, size := range []int{1, 2, 3, 4, 6, 7, 0, -1} {
			var ps []byte
			for page := 0; page < 10; page++ {
				it := s.Query(sel, 1).PageSize(size).PageState(ps).Iter()
				tr.add("page", size, page, it.NumRows(), it.WillSwitchPage(), len(it.PageState()), it.PageState() == nil)
				for it.Scan(&c, &v) {
					tr.add("row", c, v)
				}
				ps = it.PageState()
				tr.add("end", it.Close(), it.NumRows(), it.WillSwitchPage())
				if len(ps) == 0 {
					break
				}
			}
		}
		obs := &pageObservations{}
		for _, pf := range []float64{0, 0.5, 1, 2, -1} {
			it := s.Query(sel, 1).PageSize(2).Prefetch(pf).Observer(legacyPageObs{obs}).Iter()
			for it.Scan(&c, &v) {
				tr.add("auto row", pf, c, v, it.NumRows(), it.WillSwitchPage(), len(it.PageState()))
			}
			tr.add("auto end", it.Close(), it.NumRows(), len(it.PageState()))
			obs.moveTo(tr)
		}
		it := s.Query(sel, 1).PageSize(2).Iter()
		ps := it.PageState()
		it.Close()
		it = s.Query("SELECT c, v FROM review_kv2 WHERE p = ?", 1).PageSize(2).PageState(ps).Iter()
		for it.Scan(&c, &v) {
			tr.add("foreign state row", c, v)
		}
		tr.add("foreign state", it.Close())
		it = s.Query(sel, 1).PageSize(2).PageState([]byte{1, 2, 3}).Iter()
		tr.add("garbage state", it.Close())
		it = s.Query(sel, 9).PageSize(2).Iter()
		tr.add("no rows", it.NumRows(), it.PageState(), it.Scan(&c, &v), it.Close())

		// Scan after Close at a page boundary: gocql v1.7.0 fetches the next page and goes on
		// (docs/deviations.md G1), compat returns false.
		it = s.Query(sel, 1).PageSize(2).Iter()
		tr.add("first", it.Scan(&c, &v), it.Scan(&c, &v), c)
		tr.add("close", it.Close())
		afterCloseLegacy = it.Scan(&c, &v)

		q := s.Query(sel, 1).PageSize(4)
		for i := 0; i < 2; i++ {
			it := q.Iter()
			n := 0
			for it.Scan(&c, &v) {
				n++
			}
			tr.add("iter twice", i, n, it.Close(), q.Attempts())
		}
	}
	{
		tr := &ct
		s := p.compat
		var c int
		var v string
		for _, size := range []int{1, 2, 3, 4, 6, 7, 0, -1} {
			var ps []byte
			for page := 0; page < 10; page++ {
				it := s.Query(sel, 1).PageSize(size).PageState(ps).Iter()
				tr.add("page", size, page, it.NumRows(), it.WillSwitchPage(), len(it.PageState()), it.PageState() == nil)
				for it.Scan(&c, &v) {
					tr.add("row", c, v)
				}
				ps = it.PageState()
				tr.add("end", it.Close(), it.NumRows(), it.WillSwitchPage())
				if len(ps) == 0 {
					break
				}
			}
		}
		obs := &pageObservations{}
		for _, pf := range []float64{0, 0.5, 1, 2, -1} {
			it := s.Query(sel, 1).PageSize(2).Prefetch(pf).Observer(compatPageObs{obs}).Iter()
			for it.Scan(&c, &v) {
				tr.add("auto row", pf, c, v, it.NumRows(), it.WillSwitchPage(), len(it.PageState()))
			}
			tr.add("auto end", it.Close(), it.NumRows(), len(it.PageState()))
			obs.moveTo(tr)
		}
		it := s.Query(sel, 1).PageSize(2).Iter()
		ps := it.PageState()
		it.Close()
		it = s.Query("SELECT c, v FROM review_kv2 WHERE p = ?", 1).PageSize(2).PageState(ps).Iter()
		for it.Scan(&c, &v) {
			tr.add("foreign state row", c, v)
		}
		tr.add("foreign state", it.Close())
		it = s.Query(sel, 1).PageSize(2).PageState([]byte{1, 2, 3}).Iter()
		tr.add("garbage state", it.Close())
		it = s.Query(sel, 9).PageSize(2).Iter()
		tr.add("no rows", it.NumRows(), it.PageState(), it.Scan(&c, &v), it.Close())

		// Scan after Close at a page boundary: gocql v1.7.0 fetches the next page and goes on
		// (docs/deviations.md G1), compat returns false.
		it = s.Query(sel, 1).PageSize(2).Iter()
		tr.add("first", it.Scan(&c, &v), it.Scan(&c, &v), c)
		tr.add("close", it.Close())
		afterCloseCompat = it.Scan(&c, &v)

		q := s.Query(sel, 1).PageSize(4)
		for i := 0; i < 2; i++ {
			it := q.Iter()
			n := 0
			for it.Scan(&c, &v) {
				n++
			}
			tr.add("iter twice", i, n, it.Close(), q.Attempts())
		}
	}
	sameTrace(t, &lt, &ct)
	if !afterCloseLegacy || afterCloseCompat {
		t.Errorf("Scan after Close at a page boundary: gocql %v, compat %v; want true, false (docs/deviations.md G1)", afterCloseLegacy, afterCloseCompat)
	}
}

// TestReviewBatchCASRows compares conditional batches over several rows, some existing,
// applied and not, read with ExecuteBatchCAS (right and wrong destination counts) and
// MapExecuteBatchCAS, and the rows left in the iterators they return.
func TestReviewBatchCASRows(t *testing.T) {
	p := newDiffPair(t, reviewLWT)
	const ins = "INSERT INTO review_lwt (p, c, v, w) VALUES (?, ?, ?, ?) IF NOT EXISTS"
	const upd = "UPDATE review_lwt SET v = ? WHERE p = ? AND c = ? IF w = ?"
	truncate := func() {
		if err := p.legacy.Query("TRUNCATE review_lwt").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var lt, ct trace
	{
		tr := &lt
		truncate()
		s := p.legacy
		seed := s.NewBatch(gocqlv1.UnloggedBatch)
		seed.Query(ins, 1, 1, "a", 1)
		seed.Query(ins, 1, 3, "c", 3)
		applied, it, err := s.ExecuteBatchCAS(seed)
		tr.add("seed", applied, err, it.NumRows(), len(it.Columns()))
		tr.add("seed rest", it.Scan(&applied), it.Close())
		var ap bool
		var pp, c, w int
		var v string
		for _, dests := range [][]interface{}{{&pp, &c, &v, &w}, {&pp, &c}, {}} {
			b := s.NewBatch(gocqlv1.LoggedBatch)
			b.Query(ins, 1, 1, "x", 9)
			b.Query(ins, 1, 2, "y", 9)
			b.Query(upd, "z", 1, 3, 3)
			applied, it, err = s.ExecuteBatchCAS(b, dests...)
			tr.add("cas", len(dests), applied, err, it == nil, pp, c, v, w)
			if it != nil {
				tr.add("iter", it.NumRows(), len(it.Columns()))
				for it.Scan(&ap, &pp, &c, &v, &w) {
					tr.add("row", ap, pp, c, v, w)
				}
				tr.add("close", it.Close())
			}
		}
		b := s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 1, 1, "x", 9)
		b.Query(upd, "z", 1, 3, 7)
		m := map[string]interface{}{}
		applied, it, err = s.MapExecuteBatchCAS(b, m)
		tr.add("map cas", applied, err, m)
		if it != nil {
			for {
				m := map[string]interface{}{}
				if !it.MapScan(m) {
					break
				}
				tr.add("map row", m)
			}
			tr.add("map close", it.Close())
		}
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 1, 5, "x", 9)
		b.Query(upd, "q", 1, 3, 3)
		m = map[string]interface{}{}
		applied, it, err = s.MapExecuteBatchCAS(b, m)
		tr.add("map cas applied", applied, err, m)
		if it != nil {
			tr.add("map applied rest", it.MapScan(map[string]interface{}{}), it.NumRows(), it.Close())
		}
		b = s.NewBatch(gocqlv1.LoggedBatch)
		b.Query(ins, 1, 6, "x", 9)
		applied, it, err = s.ExecuteBatchCAS(b, &pp)
		tr.add("cas applied extra dest", applied, err, it == nil)
		if it != nil {
			tr.add("cas applied rest", it.Scan(&ap), it.Close())
		}
		rows, err := s.Query("SELECT c, v, w FROM review_lwt WHERE p = 1").Iter().SliceMap()
		tr.add("rows", rows, err)
	}
	{
		tr := &ct
		truncate()
		s := p.compat
		seed := s.NewBatch(gocql.UnloggedBatch)
		seed.Query(ins, 1, 1, "a", 1)
		seed.Query(ins, 1, 3, "c", 3)
		applied, it, err := s.ExecuteBatchCAS(seed)
		tr.add("seed", applied, err, it.NumRows(), len(it.Columns()))
		tr.add("seed rest", it.Scan(&applied), it.Close())
		var ap bool
		var pp, c, w int
		var v string
		for _, dests := range [][]interface{}{{&pp, &c, &v, &w}, {&pp, &c}, {}} {
			b := s.NewBatch(gocql.LoggedBatch)
			b.Query(ins, 1, 1, "x", 9)
			b.Query(ins, 1, 2, "y", 9)
			b.Query(upd, "z", 1, 3, 3)
			applied, it, err = s.ExecuteBatchCAS(b, dests...)
			tr.add("cas", len(dests), applied, err, it == nil, pp, c, v, w)
			if it != nil {
				tr.add("iter", it.NumRows(), len(it.Columns()))
				for it.Scan(&ap, &pp, &c, &v, &w) {
					tr.add("row", ap, pp, c, v, w)
				}
				tr.add("close", it.Close())
			}
		}
		b := s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 1, 1, "x", 9)
		b.Query(upd, "z", 1, 3, 7)
		m := map[string]interface{}{}
		applied, it, err = s.MapExecuteBatchCAS(b, m)
		tr.add("map cas", applied, err, m)
		if it != nil {
			for {
				m := map[string]interface{}{}
				if !it.MapScan(m) {
					break
				}
				tr.add("map row", m)
			}
			tr.add("map close", it.Close())
		}
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 1, 5, "x", 9)
		b.Query(upd, "q", 1, 3, 3)
		m = map[string]interface{}{}
		applied, it, err = s.MapExecuteBatchCAS(b, m)
		tr.add("map cas applied", applied, err, m)
		if it != nil {
			tr.add("map applied rest", it.MapScan(map[string]interface{}{}), it.NumRows(), it.Close())
		}
		b = s.NewBatch(gocql.LoggedBatch)
		b.Query(ins, 1, 6, "x", 9)
		applied, it, err = s.ExecuteBatchCAS(b, &pp)
		tr.add("cas applied extra dest", applied, err, it == nil)
		if it != nil {
			tr.add("cas applied rest", it.Scan(&ap), it.Close())
		}
		rows, err := s.Query("SELECT c, v, w FROM review_lwt WHERE p = 1").Iter().SliceMap()
		tr.add("rows", rows, err)
	}
	sameTrace(t, &lt, &ct)
}

// ctxObs records the contexts its observer methods are called with.
type ctxObs struct{ ctxs []context.Context }

func (o *ctxObs) errs() []error {
	var out []error
	for _, c := range o.ctxs {
		out = append(out, c.Err())
	}
	return out
}

type legacyCtxObs struct{ *ctxObs }

func (o legacyCtxObs) ObserveQuery(ctx context.Context, _ gocqlv1.ObservedQuery) {
	o.ctxs = append(o.ctxs, ctx)
}

func (o legacyCtxObs) ObserveBatch(ctx context.Context, _ gocqlv1.ObservedBatch) {
	o.ctxs = append(o.ctxs, ctx)
}

type compatCtxObs struct{ *ctxObs }

func (o compatCtxObs) ObserveQuery(ctx context.Context, _ gocql.ObservedQuery) {
	o.ctxs = append(o.ctxs, ctx)
}

func (o compatCtxObs) ObserveBatch(ctx context.Context, _ gocql.ObservedBatch) {
	o.ctxs = append(o.ctxs, ctx)
}

type ctxKey struct{}

// TestReviewObserverGetsTheStatementsContext checks that observers get the statement's own
// context, as in gocql v1.7.0, also for an idempotent statement with a speculative execution
// policy: not the execution's internal context, which is cancelled when the execution ends
// (an observer that keeps the context, to export its observation later, saw it cancelled).
func TestReviewObserverGetsTheStatementsContext(t *testing.T) {
	p := newDiffPair(t, reviewKV)
	const ins = "INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)"
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	var lt, ct trace
	{
		tr := &lt
		s := p.legacy
		sp := &gocqlv1.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: time.Minute}
		o := legacyCtxObs{&ctxObs{}}
		q := s.Query(ins, 1, 1, "a").Idempotent(true).SetSpeculativeExecutionPolicy(sp).Observer(o).WithContext(ctx)
		tr.add("query", q.Exec())
		b := s.NewBatch(gocqlv1.UnloggedBatch).Observer(o).SpeculativeExecutionPolicy(sp).WithContext(ctx)
		b.Entries = append(b.Entries, gocqlv1.BatchEntry{Stmt: ins, Args: []interface{}{1, 2, "b"}, Idempotent: true})
		tr.add("batch", s.ExecuteBatch(b))
		tr.add("observer contexts", o.errs(), len(o.ctxs), o.ctxs[0].Value(ctxKey{}), o.ctxs[1].Value(ctxKey{}))
	}
	{
		tr := &ct
		s := p.compat
		sp := &gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: time.Minute}
		o := compatCtxObs{&ctxObs{}}
		q := s.Query(ins, 1, 1, "a").Idempotent(true).SetSpeculativeExecutionPolicy(sp).Observer(o).WithContext(ctx)
		tr.add("query", q.Exec())
		b := s.NewBatch(gocql.UnloggedBatch).Observer(o).SpeculativeExecutionPolicy(sp).WithContext(ctx)
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: ins, Args: []interface{}{1, 2, "b"}, Idempotent: true})
		tr.add("batch", s.ExecuteBatch(b))
		tr.add("observer contexts", o.errs(), len(o.ctxs), o.ctxs[0].Value(ctxKey{}), o.ctxs[1].Value(ctxKey{}))
	}
	sameTrace(t, &lt, &ct)
}

// TestReviewNilDestinationSkipsTupleColumn scans a tuple column whose first destination is
// nil, with Iter.Scan and a Scanner. gocql v1.7.0 then skips one destination only: with the
// tuple as the last column the others are left as they are, which compat reproduces; with a
// column after the tuple, gocql reads that column into the tuple's next destination and loses
// it (a silent wrong value, docs/deviations.md G51), where compat skips the tuple's
// destinations and reads the column into its own.
func TestReviewNilDestinationSkipsTupleColumn(t *testing.T) {
	p := newDiffPair(t, reviewTypes)
	if err := p.legacy.Query("INSERT INTO review_types (p, c, tp, b) VALUES (1, 1, (5, 'x'), 0x6869)").Exec(); err != nil {
		t.Fatal(err)
	}
	const last = "SELECT c, tp FROM review_types WHERE p = 1"
	var lt, ct trace
	{
		c, y := 0, "unset"
		it := p.legacy.Query(last).Iter()
		lt.add("tuple last", it.Scan(&c, nil, &y), c, y, it.Close())
		c, y = 0, "unset"
		sc := p.legacy.Query(last).Iter().Scanner()
		lt.add("scanner tuple last", sc.Next(), sc.Scan(&c, nil, &y), c, y, sc.Err())
		x := 0
		it = p.legacy.Query(last).Iter()
		lt.add("nil second element", it.Scan(&c, &x, nil), x, it.Close())
	}
	{
		c, y := 0, "unset"
		it := p.compat.Query(last).Iter()
		ct.add("tuple last", it.Scan(&c, nil, &y), c, y, it.Close())
		c, y = 0, "unset"
		sc := p.compat.Query(last).Iter().Scanner()
		ct.add("scanner tuple last", sc.Next(), sc.Scan(&c, nil, &y), c, y, sc.Err())
		x := 0
		it = p.compat.Query(last).Iter()
		ct.add("nil second element", it.Scan(&c, &x, nil), x, it.Close())
	}
	sameTrace(t, &lt, &ct)

	const middle = "SELECT c, tp, b FROM review_types WHERE p = 1"
	var c int
	var y string
	var b []byte
	it := p.legacy.Query(middle).Iter()
	if !it.Scan(&c, nil, &y, &b) || y != "hi" || b != nil {
		t.Errorf("gocql v1.7.0 no longer misreads the column after a skipped tuple: y %q b %q, %v", y, b, it.Close())
	}
	y = "unset"
	it2 := p.compat.Query(middle).Iter()
	if !it2.Scan(&c, nil, &y, &b) || y != "unset" || string(b) != "hi" {
		t.Errorf("compat Scan(&c, nil, &y, &b) = y %q b %q, %v; want the tuple skipped and b = hi", y, b, it2.Close())
	}
	y, b = "unset", nil
	sc := p.compat.Query(middle).Iter().Scanner()
	if !sc.Next() {
		t.Fatal(sc.Err())
	}
	if err := sc.Scan(&c, nil, &y, &b); err != nil || y != "unset" || string(b) != "hi" {
		t.Errorf("compat Scanner.Scan(&c, nil, &y, &b) = y %q b %q, %v; want the tuple skipped and b = hi", y, b, err)
	}
}
