package future

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// ExecuteAsync starts stmt on sess and returns its future: the Python driver's
// session.execute_async(stmt). The first request is sent before ExecuteAsync returns; ctx bounds
// every page together with Options.Timeout (zero: stmt's own timeout, native.Statement.WithTimeout,
// when it has one). Failed attempts are retried as Options.RetryPolicy
// decides (by default as the Python driver's default RetryPolicy does, see PythonRetryPolicy),
// unless stmt has a retry policy of its own. With a nil sess the future fails with an error
// saying so.
func ExecuteAsync(ctx context.Context, sess *native.Session, stmt native.Statement, opts Options) *ResponseFuture {
	opts.Timeout = ownTimeout(opts.Timeout, stmt.Timeout)
	f := &ResponseFuture{nat: nativeRequester{sess: sess, stmt: stmt}}
	f.req = &f.nat // the requester lives in the future's own allocation
	if stmt.RetryPolicy() == nil {
		f.nat.retry.policy = opts.retryPolicy()
		f.nat.stmt = stmt.WithRetryPolicy(&f.nat.retry)
	}
	if sess == nil {
		f.req = failRequester{errors.New("future: ExecuteAsync called with a nil *native.Session")}
	}
	f.init(ctx, opts)
	return f
}

// ExecuteBatchAsync starts b on sess and returns its future: the Python driver's
// session.execute_async(BatchStatement). A batch has one page: its result (void, or the
// [applied] rows of a conditional batch, which ResultSet.WasApplied reads as the Python driver
// reads a BatchStatement's). The batch's values are bound before ExecuteBatchAsync returns
// (native.Session.ExecuteBatchAsync). ctx, Options.Timeout (zero: b's own timeout,
// native.Batch.WithTimeout, when it has one), Options.RetryPolicy (unless b has a retry
// policy of its own), QueryTrace and a nil sess apply as for ExecuteAsync.
func ExecuteBatchAsync(ctx context.Context, sess *native.Session, b native.Batch, opts Options) *ResponseFuture {
	opts.Timeout = ownTimeout(opts.Timeout, b.Timeout)
	f := &ResponseFuture{nat: nativeRequester{sess: sess, batch: &b}}
	f.req = &f.nat
	if b.RetryPolicy() == nil {
		f.nat.retry.policy = opts.retryPolicy()
		b = b.WithRetryPolicy(&f.nat.retry)
	}
	if sess == nil {
		f.req = failRequester{errors.New("future: ExecuteBatchAsync called with a nil *native.Session")}
	}
	f.init(ctx, opts)
	return f
}

// ownTimeout returns the Options.Timeout a future runs with: timeout, or when it is zero the
// statement's or batch's own timeout (own, as native.Statement.Timeout reports it) when it has
// one (NoTimeout for its 0).
func ownTimeout(timeout time.Duration, own func() (time.Duration, bool)) time.Duration {
	d, ok := own()
	switch {
	case timeout != 0 || !ok:
		return timeout
	case d <= 0:
		return NoTimeout
	default:
		return d
	}
}

// NewRequester returns the [Requester] that runs stmt on sess, page after page, retried by
// stmt's retry policy or else the session's (Options.RetryPolicy applies to ExecuteAsync and
// ExecuteBatchAsync only). With a nil sess, its requests fail with an error saying so, as
// ExecuteAsync's and ExecuteBatchAsync's do.
func NewRequester(sess *native.Session, stmt native.Statement) Requester {
	if sess == nil {
		return failRequester{errors.New("future: NewRequester called with a nil *native.Session")}
	}
	return &nativeRequester{sess: sess, stmt: stmt}
}

type nativeRequester struct {
	sess  *native.Session
	stmt  native.Statement
	batch *native.Batch // a batch's future runs it instead of stmt (ExecuteBatchAsync)
	retry retryCounter  // the future's Options.RetryPolicy, when stmt has none of its own
}

// retryCounter passes Options.RetryPolicy Python's retry_num as Attempt.Number: the retries
// decided so far for the future, over all its pages and speculative executions (the Python
// driver's _query_retries, which is never reset), where the native core numbers the attempts
// of one page's request.
type retryCounter struct {
	policy  native.RetryPolicy
	retries atomic.Int32
}

// Retry implements native.RetryPolicy.
func (r *retryCounter) Retry(ctx context.Context, a *native.Attempt) native.RetryDecision {
	b := *a
	b.Number = int(r.retries.Load())
	d := r.policy.Retry(ctx, &b)
	if d.Action == native.RetrySameHost || d.Action == native.RetryNextHost {
		r.retries.Add(1)
	}
	return d
}

