package native

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// ricRows is the number of rows of the review table; ricPage its page size (8 pages).
const (
	ricRows = 50
	ricPage = 7
)

func ricCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ricSetup starts a cqlsim node with table ric.kv (k int PRIMARY KEY, v text) of ricRows
// rows, and returns the node's address.
func ricSetup(t *testing.T) string {
	t.Helper()
	addr := cqlsim.StartT(t, cqlsim.Options{}).Addrs()[0]
	s := ricConnect(t, addr)
	ctx := ricCtx(t)
	for _, q := range []string{
		"CREATE KEYSPACE ric WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ric.kv (k int PRIMARY KEY, v text)",
	} {
		if _, err := s.Execute(ctx, Query(q)); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i := range ricRows {
		if _, err := s.Execute(ctx, Query("INSERT INTO ric.kv (k, v) VALUES (?, ?)", int32(i), fmt.Sprint("v", i))); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	return addr
}

func ricConnect(t *testing.T, addr string, mod ...func(*Config)) *Session {
	t.Helper()
	cfg := Config{Hosts: []string{addr}, DisablePeerDiscovery: true, ConnsPerHost: 1, Timeout: 20 * time.Second}
	for _, m := range mod {
		m(&cfg)
	}
	s, err := Connect(ricCtx(t), cfg)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// ricProxied starts the review node (ricSetup) behind a proxy and connects a session (mod
// changes its Config) through the proxy. The caller defers the returned leak check
// (cqltest.LeakCheck, which ignores the goroutines started before the session).
func ricProxied(t *testing.T, mod ...func(*Config)) (*cqltest.Proxy, *Session, func()) {
	t.Helper()
	px := cqltest.NewProxy(t, ricSetup(t))
	noLeak := cqltest.LeakCheck(t)
	return px, ricConnect(t, px.Addr(), mod...), noLeak
}

// ricSession starts the review node (ricSetup) and connects a session to it. The caller
// defers the returned leak check (cqltest.LeakCheck, which ignores the goroutines started
// before the session).
func ricSession(t *testing.T) (*Session, func()) {
	t.Helper()
	addr := ricSetup(t)
	noLeak := cqltest.LeakCheck(t)
	return ricConnect(t, addr), noLeak
}

// ricFirst runs ricSelect on s and returns its first page, failing the test on an error.
func ricFirst(t *testing.T, ctx context.Context, s *Session) *Result {
	t.Helper()
	res, err := s.Execute(ctx, ricSelect())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ricSelect() Statement { return Query("SELECT k, v FROM ric.kv").WithPageSize(ricPage) }

// ricKeys collects column k of the rows of seq, failing on an error.
func ricKeys(t *testing.T, seq func(func(Row, error) bool)) []int32 {
	t.Helper()
	var out []int32
	for row, err := range seq {
		if err != nil {
			t.Fatalf("iteration: %v", err)
		}
		k, err := Get[int32](row, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}

// inFlight returns the stream ids in use on every connection of s.
func (s *Session) ricInFlight() int {
	n := 0
	st := s.state.Load()
	for _, p := range st.pools {
		for _, c := range p.all() {
			n += c.InFlight()
		}
	}
	return n
}

// ricWaitIdle waits (bounded) until no stream id is in use.
func ricWaitIdle(t *testing.T, s *Session) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.ricInFlight() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d stream ids still in use", s.ricInFlight())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ricWaitInFlight waits (bounded) until at least n stream ids are in use.
func ricWaitInFlight(t *testing.T, s *Session, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.ricInFlight() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d in flight", s.ricInFlight())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ricStillWorks checks that, once every stream id is free again, s still has its connection
// c and seq still yields every row.
func ricStillWorks(t *testing.T, s *Session, c any, seq func(func(Row, error) bool)) {
	t.Helper()
	ricWaitIdle(t, s)
	if s.ricConn(t) != c {
		t.Fatalf("the connection was replaced")
	}
	if got := ricKeys(t, seq); len(got) != ricRows {
		t.Fatalf("%d rows", len(got))
	}
}

func TestReviewIterateIterateTwiceAndBreak(t *testing.T) {
	s, noLeak := ricSession(t)
	defer noLeak()
	ctx := ricCtx(t)
	res := ricFirst(t, ctx, s)
	if res.Len() != ricPage || !res.HasMorePages() {
		t.Fatalf("first page: %d rows, more %v", res.Len(), res.HasMorePages())
	}
	all := res.All(ctx)
	a := ricKeys(t, all)
	b := ricKeys(t, all)
	if len(a) != ricRows || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("All twice: %d %v / %d %v", len(a), a, len(b), b)
	}
	// Break in the middle of the second page, then iterate again from the start.
	n := 0
	for _, err := range all {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == ricPage+3 {
			break
		}
	}
	if c := ricKeys(t, all); fmt.Sprint(c) != fmt.Sprint(a) {
		t.Fatalf("after break: %v", c)
	}
	// Session.Iter twice.
	it := s.Iter(ctx, ricSelect())
	if c, d := ricKeys(t, it), ricKeys(t, it); fmt.Sprint(c) != fmt.Sprint(a) || fmt.Sprint(d) != fmt.Sprint(a) {
		t.Fatalf("Iter twice: %v / %v", c, d)
	}
	// Rows of one page twice, with a break.
	for i := range res.Rows() {
		if i == 2 {
			break
		}
	}
	cnt := 0
	for range res.Rows() {
		cnt++
	}
	if cnt != ricPage {
		t.Fatalf("Rows: %d", cnt)
	}
	// Collect / CollectOne.
	ks, err := Collect(all, func(r Row) (int32, error) { return Get[int32](r, 0) })
	if err != nil || len(ks) != ricRows {
		t.Fatalf("Collect: %d %v", len(ks), err)
	}
	// RowTo needs one column: two are selected.
	var se *ScanError
	if _, err := CollectOne(all, RowTo[int32]); !errors.As(err, &se) {
		t.Fatalf("CollectOne RowTo of two columns: %v", err)
	}
	ricWaitIdle(t, s)
	s.Close()
}

func TestReviewIteratePanicInLoopBody(t *testing.T) {
	s, noLeak := ricSession(t)
	defer noLeak()
	ctx := ricCtx(t)
	res := ricFirst(t, ctx, s)
	for _, seq := range []func(func(Row, error) bool){res.All(ctx), s.Iter(ctx, ricSelect())} {
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Fatalf("recovered %v", r)
				}
			}()
			n := 0
			for range seq {
				n++
				if n == ricPage+2 {
					panic("boom")
				}
			}
		}()
		if got := ricKeys(t, seq); len(got) != ricRows {
			t.Fatalf("after panic: %d rows", len(got))
		}
	}
	ricWaitIdle(t, s)
	s.Close()
}

func TestReviewIterateCancelMidIteration(t *testing.T) {
	s, noLeak := ricSession(t)
	defer noLeak()
	for _, useIter := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var seq func(func(Row, error) bool)
		if useIter {
			seq = s.Iter(ctx, ricSelect())
		} else {
			res, err := s.Execute(ctx, ricSelect())
			if err != nil {
				t.Fatal(err)
			}
			seq = res.All(ctx)
		}
		n, errs, afterErr := 0, 0, 0
		var last error
		for row, err := range seq {
			if errs > 0 {
				afterErr++
			}
			if err != nil {
				errs++
				last = err
				if row.Len() != 0 {
					t.Errorf("error with a non-zero row")
				}
				continue
			}
			n++
			if n == ricPage+1 {
				cancel()
			}
		}
		cancel()
		if errs != 1 || afterErr != 0 || !errors.Is(last, context.Canceled) {
			t.Fatalf("iter=%v: %d rows, %d errors (%d elements after), last %v", useIter, n, errs, afterErr, last)
		}
		if n != 2*ricPage {
			t.Fatalf("iter=%v: %d rows before the error, want %d", useIter, n, 2*ricPage)
		}
	}
	// A deadline already passed.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, err := range s.Iter(ctx, ricSelect()) {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("past deadline: %v", err)
		}
	}
	ricWaitIdle(t, s)
	if got := ricKeys(t, s.Iter(ricCtx(t), ricSelect())); len(got) != ricRows {
		t.Fatalf("after cancellations: %d rows", len(got))
	}
	s.Close()
}

