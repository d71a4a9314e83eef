package callbacks_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder collects what ran, in order.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}

func (r *recorder) cb(name string) func(int) {
	return func(v int) { r.add(fmt.Sprintf("%s(%d)", name, v)) }
}

func (r *recorder) eb(name string) func(error) {
	return func(err error) { r.add(fmt.Sprintf("%s(%v)", name, err)) }
}

func TestOrderAndOppositeOutcome(t *testing.T) {
	var l callbacks.List[int]
	var r recorder
	l.AddCallback(r.cb("a"))
	l.AddErrback(r.eb("e"))
	l.AddCallback(r.cb("b"))
	l.AddCallback(r.cb("a")) // no deduplication
	if !l.Succeed(7) {
		t.Fatal("Succeed on a pending list returned false")
	}
	if diff := cmp.Diff([]string{"a(7)", "b(7)", "a(7)"}, r.take()); diff != "" {
		t.Fatalf("dispatch order (-want +got):\n%s", diff)
	}
	// A second outcome is refused until Reset.
	if l.Fail(errors.New("late")) || l.Succeed(8) {
		t.Fatal("a second outcome was accepted")
	}
	if got := r.take(); len(got) != 0 {
		t.Fatalf("a refused outcome ran functions: %v", got)
	}
	// Added after success: a callback runs at once, an errback is only registered (A8).
	l.AddErrback(r.eb("late-e"))
	l.AddCallback(r.cb("late-c"))
	if diff := cmp.Diff([]string{"late-c(7)"}, r.take()); diff != "" {
		t.Fatalf("late add (-want +got):\n%s", diff)
	}
	if c, e := l.Len(); c != 4 || e != 2 {
		t.Fatalf("Len = %d, %d; want 4, 2", c, e)
	}
	// Reset re-arms: everything registered fires again, once, in order.
	l.Reset()
	if _, _, done := l.Outcome(); done {
		t.Fatal("Outcome reports done after Reset")
	}
	l.Fail(errors.New("boom"))
	if diff := cmp.Diff([]string{"e(boom)", "late-e(boom)"}, r.take()); diff != "" {
		t.Fatalf("after Reset (-want +got):\n%s", diff)
	}
	_, err, done := l.Outcome()
	if !done || err == nil || err.Error() != "boom" {
		t.Fatalf("Outcome = %v, %v; want boom, true", err, done)
	}
	l.Clear()
	l.Reset()
	l.Succeed(1)
	if got := r.take(); len(got) != 0 {
		t.Fatalf("Clear left functions registered: %v", got)
	}
}

func TestAddAfterCompletionRunsBeforeAddReturns(t *testing.T) {
	var l callbacks.List[string]
	l.Succeed("v")
	ran := false
	l.AddCallback(func(s string) { ran = s == "v" }) // no lock: must run in this goroutine
	if !ran {
		t.Fatal("a callback added after completion did not run before AddCallback returned")
	}
	l.AddCallback(nil)
	l.AddErrback(nil)
	if c, e := l.Len(); c != 1 || e != 0 {
		t.Fatalf("nil functions were registered: Len = %d, %d", c, e)
	}
}

// Many goroutines add while another completes: every function runs exactly once.
func TestConcurrentAddRunsExactlyOnce(t *testing.T) {
	for round := 0; round < 50; round++ {
		var l callbacks.List[int]
		const adders = 16
		const each = 20
		var counts [adders * each]atomic.Int32
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := 0; g < adders; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; i < each; i++ {
					n := g*each + i
					l.AddCallback(func(v int) {
						if v != 42 {
							t.Errorf("callback %d got %d", n, v)
						}
						counts[n].Add(1)
					})
				}
			}()
		}
		close(start)
		l.Succeed(42)
		wg.Wait()
		for n := range counts {
			if c := counts[n].Load(); c != 1 {
				t.Fatalf("round %d: callback %d ran %d times", round, n, c)
			}
		}
	}
}

