package future_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cqlbridge/cqlbridge/future"
)

// twoPageSource serves a first page that has a successor and a second, last page, each
// answering when the test calls release.
func twoPageSource() *fakeSource {
	return &fakeSource{notify: true, pages: map[string]fakePage{
		"":   {rows: []int{1}, next: "p2", warnings: []string{"w1"}, manual: true},
		"p2": {rows: []int{2}, warnings: []string{"w2"}, manual: true},
	}}
}

// describe records what a callback sees of the future: HasMorePages, PagingState and Warnings.
func describe(l *log, name string, f *future.ResponseFuture, p future.Page) {
	w, err := f.Warnings()
	switch {
	case errors.Is(err, future.ErrNotDone):
		l.add("%s p%d more=%v state=%q warnings=not-done", name, p.Number(), f.HasMorePages(), f.PagingState())
	case err != nil:
		l.add("%s p%d warnings error %v", name, p.Number(), err)
	default:
		l.add("%s p%d more=%v state=%q warnings=%v", name, p.Number(), f.HasMorePages(), f.PagingState(), w)
	}
}

// A page that completes while the previous page's callbacks are running stays in flight for
// them, as in the Python driver (which takes a response in on its event-loop thread only once
// the callbacks running there return): a later callback of page 1 sees page 1's
// has_more_pages and paging state, and warnings are not ready, although cb1 started page 2 and
// page 2 has already answered. Page 2's callbacks then see page 2.
func TestCallbackSeesItsOwnPageWhileNextCompleted(t *testing.T) {
	src := twoPageSource()
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{})
	var l log
	done := make(chan struct{})
	f.AddCallback(func(p future.Page) {
		if p.Number() == 1 {
			if err := f.StartFetchingNextPage(); err != nil {
				t.Errorf("StartFetchingNextPage: %v", err)
			}
			src.release() // page 2 answers now, in this goroutine, while page 1's callbacks run
		}
	})
	f.AddCallback(func(p future.Page) {
		describe(&l, "cb2", f, p)
		if p.Number() == 2 {
			close(done)
		}
	})
	src.release() // page 1
	<-done
	diff(t, []string{
		`cb2 p1 more=true state="p2" warnings=not-done`,
		`cb2 p2 more=false state="" warnings=[w2]`,
	}, l.take())
	if err := f.StartFetchingNextPage(); !errors.Is(err, future.ErrQueryExhausted) {
		t.Errorf("StartFetchingNextPage after the last page: %v, want ErrQueryExhausted", err)
	}
}

// Result, called by a callback after it started the next page, returns that page when it
// arrives (it does not wait for the running callbacks, which would never return), and the
// page's callbacks still run once, after the running ones.
func TestResultInCallbackGetsNextPage(t *testing.T) {
	src := twoPageSource()
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{})
	var l log
	done := make(chan struct{})
	f.AddCallback(func(p future.Page) {
		l.add("cb1 p%d", p.Number())
		if p.Number() != 1 {
			close(done)
			return
		}
		if err := f.StartFetchingNextPage(); err != nil {
			t.Errorf("StartFetchingNextPage: %v", err)
		}
		src.release()
		rs, err := f.Result()
		if err != nil {
			t.Errorf("Result in the callback: %v", err)
			return
		}
		rows := rs.CurrentRows()
		if len(rows) != 1 {
			t.Errorf("Result in the callback: %d rows, want page 2's one", len(rows))
			return
		}
		if k, _ := rows[0].Get("k"); k != 2 {
			t.Errorf("Result in the callback: k = %v, want page 2's 2", k)
		}
		describe(&l, "cb1", f, p)
	})
	src.release() // page 1
	<-done
	diff(t, []string{"cb1 p1", `cb1 p1 more=false state="" warnings=[w2]`, "cb1 p2"}, l.take())
}

// A page that completes while an outside goroutine's accessors look, with page 1's callbacks
// still running, is not taken in by them either; it is, with its callbacks, once those return.
func TestAccessorsWaitForRunningCallbacks(t *testing.T) {
	src := twoPageSource()
	defer src.stop()
	f := future.Start(context.Background(), src, future.Options{})
	var l log
	inCallback, proceed, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	f.AddCallback(func(p future.Page) {
		l.add("cb p%d", p.Number())
		if p.Number() == 1 {
			if err := f.StartFetchingNextPage(); err != nil {
				t.Errorf("StartFetchingNextPage: %v", err)
			}
			close(inCallback)
			<-proceed
			return
		}
		close(done)
	})
	go src.release() // page 1
	<-inCallback
	src.release()
	if !f.HasMorePages() || f.PageNumber() != 2 {
		t.Errorf("while page 1's callback runs: HasMorePages %v, PageNumber %d; want true, 2", f.HasMorePages(), f.PageNumber())
	}
	if _, err := f.Warnings(); !errors.Is(err, future.ErrNotDone) {
		t.Errorf("Warnings while page 1's callback runs: %v, want ErrNotDone", err)
	}
	if err := f.StartFetchingNextPage(); err != nil {
		t.Errorf("StartFetchingNextPage with page 2 in flight: %v", err)
	}
	close(proceed)
	<-done
	if f.HasMorePages() {
		t.Error("HasMorePages after page 2's callbacks: true, want false")
	}
	diff(t, []string{"cb p1", "cb p2"}, l.take())
	if got := src.requestLog(); len(got) != 2 {
		t.Errorf("requests %q, want the first page and p2 once", got)
	}
}