func TestReviewIterateScanWrongTypes(t *testing.T) {
	addr := ricSetup(t)
	s := ricConnect(t, addr)
	ctx := ricCtx(t)
	if _, err := s.Execute(ctx, Query("CREATE TABLE ric.types (k int PRIMARY KEY, b bigint, t text, l list<int>, m map<text,int>, u uuid, ts timestamp, f float, d double, bo boolean, bl blob, n int)")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(ctx, Query("INSERT INTO ric.types (k, b, t, l, m, u, ts, f, d, bo, bl) VALUES (1, 5000000000, 'x', [1,2], {'a': 1}, 5b6962dd-3f90-4c93-8f61-eabfa4a803e2, '2020-01-01', 1.5, 2.5, true, 0x01)")); err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(ctx, Query("SELECT k, b, t, l, m, u, ts, f, d, bo, bl, n FROM ric.types"))
	if err != nil {
		t.Fatal(err)
	}
	row, ok := res.First()
	if !ok {
		t.Fatal("no row")
	}
	var nilInt *int
	var nilStr *string
	var nilAny *any
	dests := []any{
		"not a pointer", 5, nilInt, nilStr, nilAny, new(int8), new(uint), new(bool), new([]string), new(map[int]int),
		new(struct{ A int }), new(chan int), new(func()), new(*int), new(**string), new([2]int), new(float32), new(time.Time),
		new(any), new(error), new(io.Reader), new([]byte), new(uintptr), new(complex128),
	}
	for c := range row.Len() {
		for _, d := range dests {
			scan := make([]any, row.Len())
			scan[c] = d
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("Scan column %d (%s) into %T panicked: %v", c, row.Columns()[c].Type, d, r)
					}
				}()
				_ = row.Scan(scan...)
			}()
		}
	}
	// Get with every T on every column: an error or a value, never a panic.
	for c := range row.Len() + 2 {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("Get column %d panicked: %v", c, r)
				}
			}()
			_, _ = Get[int8](row, c)
			_, _ = Get[string](row, c)
			_, _ = Get[int](row, c)
			_, _ = Get[*int](row, c)
			_, _ = Get[[]int](row, c)
			_, _ = Get[map[string]int](row, c)
			_, _ = Get[any](row, c)
			_, _ = Get[chan int](row, c)
			_, _ = Get[struct{}](row, c)
			_, _ = Get[error](row, c)
		}()
	}
	// Silent wrong values.
	if v, err := Get[int32](row, 1); err == nil {
		t.Errorf("Get[int32] of bigint 5000000000: %d, no error", v)
	}
	if v, err := Get[int8](row, 0); err != nil || v != 1 {
		t.Errorf("Get[int8] of int 1: %d %v", v, err)
	}
	var i16 int16
	if err := row.Scan(nil, &i16, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil); err == nil {
		t.Errorf("Scan bigint 5000000000 into int16: %d, no error", i16)
	}
	var f32 float32
	if err := row.Scan(nil, nil, nil, nil, nil, nil, nil, nil, &f32, nil, nil, nil); err == nil {
		t.Logf("Scan double into float32: %v", f32)
	}
	// The zero Row (the element that carries an error).
	var zero Row
	if err := zero.Scan(new(int)); err == nil {
		t.Errorf("zero Row Scan: no error")
	}
	if _, err := Get[int](zero, 0); err == nil {
		t.Errorf("zero Row Get: no error")
	}
	if _, err := RowToStruct[struct{ K int }](zero); err != nil {
		t.Logf("zero Row RowToStruct: %v", err)
	}
	if _, err := zero.Values(); err != nil {
		t.Errorf("zero Row Values: %v", err)
	}
	// RowToStruct with awkward structs.
	type emb struct{ K int32 }
	type Emb struct{ K int32 }
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("RowToStruct panicked: %v", r)
			}
		}()
		_, _ = RowToStruct[struct {
			emb
			B int64
		}](row)
		_, _ = RowToStruct[struct {
			*Emb
			B int64
		}](row)
		_, _ = RowToStruct[struct {
			K  string
			B  chan int
			T  func()
			XX int `cql:"k"`
		}](row)
		_, _ = RowToStruct[*struct{ K int }](row)
		_, _ = RowToStruct[int](row)
	}()
}

