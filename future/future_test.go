package future_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, cqltest.GoleakOptions()...) }

// log records events from any goroutine.
type log struct {
	mu  sync.Mutex
	got []string
}

func (l *log) add(format string, args ...any) {
	l.mu.Lock()
	l.got = append(l.got, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *log) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

func render(rows []future.Row) string {
	s := "["
	for i, r := range rows {
		if i > 0 {
			s += " "
		}
		v, _ := r.Index(0)
		s += fmt.Sprint(v)
	}
	return s + "]"
}

func (l *log) cb(name string) func(future.Page) {
	return func(p future.Page) {
		rows, err := p.Rows()
		if err != nil {
			l.add("%s: decode error %v", name, err)
			return
		}
		l.add("%s p%d %s", name, p.Number(), render(rows))
	}
}

func (l *log) eb(name string) func(error) {
	return func(err error) { l.add("%s: %v", name, err) }
}

func threePages() map[string]fakePage {
	return map[string]fakePage{
		"":   {rows: []int{0, 1}, next: "p2"},
		"p2": {rows: []int{2, 3}, next: "p3", manual: true},
		"p3": {rows: []int{4}, manual: true},
	}
}

func diff(t *testing.T, want, got []string) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
}

func TestCallbacksRefirePerPage(t *testing.T) {
	for _, notify := range []bool{true, false} {
		t.Run(fmt.Sprintf("notifier=%v", notify), func(t *testing.T) {
			src := &fakeSource{pages: threePages(), notify: notify}
			defer src.stop()
			var l log
			f := future.Start(context.Background(), src, future.Options{})
			// The first page is already complete: both run now, in order, before the add returns.
			f.AddCallback(l.cb("a")).AddErrback(l.eb("e")).AddCallback(l.cb("b"))
			diff(t, []string{"a p1 [0 1]", "b p1 [0 1]"}, l.take())
			if !f.HasMorePages() {
				t.Fatal("HasMorePages false after a page with a paging state")
			}
			if err := f.StartFetchingNextPage(); err != nil {
				t.Fatal(err)
			}
			// In flight: HasMorePages is stale (A16), warnings are unavailable (A18) and a
			// second start is a no-op, not a duplicate request (A19 deviation).
			if !f.HasMorePages() {
				t.Error("HasMorePages false while page 2 is in flight")
			}
			if _, err := f.Warnings(); !errors.Is(err, future.ErrNotDone) {
				t.Errorf("Warnings during a fetch: %v, want ErrNotDone", err)
			}
			if _, err := f.CustomPayload(); !errors.Is(err, future.ErrNotDone) {
				t.Errorf("CustomPayload during a fetch: %v, want ErrNotDone", err)
			}
			if err := f.StartFetchingNextPage(); err != nil {
				t.Errorf("second StartFetchingNextPage while in flight: %v", err)
			}
			src.release()
			rs, err := f.Result()
			if err != nil {
				t.Fatal(err)
			}
			if got := render(rs.CurrentRows()); got != "[2 3]" {
				t.Errorf("Result after page 2 = %s", got)
			}
			// Result may return before the callbacks ran (A10); wait for them.
			waitFor(t, &l, 2)
			diff(t, []string{"a p2 [2 3]", "b p2 [2 3]"}, l.take())
			if err := f.StartFetchingNextPage(); err != nil {
				t.Fatal(err)
			}
			src.release()
			if _, err := f.Result(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, &l, 2)
			diff(t, []string{"a p3 [4]", "b p3 [4]"}, l.take())
			if f.HasMorePages() {
				t.Error("HasMorePages true after the last page")
			}
			if err := f.StartFetchingNextPage(); !errors.Is(err, future.ErrQueryExhausted) {
				t.Errorf("StartFetchingNextPage after the last page: %v, want ErrQueryExhausted", err)
			}
			diff(t, []string{"", "p2", "p3"}, src.requestLog())
		})
	}
}