func TestRecoverAndReport(t *testing.T) {
	var r recorder
	var reported []*callbacks.PanicError
	var l callbacks.List[int]
	l.Configure(callbacks.Options{OnPanic: func(pe *callbacks.PanicError) { reported = append(reported, pe) }})
	l.AddCallback(r.cb("a"))
	l.AddCallback(func(int) { panic("bad callback") })
	l.AddCallback(r.cb("c"))
	l.AddErrback(r.eb("e"))
	l.Succeed(1)
	if diff := cmp.Diff([]string{"a(1)", "c(1)"}, r.take()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if len(reported) != 1 || reported[0].Value != "bad callback" || reported[0].Index != 1 || reported[0].Errback {
		t.Fatalf("reported = %+v", reported)
	}
	v, err, done := l.Outcome()
	if v != 1 || err != nil || !done {
		t.Fatalf("the outcome changed after a panic: %v %v %v", v, err, done)
	}
	// An immediate call that panics is recovered too; AddCallback returns normally.
	l.AddCallback(func(int) { panic(errors.New("late")) })
	if len(reported) != 2 || reported[1].Index != -1 || reported[1].Unwrap() == nil {
		t.Fatalf("late panic not reported as such: %+v", reported)
	}
	// The late errback is not run (the outcome is a success).
	l.AddErrback(r.eb("late-e"))
	if got := r.take(); len(got) != 0 {
		t.Fatalf("errback ran after success: %v", got)
	}
}

func TestPythonRerouteCallbackPanic(t *testing.T) {
	var r recorder
	var l callbacks.List[int]
	l.Configure(callbacks.Options{Panics: callbacks.PythonReroute, OnPanic: func(*callbacks.PanicError) { r.add("reported") }})
	l.AddCallback(r.cb("a"))
	l.AddCallback(func(int) { panic("raised") })
	l.AddCallback(r.cb("skipped"))
	l.AddErrback(func(err error) {
		var pe *callbacks.PanicError
		if !errors.As(err, &pe) || pe.Value != "raised" {
			t.Errorf("errback got %v, want the callback's panic", err)
		}
		r.add("e")
	})
	l.Succeed(5)
	if diff := cmp.Diff([]string{"a(5)", "e"}, r.take()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// result() still returns the value (A12)...
	if v, err, _ := l.Outcome(); v != 5 || err != nil {
		t.Fatalf("Outcome = %v, %v; want 5, nil", v, err)
	}
	// ... and both outcomes count as known: late adds of both kinds run at once.
	l.AddErrback(r.eb("late-e"))
	l.AddCallback(r.cb("late-c"))
	got := r.take()
	if len(got) != 2 || got[1] != "late-c(5)" {
		t.Fatalf("late adds after a re-routed panic = %v", got)
	}
	// An immediate call that panics propagates to the adder (A7).
	func() {
		defer func() {
			if rec := recover(); rec != "late boom" {
				t.Errorf("recovered %v, want the late callback's panic", rec)
			}
		}()
		l.AddCallback(func(int) { panic("late boom") })
		t.Error("AddCallback returned normally")
	}()
}

func TestPythonRerouteErrbackPanic(t *testing.T) {
	var r recorder
	var l callbacks.List[int]
	l.Configure(callbacks.Options{Panics: callbacks.PythonReroute, OnPanic: func(pe *callbacks.PanicError) { r.add("reported:" + fmt.Sprint(pe.Value)) }})
	l.AddErrback(r.eb("first"))
	calls := 0
	l.AddErrback(func(error) {
		calls++
		panic(fmt.Sprintf("eb%d", calls))
	})
	l.AddErrback(r.eb("skipped"))
	l.Fail(errors.New("server"))
	want := []string{
		"first(server)",
		"first(callbacks: errback #1 panicked: eb1)", // the re-run with the errback's panic (A13)
		"reported:eb2", // the second panic escapes and is only reported
	}
	if diff := cmp.Diff(want, r.take()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	_, err, _ := l.Outcome()
	var pe *callbacks.PanicError
	if !errors.As(err, &pe) || pe.Value != "eb1" {
		t.Fatalf("Outcome error = %v; want the errback's panic (A13)", err)
	}
}

func TestExecutor(t *testing.T) {
	var queued []func()
	var r recorder
	l := callbacks.NewList[int](callbacks.Options{Executor: callbacks.ExecutorFunc(func(fn func()) { queued = append(queued, fn) })})
	l.AddCallback(r.cb("a"))
	l.AddCallback(r.cb("b"))
	l.Succeed(3)
	if got := r.take(); len(got) != 0 {
		t.Fatalf("ran before the executor did: %v", got)
	}
	if len(queued) != 1 {
		t.Fatalf("executor got %d tasks, want 1 per completion", len(queued))
	}
	queued[0]()
	if diff := cmp.Diff([]string{"a(3)", "b(3)"}, r.take()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	l.AddCallback(r.cb("late")) // immediate, in this goroutine, not through the executor
	if diff := cmp.Diff([]string{"late(3)"}, r.take()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestPanicPolicyString(t *testing.T) {
	for p, want := range map[callbacks.PanicPolicy]string{
		callbacks.RecoverAndReport: "RecoverAndReport",
		callbacks.PythonReroute:    "PythonReroute",
		9:                          "PanicPolicy(9)",
	} {
		if got := p.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", p, got, want)
		}
	}
}

func BenchmarkAddSucceed(b *testing.B) {
	b.ReportAllocs()
	cb := func(int) {}
	for i := 0; i < b.N; i++ {
		var l callbacks.List[int]
		l.AddCallback(cb)
		l.Succeed(i)
	}
}

func TestSettleThenRun(t *testing.T) {
	var l callbacks.List[int]
	var r recorder
	l.AddCallback(r.cb("a"))
	d := l.Settle(4, nil)
	if !d.Settled() {
		t.Fatal("Settle on a pending list did not settle")
	}
	if v, err, done := l.Outcome(); v != 4 || err != nil || !done {
		t.Fatalf("Outcome after Settle = %v, %v, %v", v, err, done)
	}
	if got := r.take(); len(got) != 0 {
		t.Fatalf("Settle ran functions: %v", got)
	}
	d.Run()
	if diff := cmp.Diff([]string{"a(4)"}, r.take()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	again := l.Settle(5, errors.New("x"))
	if again.Settled() {
		t.Fatal("a second Settle settled")
	}
	again.Run() // no-op
	if got := r.take(); len(got) != 0 {
		t.Fatalf("an unsettled Dispatch ran functions: %v", got)
	}
}

// TestPythonReroutePanicKeepsLaterCompletion: under PythonReroute, a callback of one completion
// that panics after a Reset started the next completion (a future's callback that fetched the
// next page, which arrived, then panicked) runs the errbacks with its panic but does not record
// it on the next completion, whose outcome stays its own.
func TestPythonReroutePanicKeepsLaterCompletion(t *testing.T) {
	var r recorder
	var l callbacks.List[int]
	l.Configure(callbacks.Options{Panics: callbacks.PythonReroute})
	l.AddCallback(func(v int) {
		if v == 1 {
			l.Reset()
			l.Settle(2, nil) // the next completion arrives while this callback still runs
			panic("raised")
		}
	})
	l.AddErrback(func(err error) {
		var pe *callbacks.PanicError
		if !errors.As(err, &pe) || pe.Value != "raised" {
			t.Errorf("errback got %v, want the callback's panic", err)
		}
		r.add("e")
	})
	l.Succeed(1)
	if diff := cmp.Diff([]string{"e"}, r.take()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if v, err, done := l.Outcome(); v != 2 || err != nil || !done {
		t.Fatalf("Outcome = %v, %v, %v; want the second completion's 2, nil, true", v, err, done)
	}
	// The second completion succeeded and did not fail: a late errback does not run.
	l.AddErrback(r.eb("late-e"))
	if got := r.take(); len(got) != 0 {
		t.Fatalf("a late errback ran on the second completion: %v", got)
	}
}

// TestPythonReroutePanicFailsPendingCompletion: under PythonReroute, a callback that started the
// next completion (Reset) and then panicked records its panic on that pending completion, as
// Python's _set_final_exception does (result() raises it until the next response arrives; the
// future package then resets the List and settles the response).
func TestPythonReroutePanicFailsPendingCompletion(t *testing.T) {
	var l callbacks.List[int]
	l.Configure(callbacks.Options{Panics: callbacks.PythonReroute})
	l.AddCallback(func(v int) {
		if v == 1 {
			l.Reset()
			panic("raised")
		}
	})
	l.Succeed(1)
	_, err, done := l.Outcome()
	var pe *callbacks.PanicError
	if !done || !errors.As(err, &pe) || pe.Value != "raised" {
		t.Fatalf("Outcome = %v, %v; want the panic on the pending completion", err, done)
	}
}

// Fail(nil) is a failure: the errbacks run, with an error saying Fail was given nil, and
// Outcome reports it. It was taken for a success: the callbacks ran with T's zero value and
// Outcome reported that value without an error, the errbacks never ran.
func TestFailNilIsAFailure(t *testing.T) {
	var l callbacks.List[int]
	var got []string
	l.AddCallback(func(v int) { got = append(got, fmt.Sprint("callback ", v)) })
	l.AddErrback(func(err error) { got = append(got, "errback "+err.Error()) })
	if !l.Fail(nil) {
		t.Fatal("Fail(nil) recorded no outcome")
	}
	want := []string{"errback callbacks: Fail called with a nil error"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ran (-want +got):\n%s", diff)
	}
	if _, err, done := l.Outcome(); !done || err == nil {
		t.Errorf("Outcome() = %v, %t, want a failure", err, done)
	}
}

// TestNoReroute: a dispatch marked with NoReroute (an outcome the Python driver delivers outside
// its response handler) does not re-route a panic under PythonReroute: it is reported, the
// functions after the panicking one are skipped, and the outcome stays; under RecoverAndReport
// the remaining functions run as usual.
func TestNoReroute(t *testing.T) {
	var r recorder
	report := func(pe *callbacks.PanicError) { r.add(fmt.Sprintf("reported:%v", pe.Value)) }

	var l callbacks.List[int]
	l.Configure(callbacks.Options{Panics: callbacks.PythonReroute, OnPanic: report})
	l.AddErrback(r.eb("first"))
	l.AddErrback(func(error) { panic("eb") })
	l.AddErrback(r.eb("skipped"))
	server := errors.New("timeout")
	d := l.Settle(0, server)
	d.NoReroute()
	d.Run()
	if diff := cmp.Diff([]string{"first(timeout)", "reported:eb"}, r.take()); diff != "" {
		t.Fatalf("errbacks (-want +got):\n%s", diff)
	}
	if _, err, done := l.Outcome(); !done || err != server {
		t.Fatalf("Outcome error = %v; want the failure itself, not the errback's panic", err)
	}

	var c callbacks.List[int]
	c.Configure(callbacks.Options{Panics: callbacks.PythonReroute, OnPanic: report})
	c.AddCallback(r.cb("a"))
	c.AddCallback(func(int) { panic("cb") })
	c.AddCallback(r.cb("skipped"))
	c.AddErrback(r.eb("e"))
	d = c.Settle(5, nil)
	d.NoReroute()
	d.RunInline()
	if diff := cmp.Diff([]string{"a(5)", "reported:cb"}, r.take()); diff != "" {
		t.Fatalf("callbacks (-want +got):\n%s", diff)
	}
	c.AddErrback(r.eb("late-e")) // the outcome is a success only: not run
	if v, err, _ := c.Outcome(); v != 5 || err != nil || len(r.take()) != 0 {
		t.Fatalf("Outcome = %v, %v, or a late errback ran; want 5, nil and no errback", v, err)
	}

	var rr callbacks.List[int]
	rr.Configure(callbacks.Options{OnPanic: report})
	rr.AddCallback(func(int) { panic("cb") })
	rr.AddCallback(r.cb("b"))
	d = rr.Settle(1, nil)
	d.NoReroute()
	d.Run()
	if diff := cmp.Diff([]string{"reported:cb", "b(1)"}, r.take()); diff != "" {
		t.Fatalf("RecoverAndReport with NoReroute (-want +got):\n%s", diff)
	}
}
