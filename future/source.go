package future

import (
	"context"
	"time"
)

// Requester sends the requests of one statement: the first page, then each following page. The
// native session adapter ([ExecuteAsync], [NewRequester]) implements it; tests and other backends
// may provide their own.
type Requester interface {
	// Request starts the request for the page that follows pagingState (nil: the first page).
	// It must not block on the network, nor return nil or panic (the page then fails with an
	// error saying so). When timeout is positive the request, with all its
	// retries and speculative executions, must complete within it, with an error for which
	// errors.Is(err, context.DeadlineExceeded) or errors.Is(err, native.ErrTimeout) holds when
	// it does not; timeout <= 0 means no client timer.
	Request(ctx context.Context, pagingState []byte, timeout time.Duration) Pending
}

// Pending is one request in flight.
type Pending interface {
	// Done is closed when the request has completed.
	Done() <-chan struct{}
	// Response returns the outcome. It is only called after Done is closed. A Response (or a
	// Response method the future calls then: PagingState, TraceID, Kind) that panics fails
	// the page with an error saying so.
	Response() (Response, error)
}

// Notifier is an optional interface of a [Pending]: OnDone arranges for fn to be called once,
// in the goroutine that completes the request (or at once if it already has). A future whose
// Pending implements it starts no goroutine to deliver callbacks.
type Notifier interface {
	OnDone(fn func())
}

// ResultKind is the kind of a response's result.
type ResultKind uint8

// The result kinds a response can have.
const (
	KindVoid ResultKind = iota + 1
	KindRows
	KindSetKeyspace
	KindSchemaChange
	KindPrepared
)

// Response is one completed page of a request, as the future needs it.
type Response interface {
	// Kind is the result kind; only KindRows carries rows.
	Kind() ResultKind
	// Columns describes the result's columns (nil unless KindRows).
	Columns() []Column
	// Rows decodes the page's rows. Each call decodes afresh.
	Rows() ([]Row, error)
	// PagingState is the state to pass to the next request, or nil on the last page.
	PagingState() []byte
	// Warnings are the server's warnings for this response.
	Warnings() []string
	// CustomPayload is the response's custom payload.
	CustomPayload() map[string][]byte
	// TraceID is the tracing session id when the request was traced, else nil.
	TraceID() []byte
}