// ricConn returns the only connection of a ConnsPerHost 1, one-node session.
func (s *Session) ricConn(t *testing.T) any {
	st := s.state.Load()
	if len(st.pools) != 1 || len(st.pools[0].all()) != 1 {
		t.Fatalf("want one pool of one connection")
	}
	return st.pools[0].all()[0]
}

// Dropped Pendings: nothing blocks, stream ids come back, nothing leaks.
func TestReviewIterateDroppedPendings(t *testing.T) {
	s, noLeak := ricSession(t)
	defer noLeak()
	c := s.ricConn(t)
	ctx := ricCtx(t)
	first := ricFirst(t, ctx, s)
	for i := range 300 {
		s.ExecuteAsync(ctx, Query("SELECT k, v FROM ric.kv WHERE k = ?", int32(i%ricRows)))
		first.NextPageAsync(ctx)
	}
	ricStillWorks(t, s, c, s.Iter(ctx, ricSelect()))
	s.Close()
}

// Many concurrent requests cancelled while their responses are held: each ends with the
// context's error, the stream ids come back once the late responses arrive, and the same
// connection keeps working.
func TestReviewIterateConcurrentCancelWhileHeld(t *testing.T) {
	px, s, noLeak := ricProxied(t)
	defer noLeak()
	c := s.ricConn(t)
	px.SetHold(true)
	const n = 400
	pend := make([]*Pending, n)
	cancels := make([]context.CancelFunc, n)
	for i := range n {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		st := Query("SELECT k, v FROM ric.kv WHERE k = ?", int32(i%ricRows))
		if i%4 == 3 {
			st = st.WithTimeout(1500 * time.Millisecond) // a coarse timeout
		}
		pend[i] = s.ExecuteAsync(ctx, st)
	}
	// Synchronous requests too, each in its own goroutine.
	var wg sync.WaitGroup
	syncErrs := make([]error, 40)
	syncCancel := make([]context.CancelFunc, 40)
	for i := range syncErrs {
		ctx, cancel := context.WithCancel(context.Background())
		syncCancel[i] = cancel
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, syncErrs[i] = s.Execute(ctx, Query("SELECT k, v FROM ric.kv WHERE k = ?", int32(i)))
		}()
	}
	// Wait until every request is on the wire.
	ricWaitInFlight(t, s, n+len(syncErrs))
	for i := range n {
		if i%2 == 0 {
			cancels[i]()
		}
	}
	for _, cancel := range syncCancel {
		cancel()
	}
	wg.Wait()
	for i, err := range syncErrs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("sync request %d: %v", i, err)
		}
	}
	for i := range n {
		if i%2 == 0 {
			if _, err := pend[i].Result(); !errors.Is(err, context.Canceled) {
				t.Errorf("request %d: %v, want context.Canceled", i, err)
			}
		}
	}
	px.SetHold(false)
	for i := range n {
		res, err := pend[i].Result()
		switch {
		case i%2 == 0:
		case err != nil:
			t.Errorf("request %d: %v", i, err)
		case res.Len() != 1:
			t.Errorf("request %d: %d rows", i, res.Len())
		}
		cancels[i]()
	}
	ricStillWorks(t, s, c, s.Iter(ricCtx(t), ricSelect()))
	s.Close()
}