// waitFor blocks until l holds n events (the callbacks of a page run in another goroutine).
func waitFor(t *testing.T, l *log, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		got := len(l.got)
		l.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %d events, have %d", n, got)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCallbacksRegisteredBeforeCompletionRunInCompletingGoroutine(t *testing.T) {
	pages := map[string]fakePage{"": {rows: []int{7}, manual: true}}
	src := &fakeSource{pages: pages, notify: true}
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{})
	var l log
	inRelease := false
	f.AddCallbacks(func(p future.Page) {
		l.add("cb inRelease=%v", inRelease)
	}, l.eb("eb"))
	inRelease = true
	src.release() // with a notifier, the callbacks run inside this call
	inRelease = false
	diff(t, []string{"cb inRelease=true"}, l.take())
}

func TestErrback(t *testing.T) {
	boom := errors.New("syntax error")
	src := &fakeSource{pages: map[string]fakePage{"": {err: boom}}}
	f := future.Start(context.Background(), src, future.Options{})
	var l log
	f.AddCallback(l.cb("cb"))
	f.AddErrback(l.eb("eb"))
	diff(t, []string{"eb: syntax error"}, l.take())
	_, err1 := f.Result()
	_, err2 := f.Result()
	if err1 != boom || err2 != boom {
		t.Fatalf("Result errors = %v, %v; want the same error value twice (A14)", err1, err2)
	}
	if err := f.StartFetchingNextPage(); !errors.Is(err, future.ErrQueryExhausted) {
		t.Fatalf("StartFetchingNextPage after a failure: %v", err)
	}
	w, err := f.Warnings()
	if err != nil || w != nil {
		t.Fatalf("Warnings after a failed first page = %v, %v; want nil, nil", w, err)
	}
}

func TestTimeoutOnLaterPage(t *testing.T) {
	pages := map[string]fakePage{
		"":   {rows: []int{1}, next: "p2"},
		"p2": {hang: true},
	}
	src := &fakeSource{pages: pages}
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{Timeout: 20 * time.Millisecond})
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 1)
	f.AddErrback(func(err error) { errs <- err })
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	_, err := f.Result()
	var te *future.TimeoutError
	if !errors.As(err, &te) || te.Page != 2 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("page 2 error = %v; want a *TimeoutError for page 2", err)
	}
	if got := <-errs; got != err {
		t.Fatalf("errback got %v, Result %v", got, err)
	}
}

func TestNoTimeoutPassesNoTimer(t *testing.T) {
	pages := map[string]fakePage{"": {hang: true}}
	src := &fakeSource{pages: pages}
	f := future.Start(context.Background(), src, future.Options{Timeout: future.NoTimeout})
	src.stop() // cancels the hanging request: without a timer only this ends it
	_, err := f.Result()
	var te *future.TimeoutError
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Fatalf("Result = %v; want the request's own context.Canceled", err)
	}
}

func TestWarningsPayloadTrace(t *testing.T) {
	pages := map[string]fakePage{
		"":   {rows: []int{1}, next: "p2", warnings: []string{"w1"}, payload: map[string][]byte{"k": []byte("v")}, trace: []byte{1}},
		"p2": {rows: []int{2}},
	}
	src := &fakeSource{pages: pages}
	f := future.Start(context.Background(), src, future.Options{})
	w, err := f.Warnings()
	if err != nil || len(w) != 1 || w[0] != "w1" {
		t.Fatalf("Warnings = %v, %v", w, err)
	}
	cp, err := f.CustomPayload()
	if err != nil || string(cp["k"]) != "v" {
		t.Fatalf("CustomPayload = %v, %v", cp, err)
	}
	id, err := f.TraceID()
	if err != nil || len(id) != 1 {
		t.Fatalf("TraceID = %v, %v", id, err)
	}
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	w, err = f.Warnings() // overwritten by page 2 (A17)
	if err != nil || w != nil {
		t.Fatalf("Warnings after page 2 = %v, %v; want nil", w, err)
	}
	id, _ = f.TraceID()
	if len(id) != 1 || len(f.TraceIDs()) != 1 {
		t.Fatalf("trace ids after an untraced page 2: latest %v, all %v", id, f.TraceIDs())
	}
}

