package futures

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// callbackRaised is what a function with action "raise" panics with (the Python runner raises
// CallbackRaised).
type callbackRaised struct{ id string }

// Run executes sc on package future through sess, with {ks} replaced by keyspace, and returns
// its trace. A scenario with RerunIf runs again (up to MaxRuns in all) while its trace shows
// that the timing it needs did not hold.
func Run(ctx context.Context, sess *native.Session, sc Scenario, keyspace string) Trace {
	t := runOnce(ctx, sess, sc, keyspace)
	for n := 1; n < MaxRuns && sc.Raced(t) && ctx.Err() == nil; n++ {
		t = runOnce(ctx, sess, sc, keyspace)
	}
	return t
}

func runOnce(ctx context.Context, sess *native.Session, sc Scenario, keyspace string) Trace {
	r := &goRun{ctx: ctx, sess: sess, sc: sc, ks: keyspace}
	for _, st := range sc.Steps {
		r.step(st)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return Trace{Steps: r.steps, Callbacks: r.callbacks}
}

type goRun struct {
	ctx  context.Context
	sess *native.Session
	sc   Scenario
	ks   string

	mu        sync.Mutex
	callbacks []Event
	page      int
	adding    map[string]bool // ids of the add step in progress, when marked After

	steps []Event
	f     *future.ResponseFuture
	rs    *future.ResultSet
	old   *future.ResultSet
}

// errorClass names an error by the Python driver's exception class.
func errorClass(err error) string {
	var pe *callbacks.PanicError
	var syn *native.SyntaxError
	var inv *native.InvalidError
	var ae *native.AlreadyExistsError
	var te *future.TimeoutError
	var un *native.UnavailableError
	var rt *native.ReadTimeoutError
	var wt *native.WriteTimeoutError
	var rf *native.ReadFailureError
	var nh *native.NoHostAvailableError
	switch {
	case errors.As(err, &pe):
		if _, ok := pe.Value.(callbackRaised); ok {
			return "CallbackRaised"
		}
		return fmt.Sprintf("Other:panic(%v)", pe.Value)
	case errors.As(err, &nh):
		// Before the server errors: a NoHostAvailableError unwraps to each node's error, and
		// Python's NoHostAvailable is none of them.
		return "NoHostAvailable"
	case errors.As(err, &syn):
		return "SyntaxException"
	case errors.As(err, &inv):
		return "InvalidRequest"
	case errors.As(err, &ae):
		return "AlreadyExists"
	case errors.Is(err, future.ErrQueryExhausted):
		return "QueryExhausted"
	case errors.As(err, &te):
		return "OperationTimedOut"
	case errors.As(err, &un):
		return "Unavailable"
	case errors.As(err, &rt):
		return "ReadTimeout"
	case errors.As(err, &wt):
		return "WriteTimeout"
	case errors.As(err, &rf):
		return "ReadFailure"
	case errors.Is(err, future.ErrNotDone):
		return "DriverException"
	case errors.Is(err, future.ErrNoLWT):
		return "RuntimeError"
	}
	return fmt.Sprintf("Other:%T", err)
}

func renderValue(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}

func renderRow(row future.Row) string {
	parts := make([]string, row.Len())
	for i, v := range row.Values() {
		parts[i] = renderValue(v)
	}
	return strings.Join(parts, "|")
}

func renderRows(rows []future.Row) *[]string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = renderRow(r)
	}
	return &out
}

func ptr[T any](v T) *T { return &v }

func (r *goRun) record(ev Event) {
	r.mu.Lock()
	if r.adding[ev.ID] {
		ev.Inline = true
	}
	r.callbacks = append(r.callbacks, ev)
	r.mu.Unlock()
}

func (r *goRun) currentPage() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.page
}

func (r *goRun) bumpPage(delta int) {
	r.mu.Lock()
	r.page += delta
	r.mu.Unlock()
}

func (r *goRun) callback(id, action string) func(future.Page) {
	return func(p future.Page) {
		ev := Event{Kind: "callback", ID: id, Page: r.currentPage()}
		if p.HasRows() {
			rows, err := p.Rows()
			if err != nil {
				ev.Error = "decode:" + err.Error()
			} else {
				ev.Rows = renderRows(rows)
			}
		}
		if action == "slow_has_more_pages" {
			// Gives a next page started by an earlier callback time to arrive first.
			time.Sleep(slowCallback)
			ev.HasMorePages = ptr(r.f.HasMorePages())
		}
		r.record(ev)
		switch action {
		case "raise":
			panic(callbackRaised{id})
		case "fetch_next":
			if r.f.HasMorePages() {
				r.bumpPage(1)
				_ = r.f.StartFetchingNextPage()
			}
		}
	}
}