// Deadlines shorter than the request.
func TestReviewIterateShortDeadlines(t *testing.T) {
	px, s, noLeak := ricProxied(t)
	defer noLeak()
	c := s.ricConn(t)
	first := ricFirst(t, ricCtx(t), s)
	px.SetHold(true)
	for _, d := range []time.Duration{time.Millisecond, 30 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		_, err := s.Execute(ctx, ricSelect())
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
			t.Errorf("ctx deadline %s: %v", d, err)
		}
		_, err = first.NextPage(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
			t.Errorf("NextPage ctx deadline %s: %v", d, err)
		}
		_, err = s.ExecuteAsync(ctx, ricSelect()).Result()
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
			t.Errorf("async ctx deadline %s: %v", d, err)
		}
		n := 0
		for _, err := range first.All(ctx) {
			if err != nil && (!errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout)) {
				t.Errorf("All ctx deadline %s: %v", d, err)
			}
			n++
		}
		if n != ricPage+1 {
			t.Errorf("All: %d elements", n)
		}
		cancel()
		// A statement timeout shorter than the request.
		_, err = s.Execute(context.Background(), ricSelect().WithTimeout(d))
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("statement timeout %s: %v", d, err)
		}
	}
	// A coarse timeout (1 s or more) with a shorter context deadline: the context wins.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err := s.Execute(ctx, ricSelect().WithTimeout(2*time.Second))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Errorf("coarse timeout, short ctx: %v", err)
	}
	_, err = s.Execute(context.Background(), ricSelect().WithTimeout(time.Second))
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("coarse statement timeout: %v", err)
	}
	px.SetHold(false)
	ricStillWorks(t, s, c, first.All(ricCtx(t)))
	s.Close()
}