// TestWarningsAfterAFailedPage pins deviation F11: after a page fails, Warnings and
// CustomPayload return nil (the native core's errors carry no response to take them from), where
// the Python driver keeps the error response's (or, after a client timeout, the previous page's).
func TestWarningsAfterAFailedPage(t *testing.T) {
	pages := map[string]fakePage{
		"":   {rows: []int{1}, next: "p2", warnings: []string{"w1"}, payload: map[string][]byte{"k": []byte("v")}},
		"p2": {err: errors.New("fake: page 2 failed")},
	}
	f := future.Start(context.Background(), &fakeSource{pages: pages}, future.Options{})
	if w, err := f.Warnings(); err != nil || len(w) != 1 {
		t.Fatalf("Warnings of page 1 = %v, %v; want [w1]", w, err)
	}
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Result(); err == nil {
		t.Fatal("page 2 succeeded; want its error")
	}
	w, err := f.Warnings()
	if err != nil || w != nil {
		t.Fatalf("Warnings after a failed page = %v, %v; want nil, nil (F11)", w, err)
	}
	cp, err := f.CustomPayload()
	if err != nil || cp != nil {
		t.Fatalf("CustomPayload after a failed page = %v, %v; want nil, nil (F11)", cp, err)
	}
}

// Many goroutines add callbacks while the response arrives: each runs exactly once, whether it
// made the snapshot or ran immediately.
func TestConcurrentAddWhileCompleting(t *testing.T) {
	for _, notify := range []bool{true, false} {
		for round := 0; round < 20; round++ {
			pages := map[string]fakePage{"": {rows: []int{1}, manual: true}}
			src := &fakeSource{pages: pages, notify: notify}
			f := future.Start(context.Background(), src, future.Options{})
			const adders, each = 8, 25
			var counts [adders * each]atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for g := range adders {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for i := range each {
						n := g*each + i
						f.AddCallback(func(future.Page) { counts[n].Add(1) })
					}
				}()
			}
			close(start)
			src.release()
			wg.Wait()
			if _, err := f.Result(); err != nil {
				t.Fatal(err)
			}
			// Callbacks dispatched by a delivery goroutine may still be running: wait for all.
			deadline := time.Now().Add(10 * time.Second)
			for n := range counts {
				for counts[n].Load() == 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if c := counts[n].Load(); c != 1 {
					t.Fatalf("notify=%v round %d: callback %d ran %d times", notify, round, n, c)
				}
			}
		}
	}
}

func TestPythonRerouteThroughFuture(t *testing.T) {
	src := &fakeSource{pages: map[string]fakePage{"": {rows: []int{1}, manual: true}}, notify: true}
	f := future.Start(context.Background(), src, future.Options{Callbacks: callbacks.Options{Panics: callbacks.PythonReroute}})
	var l log
	f.AddCallback(func(future.Page) { panic("callback failed") })
	f.AddCallback(l.cb("skipped"))
	f.AddErrback(l.eb("eb"))
	src.release()
	diff(t, []string{"eb: callbacks: callback #0 panicked: callback failed"}, l.take())
	if _, err := f.Result(); err != nil {
		t.Fatalf("Result after a re-routed callback panic: %v; want the result (A12)", err)
	}
}

func TestExecutorAndClearCallbacks(t *testing.T) {
	src := &fakeSource{pages: threePages(), notify: true}
	defer src.stop()
	var queued []func()
	var mu sync.Mutex
	exec := callbacks.ExecutorFunc(func(fn func()) {
		mu.Lock()
		queued = append(queued, fn)
		mu.Unlock()
	})
	f := future.Start(context.Background(), src, future.Options{Callbacks: callbacks.Options{Executor: exec}})
	var l log
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	f.AddCallback(l.cb("a")) // page 1 is known: runs now, not through the executor
	diff(t, []string{"a p1 [0 1]"}, l.take())
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	src.release()
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	if got := l.take(); len(got) != 0 {
		t.Fatalf("callbacks ran outside the executor: %v", got)
	}
	mu.Lock()
	tasks := queued
	mu.Unlock()
	if len(tasks) != 1 {
		t.Fatalf("executor got %d tasks for page 2, want 1", len(tasks))
	}
	tasks[0]()
	diff(t, []string{"a p2 [2 3]"}, l.take())
	f.ClearCallbacks()
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	src.release()
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(queued) != 1 {
		t.Fatalf("a page after ClearCallbacks dispatched %d tasks", len(queued)-1)
	}
}

