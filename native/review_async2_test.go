package native_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// Hooks registered concurrently with completion, and from inside hooks, each run exactly once,
// on both the detached path (a context that can end) and the worker path (a USE-free request
// with an observer would be needed; a cancelled-later context suffices for detached, a
// Background context for neverEnds).
func TestReviewAsync2OnDoneRacesCompletion(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	for _, ctx := range []context.Context{context.Background(), ctxT(t)} {
		const n = 200
		var ran atomic.Int64
		var wg sync.WaitGroup
		pend := make([]*native.Pending, n)
		for i := range pend {
			pend[i] = s.ExecuteAsync(ctx, native.Query("SELECT release_version FROM system.local"))
		}
		for _, p := range pend {
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p.OnDone(func() {
						ran.Add(1)
						p.OnDone(func() { ran.Add(1) }) // from inside a hook
					})
				}()
			}
		}
		wg.Wait()
		for _, p := range pend {
			if _, err := p.Result(); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for ran.Load() != n*8 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if got := ran.Load(); got != n*8 {
			t.Fatalf("hooks ran %d times, want %d", got, n*8)
		}
	}
}

// Cancelling the context of requests the node holds back: every Pending completes promptly
// with an error matching the context's error, on the detached path and on a worker (batch).
func TestReviewAsync2CancelInFlight(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY, v int)")
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "ks.t", Delay: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pend := []*native.Pending{
		s.ExecuteAsync(ctx, native.Query("SELECT * FROM ks.t")),
		s.ExecuteBatchAsync(ctx, native.NewBatch(native.UnloggedBatch, native.Query("INSERT INTO ks.t (k, v) VALUES (1, 1)"))),
	}
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cancel()
	for i, p := range pend {
		select {
		case <-p.Done():
		case <-time.After(3 * time.Second):
			t.Fatalf("pending %d not complete 3s after cancel", i)
		}
		if _, err := p.Result(); !errors.Is(err, context.Canceled) {
			t.Errorf("pending %d: %v, want context.Canceled", i, err)
		}
	}
	t.Logf("completed in %v", time.Since(start))
	// Deadline.
	dctx, dcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer dcancel()
	pend = []*native.Pending{
		s.ExecuteAsync(dctx, native.Query("SELECT * FROM ks.t")),
		s.ExecuteBatchAsync(dctx, native.NewBatch(native.UnloggedBatch, native.Query("INSERT INTO ks.t (k, v) VALUES (1, 1)"))),
	}
	for i, p := range pend {
		select {
		case <-p.Done():
		case <-time.After(3 * time.Second):
			t.Fatalf("pending %d not complete 3s after deadline", i)
		}
		if _, err := p.Result(); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("pending %d: %v, want context.DeadlineExceeded", i, err)
		}
	}
}

// Close with requests of every async kind held back by the node: Close returns, every Pending
// is complete with ErrSessionClosed, every hook runs once.
func TestReviewAsync2CloseWithEveryKindInFlight(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY, v int)")
	for i := range 10 {
		mustExec(t, s, "INSERT INTO ks.t (k, v) VALUES (?, ?)", int32(i), int32(i))
	}
	first, err := s.Execute(ctxT(t), native.Query("SELECT * FROM ks.t").WithPageSize(2))
	if err != nil || !first.HasMorePages() {
		t.Fatalf("first page: %v", err)
	}
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "ks.t", Delay: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	var pend []*native.Pending
	for _, ctx := range []context.Context{context.Background(), ctxT(t)} {
		pend = append(pend,
			s.ExecuteAsync(ctx, native.Query("SELECT * FROM ks.t")),
			s.ExecuteBatchAsync(ctx, native.NewBatch(native.UnloggedBatch, native.Query("INSERT INTO ks.t (k, v) VALUES (1, 1)"))),
			first.NextPageAsync(ctx),
		)
	}
	for _, p := range pend {
		p.OnDone(func() { ran.Add(1) })
	}
	time.Sleep(200 * time.Millisecond)
	closed := make(chan struct{})
	start := time.Now()
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked")
	}
	t.Logf("Close took %v", time.Since(start))
	for i, p := range pend {
		select {
		case <-p.Done():
		default:
			t.Fatalf("pending %d not complete when Close returned", i)
		}
		if _, err := p.Result(); !errors.Is(err, native.ErrSessionClosed) {
			t.Errorf("pending %d: %v, want ErrSessionClosed", i, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for ran.Load() != int64(len(pend)) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if ran.Load() != int64(len(pend)) {
		t.Fatalf("hooks ran %d, want %d", ran.Load(), len(pend))
	}
}

// Nil context on every async method, and a cancelled one before sending.
func TestReviewAsync2NilAndCancelledContext(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	var nilCtx context.Context
	if _, err := s.ExecuteBatchAsync(nilCtx, native.NewBatch(native.UnloggedBatch)).Result(); err == nil {
		t.Error("ExecuteBatchAsync with a nil context succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.ExecuteAsync(ctx, native.Query("SELECT release_version FROM system.local")).Result(); !errors.Is(err, context.Canceled) {
		t.Errorf("ExecuteAsync with a cancelled context: %v", err)
	}
	if _, err := s.ExecuteBatchAsync(ctx, native.NewBatch(native.UnloggedBatch)).Result(); !errors.Is(err, context.Canceled) {
		t.Errorf("ExecuteBatchAsync with a cancelled context: %v", err)
	}
}

// Wait from many goroutines at once, on a request held back.
func TestReviewAsync2ManyWaiters(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{})
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "system.local", Delay: 200 * time.Millisecond, Times: 1}); err != nil {
		t.Fatal(err)
	}
	p := s.ExecuteAsync(ctxT(t), native.Query("SELECT release_version FROM system.local"))
	var wg sync.WaitGroup
	results := make([]*native.Result, 50)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-p.Done()
			r, err := p.Result()
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r != results[0] {
			t.Fatal("waiters saw different results")
		}
	}
}