// Close while iterations, synchronous and asynchronous requests are in progress: they end
// with ErrSessionClosed, Close returns, nothing leaks.
func TestReviewIterateCloseDuringIterationAndAsync(t *testing.T) {
	px, s, noLeak := ricProxied(t, func(c *Config) { c.ConnsPerHost = 2 })
	defer noLeak()
	ctx := ricCtx(t)
	first := ricFirst(t, ctx, s)
	px.SetHold(true)
	var wg sync.WaitGroup
	iterErrs := make([]error, 6)
	for i := range iterErrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seq := first.All(ctx)
			if i%2 == 1 {
				seq = s.Iter(ctx, ricSelect())
			}
			for _, err := range seq {
				if err != nil {
					iterErrs[i] = err
				}
			}
		}()
	}
	pend := make([]*Pending, 100)
	for i := range pend {
		switch i % 3 {
		case 0:
			pend[i] = s.ExecuteAsync(ctx, ricSelect())
		case 1:
			pend[i] = first.NextPageAsync(ctx)
		default:
			pend[i] = s.ExecuteAsync(context.Background(), ricSelect().WithTimeout(-1))
		}
	}
	ricWaitInFlight(t, s, len(pend)+len(iterErrs))
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return")
	}
	wg.Wait()
	for i, err := range iterErrs {
		if !errors.Is(err, ErrSessionClosed) {
			t.Errorf("iteration %d: %v", i, err)
		}
	}
	for i, p := range pend {
		// Close may return just before the request's goroutine completes p (see the report):
		// wait, bounded.
		select {
		case <-p.Done():
		case <-time.After(20 * time.Second):
			t.Fatalf("pending %d not complete after Close", i)
		}
		if _, err := p.Result(); !errors.Is(err, ErrSessionClosed) {
			t.Errorf("pending %d: %v", i, err)
		}
	}
	if _, err := first.NextPage(ctx); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("NextPage after Close: %v", err)
	}
	for _, err := range first.All(ctx) {
		if err != nil && !errors.Is(err, ErrSessionClosed) {
			t.Errorf("All after Close: %v", err)
		}
	}
	px.SetHold(false)
}