func TestBadInputFailsTheFuture(t *testing.T) {
	//lint:ignore SA1012 a nil context is the bad input under test
	f := future.Start(nil, nil, future.Options{}) //nolint:staticcheck
	var l log
	f.AddErrback(l.eb("eb"))
	diff(t, []string{"eb: future: Start called with a nil Requester"}, l.take())
	if _, err := future.ExecuteAsync(context.Background(), nil, native.Query("SELECT 1"), future.Options{}).Result(); err == nil || !strings.Contains(err.Error(), "nil *native.Session") {
		t.Fatalf("ExecuteAsync with a nil session: %v", err)
	}
}

func TestBeforeFirstResponse(t *testing.T) {
	src := &fakeSource{pages: map[string]fakePage{"": {rows: []int{1}, next: "p2", manual: true}, "p2": {rows: []int{2}}}}
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{})
	if f.HasMorePages() {
		t.Error("HasMorePages true before the first response (A16)")
	}
	if err := f.StartFetchingNextPage(); !errors.Is(err, future.ErrQueryExhausted) {
		t.Errorf("StartFetchingNextPage before the first response: %v, want ErrQueryExhausted (A17)", err)
	}
	for name, call := range map[string]func() error{
		"Warnings":      func() error { _, err := f.Warnings(); return err },
		"CustomPayload": func() error { _, err := f.CustomPayload(); return err },
		"TraceID":       func() error { _, err := f.TraceID(); return err },
		"QueryTrace":    func() error { _, err := f.QueryTrace(context.Background()); return err },
	} {
		if err := call(); !errors.Is(err, future.ErrNotDone) {
			t.Errorf("%s before the first response: %v, want ErrNotDone (A18, A28)", name, err)
		}
	}
	src.release()
	if !f.HasMorePages() || f.PageNumber() != 1 {
		t.Fatalf("after page 1: HasMorePages %v, PageNumber %d", f.HasMorePages(), f.PageNumber())
	}
	if err := f.StartFetchingNextPage(); err != nil {
		t.Fatal(err)
	}
	if f.PageNumber() != 2 {
		t.Fatalf("PageNumber = %d after starting page 2", f.PageNumber())
	}
}

// With an Executor, the callbacks still see the pages one at a time and in order (pages that
// arrive after the callback was registered; one added to a known page runs at once in the
// adder's goroutine, as in the Python driver): the dispatch
// of a page, and of the pages queued behind it, is one task on the Executor, not one task per
// page (an Executor running each task in a goroutine of its own would otherwise run a slow
// callback on two pages at once, and deliver them out of order).
func TestExecutorKeepsPagesInOrder(t *testing.T) {
	src := &fakeSource{pages: map[string]fakePage{
		"": {rows: []int{0}, next: "p2", manual: true}, "p2": {rows: []int{1}, next: "p3"},
		"p3": {rows: []int{2}, next: "p4"}, "p4": {rows: []int{3}},
	}, notify: true}
	defer src.stop()
	exec := callbacks.ExecutorFunc(func(fn func()) { go fn() })
	f := future.Start(context.Background(), src, future.Options{Callbacks: callbacks.Options{Executor: exec}})
	var (
		mu      sync.Mutex
		order   []int
		running atomic.Int32
		overlap atomic.Int32
	)
	done := make(chan struct{})
	// One callback that asks for the next page first, then works slowly on this one.
	f.AddCallback(func(p future.Page) {
		if f.HasMorePages() {
			_ = f.StartFetchingNextPage()
		}
		if running.Add(1) > 1 {
			overlap.Add(1)
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		mu.Lock()
		order = append(order, p.Number())
		if len(order) == 4 {
			close(done)
		}
		mu.Unlock()
	})
	src.release() // page 1 arrives after the callback is registered
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the four pages did not all reach the callbacks")
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(order, []int{1, 2, 3, 4}) || overlap.Load() != 0 {
		t.Errorf("pages seen in order %v, %d times while the callback ran for another page; want 1 2 3 4, none", order, overlap.Load())
	}
}