func (r *nativeRequester) Request(ctx context.Context, pagingState []byte, timeout time.Duration) Pending {
	if r.batch != nil {
		// A batch result has no paging state, so there is no page to ask for after it.
		b := r.batch.WithTimeout(max(timeout, 0))
		return batchPending{nativePending{r.sess.ExecuteBatchAsync(ctx, b)}}
	}
	stmt := r.stmt
	if pagingState != nil {
		stmt = stmt.WithPagingState(pagingState)
	}
	if timeout > 0 {
		stmt = stmt.WithTimeout(timeout)
	} else {
		stmt = stmt.WithTimeout(0)
	}
	return nativePending{r.sess.ExecuteAsync(ctx, stmt)}
}

// nativePending adapts *native.Pending; a one-pointer struct, it costs no allocation in an
// interface.
type nativePending struct{ p *native.Pending }

func (p nativePending) Done() <-chan struct{} { return p.p.Done() }

func (p nativePending) OnDone(fn func()) { p.p.OnDone(fn) }

func (p nativePending) Response() (Response, error) {
	res, err := p.p.Result()
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, nil
	}
	return nativeResponse{r: res}, nil
}

// batchPending is nativePending for a batch: its Response is a batch response.
type batchPending struct{ nativePending }

func (p batchPending) Response() (Response, error) {
	res, err := p.p.Result()
	if err != nil || res == nil {
		return nil, err
	}
	return NewBatchResponse(res), nil
}

// NativeResult returns the native result r adapts (the pages of ExecuteAsync and
// ExecuteBatchAsync, and the Responses of NewResponse and NewBatchResponse), or nil for a
// Response of another Requester. It gives a page's rows typed access (native.Row.Scan,
// native.Get, native.RowToStruct) where Page.Rows and ResultSet give each value as an any:
//
//	if res := future.NativeResult(page.Response()); res != nil {
//		for _, row := range res.Rows() { // this page's rows
//			u, err := native.RowToStruct[User](row)
//			...
//		}
//	}
//
// The Result belongs to the page: it stays valid as long as it is referenced.
func NativeResult(r Response) *native.Result {
	if n, ok := r.(nativeResponse); ok {
		return n.r
	}
	return nil
}

// NewResponse adapts a native result to a [Response], for Requesters built on native.
func NewResponse(res *native.Result) Response { return nativeResponse{r: res} }

// NewBatchResponse is NewResponse for the result of a batch, which ResultSet.WasApplied reads
// as the Python driver reads a BatchStatement's.
func NewBatchResponse(res *native.Result) Response { return nativeResponse{r: res, batch: true} }

type nativeResponse struct {
	r     *native.Result
	batch bool
}

func (n nativeResponse) isBatch() bool { return n.batch }

// isBatch reports whether r is the result of a batch (see NewBatchResponse).
func isBatch(r Response) bool {
	b, ok := r.(interface{ isBatch() bool })
	return ok && b.isBatch()
}

// SchemaAgreed reports the native result's schema agreement (see ResponseFuture.IsSchemaAgreed).
func (n nativeResponse) SchemaAgreed() bool { return n.r.SchemaAgreed() }

func (n nativeResponse) Kind() ResultKind {
	switch n.r.Kind() {
	case native.ResultRows:
		return KindRows
	case native.ResultSetKeyspace:
		return KindSetKeyspace
	case native.ResultSchemaChange:
		return KindSchemaChange
	default:
		return KindVoid
	}
}

func (n nativeResponse) Columns() []Column {
	cols := n.r.Columns()
	if cols == nil {
		return nil
	}
	out := make([]Column, len(cols))
	for i, c := range cols {
		out[i] = Column{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, Type: c.Type}
	}
	return out
}

func (n nativeResponse) Rows() ([]Row, error) {
	if n.r.Kind() != native.ResultRows {
		return nil, nil
	}
	cols := n.Columns()
	rows := make([]Row, 0, n.r.Len())
	for i, row := range n.r.Rows() {
		vals := make([]any, len(cols))
		dest := make([]any, len(cols))
		for j := range vals {
			dest[j] = &vals[j]
		}
		if err := row.Scan(dest...); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		rows = append(rows, NewRow(cols, vals))
	}
	return rows, nil
}

func (n nativeResponse) PagingState() []byte { return n.r.PagingState() }

func (n nativeResponse) Warnings() []string { return n.r.Warnings() }

func (n nativeResponse) CustomPayload() map[string][]byte { return n.r.CustomPayload() }

func (n nativeResponse) TraceID() []byte {
	if _, ok := n.r.TraceID(); !ok {
		return nil
	}
	id, _ := n.r.TraceID()
	return append([]byte(nil), id[:]...)
}