// A paging state resumes the query in another session, and a Result's next page is fetched by
// its own session.
func TestReviewIteratePagingStateAcrossSessions(t *testing.T) {
	addr := ricSetup(t)
	defer cqltest.LeakCheck(t)()
	a := ricConnect(t, addr)
	b := ricConnect(t, addr)
	ctx := ricCtx(t)
	seen := map[int32]bool{}
	res, err := a.Execute(ctx, ricSelect())
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range []*Session{b, a, b, b, a, b, a, b, a} {
		for _, row := range res.Rows() {
			k, _ := Get[int32](row, 0)
			if seen[k] {
				t.Fatalf("row %d twice", k)
			}
			seen[k] = true
		}
		if !res.HasMorePages() {
			break
		}
		res, err = sess.Execute(ctx, ricSelect().WithPagingState(res.PagingState()))
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != ricRows {
		t.Fatalf("%d rows", len(seen))
	}
	// A prepared statement of session a, with a paging state of a, run by session b.
	pa, err := a.Prepare(ctx, "SELECT k, v FROM ric.kv")
	if err != nil {
		t.Fatal(err)
	}
	ra, err := a.Execute(ctx, pa.Bind().WithPageSize(ricPage))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Execute(ctx, pa.Bind().WithPageSize(ricPage).WithPagingState(ra.PagingState()))
	if err != nil {
		t.Fatal(err)
	}
	if rb.Len() != ricPage {
		t.Fatalf("b: %d rows", rb.Len())
	}
	got := ricKeys(t, rb.All(ctx))
	if len(got) != ricRows-ricPage {
		t.Fatalf("b: %d rows", len(got))
	}
	// a's Result after a closes: NextPage fails with ErrSessionClosed, b's still works.
	a.Close()
	if _, err := ra.NextPage(ctx); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("NextPage of a closed session's result: %v", err)
	}
	if got := ricKeys(t, rb.All(ctx)); len(got) != ricRows-ricPage {
		t.Fatalf("b: %d rows", len(got))
	}
	// A paging state that is garbage: an error, not a hang or a panic.
	if _, err := b.Execute(ctx, ricSelect().WithPagingState([]byte{1, 2, 3})); err == nil {
		t.Logf("garbage paging state accepted")
	}
	b.Close()
}

// Requests with short, random deadlines and cancellations, synchronous and asynchronous, on
// one connection: each ends with its own row or its context's error, never another request's
// row, and afterwards every stream id is free and the connection still answers.
func TestReviewIterateCancellationStorm(t *testing.T) {
	px, s, noLeak := ricProxied(t)
	defer noLeak()
	c := s.ricConn(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	stop := make(chan struct{})
	toggled := make(chan struct{})
	go func() {
		defer close(toggled)
		for i := 0; ; i++ {
			select {
			case <-stop:
				px.SetHold(false)
				return
			case <-time.After(time.Duration(i%3) * time.Millisecond):
				px.SetHold(i%2 == 0)
			}
		}
	}()
	check := func(k int32, res *Result, err error) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			row, ok := res.First()
			if !ok {
				t.Errorf("key %d: no row", k)
				return
			}
			g, _ := Get[int32](row, 0)
			if g != k {
				t.Errorf("key %d: got the row of key %d", k, g)
			}
			counts["ok"]++
		case errors.Is(err, context.Canceled):
			counts["canceled"]++
		case errors.Is(err, context.DeadlineExceeded):
			counts["deadline"]++
		default:
			t.Errorf("key %d: %v", k, err)
		}
	}
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				k := int32((g*300 + i) % ricRows)
				d := time.Duration((g*7+i*13)%2000) * time.Microsecond
				ctx, cancel := context.WithTimeout(context.Background(), d)
				st := Query("SELECT k, v FROM ric.kv WHERE k = ?", k)
				if i%3 == 0 {
					st = st.WithTimeout(time.Duration((i*31)%1500) * time.Microsecond)
				}
				if i%2 == 0 {
					res, err := s.Execute(ctx, st)
					if i%3 == 0 && errors.Is(err, ErrTimeout) {
						err = nil
						res = nil
						cancel()
						continue
					}
					check(k, res, err)
				} else {
					p := s.ExecuteAsync(ctx, st)
					if i%5 == 0 {
						cancel()
					}
					res, err := p.Result()
					if i%3 == 0 && errors.Is(err, ErrTimeout) {
						cancel()
						continue
					}
					check(k, res, err)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-toggled
	t.Logf("%v", counts)
	ricStillWorks(t, s, c, s.Iter(ricCtx(t), ricSelect()))
	s.Close()
}