func (r *goRun) errback(id, action string) func(error) {
	return func(err error) {
		r.record(Event{Kind: "errback", ID: id, Page: r.currentPage(), Error: errorClass(err)})
		if action == "raise" {
			panic(callbackRaised{id})
		}
	}
}

func (r *goRun) stmt(st Step) string {
	s := st.Statement
	if s == "" {
		s = r.sc.Statement
	}
	return strings.ReplaceAll(s, "{ks}", r.ks)
}

// add runs an add step, marking its ids as "inline" while it runs when the step is After.
func (r *goRun) add(st Step, fn func() *future.ResponseFuture) {
	r.mu.Lock()
	if st.After {
		r.adding = map[string]bool{st.ID: true, st.EID: true}
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.adding = nil
		r.mu.Unlock()
		if rec := recover(); rec != nil {
			r.steps = append(r.steps, Event{Op: st.Op, Error: errorClass(&callbacks.PanicError{Value: rec})})
		}
	}()
	ret := fn()
	if st.RecordReturn {
		r.steps = append(r.steps, Event{Op: st.Op, ReturnsFuture: ptr(ret == r.f)})
	}
}

func (r *goRun) stepErr(op string, err error) {
	r.steps = append(r.steps, Event{Op: op, Error: errorClass(err)})
}

// defaultTimeout is the request timeout of steps that set none, and how long a wait step
// waits for callbacks: 30 s, as in runner.py, instead of the drivers' 10 s, so that slow DDL on
// a busy node does not time out scenarios that are not about timeouts.
const defaultTimeout = 30 * time.Second

// slowCallback is how long a callback with action "slow_has_more_pages" waits before it reads
// has_more_pages (runner.py's SLOW_CALLBACK).
const slowCallback = 300 * time.Millisecond

func (r *goRun) step(st Step) {
	switch st.Op {
	case "execute":
		q := native.Query(r.stmt(st))
		ps := st.PageSize
		if ps == 0 {
			ps = r.sc.PageSize
		}
		if ps > 0 {
			q = q.WithPageSize(ps)
		}
		if st.Trace {
			q = q.WithTracing(true)
		}
		if sp := st.Speculative; sp != nil {
			q = q.WithIdempotent(true).WithSpeculativeExecution(time.Duration(sp.Delay*float64(time.Second)), sp.Attempts)
		}
		switch st.Retry {
		case "":
		case "ignore":
			q = q.WithRetryPolicy(ignoreRetryPolicy{})
		default:
			r.steps = append(r.steps, Event{Op: st.Op, Error: "UnknownRetry:" + st.Retry})
			return
		}
		if st.Resume {
			if r.rs == nil {
				r.steps = append(r.steps, Event{Op: st.Op, Error: "NoResultSet"})
				return
			}
			q = q.WithPagingState(r.rs.PagingState())
		}
		opts := future.Options{}
		switch {
		case st.NoTimeout:
			opts.Timeout = future.NoTimeout
		case st.Timeout != nil:
			opts.Timeout = time.Duration(*st.Timeout * float64(time.Second))
		default:
			opts.Timeout = defaultTimeout
		}
		if r.sc.Go.Panics == "python" {
			opts.Callbacks.Panics = callbacks.PythonReroute
		}
		opts.Callbacks.OnPanic = func(*callbacks.PanicError) {} // expected in scenarios; not logged
		r.mu.Lock()
		r.page = 1
		r.mu.Unlock()
		r.f = future.ExecuteAsync(r.ctx, r.sess, q, opts)
	case "add_callback":
		cb := r.callback(st.ID, st.Action)
		r.add(st, func() *future.ResponseFuture { return r.f.AddCallback(cb) })
	case "add_errback":
		eb := r.errback(st.ID, st.Action)
		r.add(st, func() *future.ResponseFuture { return r.f.AddErrback(eb) })
	case "add_callbacks":
		cb, eb := r.callback(st.ID, st.Action), r.errback(st.EID, st.EAction)
		r.add(st, func() *future.ResponseFuture { return r.f.AddCallbacks(cb, eb) })
	case "wait":
		limit := defaultTimeout
		if st.Timeout != nil {
			limit = time.Duration(*st.Timeout * float64(time.Second))
		}
		deadline := time.Now().Add(limit)
		for {
			r.mu.Lock()
			n := len(r.callbacks)
			r.mu.Unlock()
			if n >= st.Events {
				break
			}
			if time.Now().After(deadline) {
				r.steps = append(r.steps, Event{Op: "wait", Error: "WaitTimeout", Have: n, Want: st.Events})
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		if st.Settle > 0 {
			time.Sleep(time.Duration(st.Settle * float64(time.Second)))
		}
	case "result":
		rs, err := r.f.Result()
		if err != nil {
			r.stepErr("result", err)
			return
		}
		r.rs = rs
		r.steps = append(r.steps, Event{Op: "result", Rows: renderRows(rs.CurrentRows()), HasMorePages: ptr(rs.HasMorePages())})
	case "result_identity":
		a, err := r.f.Result()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		b, _ := r.f.Result()
		r.steps = append(r.steps, Event{Op: st.Op, Distinct: ptr(a != b), SameFuture: ptr(a.Future() == b.Future())})
	case "result_as_old":
		rs, err := r.f.Result()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.old = rs
	case "old_current_rows":
		r.steps = append(r.steps, Event{Op: st.Op, Rows: renderRows(r.old.CurrentRows())})
	case "old_paging_state":
		r.steps = append(r.steps, Event{Op: st.Op, Present: ptr(len(r.old.PagingState()) > 0)})
	case "has_more_pages":
		r.steps = append(r.steps, Event{Op: st.Op, Value: jsonValue(r.f.HasMorePages())})
	case "start_fetching_next_page":
		r.bumpPage(1)
		if err := r.f.StartFetchingNextPage(); err != nil {
			r.bumpPage(-1)
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, OK: true})
	case "warnings":
		w, err := r.f.Warnings()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, Value: jsonValue(w)})
	case "custom_payload":
		p, err := r.f.CustomPayload()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, Value: jsonValue(p)})
	case "trace_id":
		id, err := r.f.TraceID()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, Present: ptr(id != nil)})
	case "clear_callbacks":
		r.f.ClearCallbacks()
	default:
		r.resultSetStep(st)
	}
}

