package future_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// A ResponseFuture that no constructor started (the zero value) answers as a future whose first
// page failed, with an error saying so: Result, the Add methods, HasMorePages, PagingState,
// StartFetchingNextPage, Warnings, CustomPayload, TraceID, TraceIDs, QueryTrace and
// IsSchemaAgreed all dereferenced its nil Pending and panicked.
func TestZeroResponseFutureFails(t *testing.T) {
	var f future.ResponseFuture
	if f.HasMorePages() || f.PagingState() != nil || len(f.TraceIDs()) != 0 || !f.IsSchemaAgreed() {
		t.Error("the zero future reports pages, a paging state, trace ids or a schema disagreement")
	}
	rs, err := f.Result()
	if rs != nil || err == nil || !strings.Contains(err.Error(), "never started") {
		t.Fatalf("Result() = %v, %v, want an error saying the future was never started", rs, err)
	}
	var got error
	f.AddCallbacks(func(future.Page) { t.Error("a callback ran") }, func(e error) { got = e })
	if got != err {
		t.Errorf("the errback added got %v, want Result's error %v", got, err)
	}
	if err := f.StartFetchingNextPage(); !errors.Is(err, future.ErrQueryExhausted) {
		t.Errorf("StartFetchingNextPage() = %v, want ErrQueryExhausted", err)
	}
	if w, err := f.Warnings(); w != nil || err != nil {
		t.Errorf("Warnings() = %v, %v", w, err)
	}
	if p, err := f.CustomPayload(); p != nil || err != nil {
		t.Errorf("CustomPayload() = %v, %v", p, err)
	}
	if id, err := f.TraceID(); id != nil || err != nil {
		t.Errorf("TraceID() = %x, %v", id, err)
	}
	if tr, err := f.QueryTrace(context.Background()); tr != nil || err != nil {
		t.Errorf("QueryTrace() = %v, %v", tr, err)
	}
}

// The zero ResultSet is an empty one: Next, Seq, All, FetchNextPage, HasMorePages,
// PagingState and the trace accessors went to its nil future and panicked.
func TestZeroResultSetIsEmpty(t *testing.T) {
	var rs future.ResultSet
	if rs.Next() || rs.Err() != nil {
		t.Errorf("Next() found a row, or Err() = %v", rs.Err())
	}
	if rows, err := rs.All(); len(rows) != 0 || err != nil {
		t.Errorf("All() = %v, %v", rows, err)
	}
	for row, err := range rs.Seq() {
		t.Errorf("Seq yielded %v, %v", row, err)
	}
	if err := rs.FetchNextPage(); err != nil || rs.HasMorePages() || rs.PagingState() != nil {
		t.Errorf("FetchNextPage() = %v, HasMorePages() = %t, PagingState() = %x", err, rs.HasMorePages(), rs.PagingState())
	}
	if id, err := rs.TraceID(); id != nil || err != nil || len(rs.TraceIDs()) != 0 {
		t.Errorf("TraceID() = %x, %v; TraceIDs() = %x", id, err, rs.TraceIDs())
	}
	if tr, err := rs.QueryTrace(context.Background()); tr != nil || err != nil {
		t.Errorf("QueryTrace() = %v, %v", tr, err)
	}
}

// NewRequester with a nil session gives a Requester whose requests fail with an error saying
// so, as ExecuteAsync does; its first request panicked (a nil *native.Session in
// ExecuteAsync) before Start returned. The zero native.Session fails with
// native.ErrNotConnected.
func TestNewRequesterNilAndZeroSession(t *testing.T) {
	ctx := context.Background()
	_, err := future.Start(ctx, future.NewRequester(nil, native.Query("SELECT key FROM system.local")), future.Options{}).Result()
	if err == nil || !strings.Contains(err.Error(), "nil *native.Session") {
		t.Errorf("NewRequester(nil, ...): %v, want an error naming the nil session", err)
	}
	var zero native.Session
	_, err = future.ExecuteAsync(ctx, &zero, native.Query("SELECT key FROM system.local"), future.Options{}).Result()
	if !errors.Is(err, native.ErrNotConnected) {
		t.Errorf("ExecuteAsync on the zero native.Session: %v, want ErrNotConnected", err)
	}
}
