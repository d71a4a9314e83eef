package future_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// fakePage is one scripted response (or error) of a fakeSource.
type fakePage struct {
	kind     future.ResultKind
	rows     []int // one int column "k"
	next     string
	warnings []string
	payload  map[string][]byte
	trace    []byte
	err      error
	hang     bool // never answers; only the timeout ends it
	manual   bool // answers (with err, when set) when the test calls release
}

var fakeColumns = []future.Column{{Keyspace: "ks", Table: "t", Name: "k", Type: &cqltype.Type{Kind: cqltype.KindInt}}}

func (p fakePage) Kind() future.ResultKind {
	if p.kind == 0 {
		return future.KindRows
	}
	return p.kind
}

func (p fakePage) Columns() []future.Column {
	if p.Kind() != future.KindRows {
		return nil
	}
	return fakeColumns
}

func (p fakePage) Rows() ([]future.Row, error) {
	out := make([]future.Row, len(p.rows))
	for i, v := range p.rows {
		out[i] = future.NewRow(fakeColumns, []any{v})
	}
	return out, nil
}

func (p fakePage) PagingState() []byte {
	if p.next == "" {
		return nil
	}
	return []byte(p.next)
}
func (p fakePage) Warnings() []string               { return p.warnings }
func (p fakePage) CustomPayload() map[string][]byte { return p.payload }
func (p fakePage) TraceID() []byte                  { return p.trace }

// fakeSource serves scripted pages keyed by paging state ("" is the first page).
type fakeSource struct {
	pages  map[string]fakePage
	notify bool // pendings implement future.Notifier

	mu       sync.Mutex
	requests []string
	waiting  []*fakePending
	timers   []*time.Timer
}

func (s *fakeSource) Request(ctx context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	key := string(pagingState)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, key)
	p := &fakePending{done: make(chan struct{})}
	page, ok := s.pages[key]
	switch {
	case !ok:
		p.finish(nil, fmt.Errorf("fake: no page for paging state %q", key))
	case page.hang:
		if timeout > 0 {
			s.timers = append(s.timers, time.AfterFunc(timeout, func() { p.finish(nil, fmt.Errorf("fake: %w", context.DeadlineExceeded)) }))
		}
		s.waiting = append(s.waiting, p)
	case page.manual:
		p.page = page
		s.waiting = append(s.waiting, p)
	case page.err != nil:
		p.finish(nil, page.err)
	default:
		p.finish(page, nil)
	}
	if s.notify {
		return notifyingPending{p}
	}
	return p
}

// release answers the oldest manual request (with its page's error, when it has one).
func (s *fakeSource) release() {
	s.mu.Lock()
	p := s.waiting[0]
	s.waiting = s.waiting[1:]
	s.mu.Unlock()
	if p.page.err != nil {
		p.finish(nil, p.page.err)
		return
	}
	p.finish(p.page, nil)
}

func (s *fakeSource) requestLog() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// stop ends hanging requests so no timer or goroutine outlives a test.
func (s *fakeSource) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.timers {
		t.Stop()
	}
	for _, p := range s.waiting {
		p.finish(nil, context.Canceled)
	}
	s.waiting = nil
}

type fakePending struct {
	done  chan struct{}
	page  fakePage
	once  sync.Once
	mu    sync.Mutex
	resp  future.Response
	err   error
	hooks []func()
	fired bool
}

func (p *fakePending) finish(resp future.Response, err error) {
	p.once.Do(func() {
		p.mu.Lock()
		if err == nil {
			p.resp = resp
		}
		p.err = err
		close(p.done)
		hooks := p.hooks
		p.fired = true
		p.mu.Unlock()
		for _, h := range hooks {
			h()
		}
	})
}

func (p *fakePending) Done() <-chan struct{} { return p.done }
func (p *fakePending) Response() (future.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.resp, p.err
}

type notifyingPending struct{ *fakePending }

func (p notifyingPending) OnDone(fn func()) {
	p.mu.Lock()
	if p.fired {
		p.mu.Unlock()
		fn()
		return
	}
	p.hooks = append(p.hooks, fn)
	p.mu.Unlock()
}