func (r *goRun) resultSetStep(st Step) {
	rs := r.rs
	if rs == nil {
		r.steps = append(r.steps, Event{Op: st.Op, Error: "NoResultSet"})
		return
	}
	switch st.Op {
	case "rs_iter":
		rs.Iter()
	case "rs_next":
		n := st.N
		if n == 0 {
			n = 1
		}
		var out []string
		for range n {
			if !rs.Next() {
				if err := rs.Err(); err != nil {
					out = append(out, "<error:"+errorClass(err)+">")
				} else {
					out = append(out, "<end>")
				}
				break
			}
			out = append(out, renderRow(rs.Row()))
		}
		r.steps = append(r.steps, Event{Op: st.Op, Rows: &out})
	case "rs_all":
		rows, err := rs.All()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, Rows: renderRows(rows)})
	case "rs_one":
		ev := Event{Op: st.Op}
		if row, ok := rs.One(); ok {
			ev.Row = ptr(renderRow(row))
		}
		r.steps = append(r.steps, ev)
	case "rs_current_rows":
		r.steps = append(r.steps, Event{Op: st.Op, Rows: renderRows(rs.CurrentRows())})
	case "rs_fetch_next_page":
		if rs.HasMorePages() {
			r.bumpPage(1)
		}
		if err := rs.FetchNextPage(); err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, Rows: renderRows(rs.CurrentRows())})
	case "rs_has_more_pages":
		r.steps = append(r.steps, Event{Op: st.Op, Value: jsonValue(rs.HasMorePages())})
	case "rs_paging_state":
		r.steps = append(r.steps, Event{Op: st.Op, Present: ptr(len(rs.PagingState()) > 0)})
	case "rs_was_applied":
		ok, err := rs.WasApplied()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, Value: jsonValue(ok)})
	case "rs_query_trace":
		tctx, cancel := context.WithTimeout(r.ctx, defaultTimeout)
		tr, err := rs.QueryTrace(tctx)
		cancel()
		if err != nil {
			r.stepErr(st.Op, err)
			return
		}
		r.steps = append(r.steps, Event{Op: st.Op, Present: ptr(tr != nil)})
	case "rs_column_names":
		names := rs.ColumnNames()
		if names == nil {
			names = []string{}
		}
		r.steps = append(r.steps, Event{Op: st.Op, Value: jsonValue(names)})
	case "rs_bool":
		r.steps = append(r.steps, Event{Op: st.Op, Value: jsonValue(len(rs.CurrentRows()) > 0)})
	default:
		r.steps = append(r.steps, Event{Op: st.Op, Error: "UnknownOp"})
	}
}

// ignoreRetryPolicy answers every failed attempt with native.Ignore (a step's "retry": "ignore").
type ignoreRetryPolicy struct{}

func (ignoreRetryPolicy) Retry(context.Context, *native.Attempt) native.RetryDecision {
	return native.RetryDecision{Action: native.Ignore}
}

func jsonValue[T any](v T) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", "marshal error: "+err.Error()))
	}
	return b
}