// Requests waiting for a stream id on a saturated connection: cancelling one's context, and
// Close, complete them promptly.
func TestReviewAsync2SaturatedConnection(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{}, func(c *native.Config) {
		*c = native.WithMaxStreams(*c, 4)
		c.ConnsPerHost = 1
	})
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY, v int)")
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "ks.t", Delay: 20 * time.Second}); err != nil {
		t.Fatal(err)
	}
	var pend []*native.Pending
	for range 20 {
		pend = append(pend, s.ExecuteAsync(context.Background(), native.Query("SELECT * FROM ks.t")))
	}
	ctx, cancel := context.WithCancel(context.Background())
	pc := s.ExecuteAsync(ctx, native.Query("SELECT * FROM ks.t"))
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case <-pc.Done():
		if _, err := pc.Result(); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled waiting request: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Error("request waiting for a stream id not complete 3s after its context was cancelled")
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked with requests waiting for a stream id")
	}
	for i, p := range pend {
		select {
		case <-p.Done():
		default:
			t.Fatalf("pending %d not complete when Close returned", i)
		}
		if _, err := p.Result(); !errors.Is(err, native.ErrSessionClosed) {
			t.Errorf("pending %d: %v", i, err)
		}
	}
}

// An async USE waiting behind another, at Close.
func TestReviewAsync2UseAtClose(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{})
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "USE", Delay: 20 * time.Second}); err != nil {
		t.Fatal(err)
	}
	var pend []*native.Pending
	for range 3 {
		pend = append(pend, s.ExecuteAsync(context.Background(), native.Query("USE ks")))
	}
	time.Sleep(300 * time.Millisecond)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked with USE in flight")
	}
	for i, p := range pend {
		if _, err := p.Result(); !errors.Is(err, native.ErrSessionClosed) {
			t.Errorf("pending %d: %v", i, err)
		}
	}
}

// A nil *Pending (a slice of Pendings not all started) and a nil *Result (an Execute error not
// checked) fail cleanly, as the zero Pending does, instead of panicking.
func TestReviewAsync2NilPendingAndResult(t *testing.T) {
	var p *native.Pending
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("nil *Pending: panic %v", r)
			}
		}()
		<-p.Done()
		if _, err := p.Result(); err == nil {
			t.Error("nil *Pending Result: no error")
		}
		ran := false
		p.OnDone(func() { ran = true })
		if !ran {
			t.Error("OnDone on a nil *Pending did not run")
		}
	}()
	var r *native.Result
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("nil *Result: panic %v", r)
			}
		}()
		if _, err := r.NextPageAsync(context.Background()).Result(); !errors.Is(err, native.ErrNoMorePages) {
			t.Errorf("NextPageAsync on a nil Result: %v", err)
		}
	}()
}

// A hook that ends its goroutine (runtime.Goexit, as t.FailNow does) does not lose the hooks
// registered after it.
func TestReviewAsync2GoexitInHook(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{})
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "system.local", Delay: 200 * time.Millisecond, Times: 1}); err != nil {
		t.Fatal(err)
	}
	p := s.ExecuteAsync(context.Background(), native.Query("SELECT release_version FROM system.local"))
	p.OnDone(func() { runtime.Goexit() })
	second := make(chan struct{})
	p.OnDone(func() { close(second) })
	p.Result()
	select {
	case <-second:
	case <-time.After(3 * time.Second):
		t.Fatal("the hook after a Goexit never ran")
	}
}

// A policy that panics with an error during an asynchronous request: the Pending's error wraps
// that error, so that errors.Is and errors.As find it.
func TestReviewAsync2PolicyPanicErrorIsWrapped(t *testing.T) {
	s := twoNodeSession(t, nil)
	sentinel := errors.New("policy sentinel")
	policy := funcRetry(func(context.Context, *native.Attempt) native.RetryDecision { panic(sentinel) })
	p := s.ExecuteAsync(ctxT(t), native.Query("SELECT * FROM no_such_table_here").WithRetryPolicy(policy))
	if _, err := p.Result(); !errors.Is(err, sentinel) {
		t.Errorf("Result error %v, want one wrapping the panic's error", err)
	}
}
